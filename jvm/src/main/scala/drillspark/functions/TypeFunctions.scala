package drillspark.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, CaseWhen, Coalesce, ExprId, Expression, If, RaiseError, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{UTF8String, VariantVal}

/**
 * Drill's type functions: `drill_typeof`, `drill_drilltypeof`, `drill_sqltypeof`,
 * `drill_modeof`. They report the column's type, so a null value of a typed column still
 * names its type (Drill: `typeof(cast(null as int)) = 'INT'`); only an untyped null is
 * `NULL`. `drill_typeof` of a VARIANT names each row's own type, like Drill's UNION.
 */
case class DrillTypeOf(child: Expression, function: String, notNull: Option[Boolean] = None)
    extends UnaryExpression {

  override def prettyName: String = function
  override def dataType: DataType = StringType
  override def nullable: Boolean = false

  /** Whether this call answers MODEOF (the one whose answer depends on a reader's mode). */
  def asksMode: Boolean = function == DrillTypeOf.ModeOf

  private def perRow: Boolean = function == DrillTypeOf.TypeOf && child.dataType == VariantType

  /** The column's type needs no row, so the optimizer may fold it to a literal. */
  override def foldable: Boolean = !perRow

  @transient private lazy val staticName: UTF8String = UTF8String.fromString(function match {
    case DrillTypeOf.TypeOf | DrillTypeOf.DrillTypeOfName => DrillTypeNames.minorType(child.dataType)
    case DrillTypeOf.SqlTypeOf => DrillTypeNames.sqlType(child.dataType)
    case DrillTypeOf.ModeOf =>
      DrillTypeNames.mode(child.dataType, !notNull.getOrElse(DrillTypeOf.knownNotNull(child)))
  })

  override def eval(input: InternalRow): Any =
    if (perRow) DrillTypeNames.variantTypeName(child.eval(input).asInstanceOf[VariantVal])
    else staticName

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    if (perRow) {
      val c = child.genCode(ctx)
      ev.copy(code = code"""
        ${c.code}
        UTF8String ${ev.value} = ${DrillTypeNames.getClass.getName.stripSuffix("$")}.variantTypeName(
          ${c.isNull} ? null : ${c.value});""", isNull = FalseLiteral)
    } else {
      val name = ctx.addReferenceObj("typeName", staticName, "UTF8String")
      ev.copy(code = code"UTF8String ${ev.value} = $name;", isNull = FalseLiteral)
    }

  override protected def withNewChildInternal(newChild: Expression): DrillTypeOf = copy(child = newChild)
}

object DrillTypeOf {
  /**
   * The expression whose nullability is the data mode: a CAST keeps its input's mode in Drill
   * (`modeof(cast(1 as decimal(5,2)))` and `modeof(date '2024-01-01')` are NOT NULL), where
   * Spark marks a cast that could fail as nullable.
   */
  @scala.annotation.tailrec
  def modeSource(e: Expression): Expression = e match {
    case c: org.apache.spark.sql.catalyst.expressions.Cast => modeSource(c.child)
    case other => other
  }

  /**
   * Whether `e`'s values are never null as Drill's readers see them: Spark proves it (a
   * literal, a struct), or the column is REQUIRED in its files, which a reader that knows says
   * with `drill.required` metadata (Spark reads every file column as nullable).
   */
  def knownNotNull(e: Expression, required: ExprId => Boolean = _ => false): Boolean =
    modeSource(e) match {
      case a: Attribute =>
        !a.nullable || required(a.exprId) ||
          (a.metadata.contains(RequiredKey) && a.metadata.getBoolean(RequiredKey))
      // an operator that is NULL only for a NULL input keeps its inputs' mode (Drill 1.22:
      // modeof(r_regionkey + 1) of a REQUIRED column is NOT NULL)
      case other if other.nullable && other.nullIntolerant && other.children.nonEmpty =>
        other.children.forall(knownNotNull(_, required))
      // Spark's make_time is NULL only for a NULL input too, but does not say so (it stands for a
      // static call): the CAST of text to a TIME makes its value with it
      case m: org.apache.spark.sql.catalyst.expressions.MakeTime => m.children.forall(knownNotNull(_, required))
      // a branch that raises an error returns no NULL (a cast that refuses bad text)
      case _: RaiseError => true
      case c: CaseWhen if c.nullable =>
        c.elseValue.exists(knownNotNull(_, required)) && c.branches.forall(b => knownNotNull(b._2, required))
      case i: If if i.nullable => knownNotNull(i.trueValue, required) && knownNotNull(i.falseValue, required)
      case c: Coalesce if c.nullable => c.children.exists(knownNotNull(_, required))
      case other => !other.nullable
    }

  /** The metadata key a reader sets on a column REQUIRED in all its files. */
  val RequiredKey = "drill.required"

  val TypeOf = "drill_typeof"
  val DrillTypeOfName = "drill_drilltypeof"
  val SqlTypeOf = "drill_sqltypeof"
  val ModeOf = "drill_modeof"

  private def describe(name: String, usage: String, example: String): DrillFunctions.Description =
    DrillFunctions.describe(name, classOf[DrillTypeOf].getName, usage,
      examples = s"""
    Examples:
      $example
  """) { args =>
      DrillFunctions.arity(name, args, 1)
      DrillTypeOf(args.head, name)
    }

  val descriptions: Seq[DrillFunctions.Description] = Seq(
    describe(TypeOf,
      "_FUNC_(expr) - Drill's TYPEOF: the Drill minor type name of `expr` (BIGINT, FLOAT8, " +
        "VARCHAR, BIT, MAP, ...; an array's element type; NULL for an untyped null), even when " +
        "the value is null. For a VARIANT, each row's own type.",
      "> SELECT _FUNC_(CAST(NULL AS INT));\n       INT"),
    describe(DrillTypeOfName,
      "_FUNC_(expr) - Drill's DRILLTYPEOF: like drill_typeof, but a VARIANT column reports UNION.",
      "> SELECT _FUNC_(1L);\n       BIGINT"),
    describe(SqlTypeOf,
      "_FUNC_(expr) - Drill's SQLTYPEOF: the SQL type name of `expr` (INTEGER, BIGINT, " +
        "CHARACTER VARYING, DOUBLE, BOOLEAN, DECIMAL(p, s), ARRAY, STRUCT, ...).",
      "> SELECT _FUNC_('a');\n       CHARACTER VARYING"),
    describe(ModeOf,
      "_FUNC_(expr) - Drill's MODEOF: the data mode of `expr`: NOT NULL, NULLABLE or ARRAY " +
        "(a struct, Drill's map, is NOT NULL).",
      "> SELECT _FUNC_(array(1));\n       ARRAY"))
}
