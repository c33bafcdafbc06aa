package drillspark.analysis

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.LeafExpression
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, JavaCode, TrueLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.EmptyBlock
import org.apache.spark.sql.types.DataType

/**
 * The typed NULL a missing column of a Drill table reads as. It is a constant (the optimizer
 * folds it to a NULL literal), but until then the analyzed plan shows it as
 * `drill_missing(path)`: the query's warning about what was missing, visible in
 * `EXPLAIN EXTENDED` from any client. `sql` is the path as written, so generated column
 * names stay the ones the query would have with the column present.
 */
case class MissingColumn(path: String, dataType: DataType) extends LeafExpression {
  override def nullable: Boolean = true
  override def foldable: Boolean = true
  override def eval(input: InternalRow): Any = null
  override def toString: String = s"drill_missing($path)"
  override def sql: String = path

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    ev.copy(code = EmptyBlock, isNull = TrueLiteral, value = JavaCode.defaultLiteral(dataType))
}
