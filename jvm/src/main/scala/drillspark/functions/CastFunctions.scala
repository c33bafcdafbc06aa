package drillspark.functions

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{TypeCheckFailure, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * `drill_integer_text(s)`: whether Drill's CAST of the text `s` to an integer type reads it:
 * an optional `-`, then ASCII digits and nothing else (no spaces, `+`, fraction or line break;
 * Drill 1.22 fails `CAST('12\n' AS INT)`). NULL for NULL. The SQL layer's CAST of text to
 * an integer asks it before Spark's cast, which is looser; a scan of CSV text casts every
 * row, and a regex there cost an eighth of the scan (docs/performance.md).
 */
case class DrillIntegerText(child: Expression) extends UnaryExpression {
  override def prettyName: String = DrillIntegerText.Name
  override def dataType: DataType = BooleanType

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case _: StringType => TypeCheckSuccess
    case other => TypeCheckFailure(s"${DrillIntegerText.Name} needs text, got ${other.sql}")
  }

  override protected def nullSafeEval(input: Any): Any = DrillIntegerText.test(input.asInstanceOf[UTF8String])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val owner = DrillIntegerText.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, c => s"$owner.test($c)")
  }

  override protected def withNewChildInternal(newChild: Expression): DrillIntegerText = copy(child = newChild)
}

object DrillIntegerText {
  val Name = "drill_integer_text"

  def test(s: UTF8String): Boolean = {
    val n = s.numBytes
    var i = if (n > 0 && s.getByte(0) == '-') 1 else 0
    if (i >= n) return false
    while (i < n) {
      val b = s.getByte(i)
      if (b < '0' || b > '9') return false
      i += 1
    }
    true
  }

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillIntegerText].getName,
    usage = "_FUNC_(s) - Whether Drill's CAST reads the text `s` as an integer: an optional " +
      "`-` then digits, nothing else; NULL for NULL.",
    examples = """
    Examples:
      > SELECT _FUNC_('-12');
       true
      > SELECT _FUNC_(' 12');
       false
  """,
    group = "string_funcs") { args =>
    DrillFunctions.arity(Name, args, 1)
    DrillIntegerText(args.head)
  }
}
