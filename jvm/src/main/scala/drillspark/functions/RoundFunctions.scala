package drillspark.functions

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{TypeCheckFailure, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.drillspark.compat.DrillSparkErrors
import org.apache.spark.sql.types._

/**
 * `drill_round(x, scale)`: Drill's ROUND of a DOUBLE (or FLOAT) to `scale` places, half away
 * from zero, from the double's exact binary value: ROUND(1.005, 2) is 1.0 (1.005 is stored as
 * 1.00499999999999989...), where Spark's round starts from the shortest decimal text (1.01).
 * NaN and infinities are returned as they are. The result is a DOUBLE, as Drill's.
 */
case class DrillRound(child: Expression, scale: Int) extends UnaryExpression {
  override def prettyName: String = DrillRound.Name
  override def dataType: DataType = DoubleType
  override def sql: String = s"${DrillRound.Name}(${child.sql}, $scale)"

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case DoubleType | FloatType => TypeCheckSuccess
    case other => TypeCheckFailure(s"${DrillRound.Name} needs a DOUBLE or FLOAT, got ${other.sql}")
  }

  override protected def nullSafeEval(input: Any): Any = input match {
    case d: Double => DrillRound.round(d, scale)
    case f: Float => DrillRound.round(f.toDouble, scale)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val owner = DrillRound.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, c => s"$owner.round((double) $c, $scale)")
  }

  override protected def withNewChildInternal(newChild: Expression): DrillRound = copy(child = newChild)
}

object DrillRound {
  val Name = "drill_round"

  def round(d: Double, scale: Int): Double =
    if (d.isNaN || d.isInfinite) d
    else new java.math.BigDecimal(d).setScale(scale, java.math.RoundingMode.HALF_UP).doubleValue()

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillRound].getName,
    usage = "_FUNC_(x, scale) - Drill's ROUND of a DOUBLE: half away from zero at `scale` " +
      "places (an INT literal), from the exact binary value of `x`; a DOUBLE.",
    examples = """
    Examples:
      > SELECT _FUNC_(1.005D, 2);
       1.0
      > SELECT _FUNC_(2.5D, 0);
       3.0
  """,
    group = "math_funcs") { args =>
    DrillFunctions.arity(Name, args, 1, 2)
    val scale = if (args.size == 1) 0 else {
      val s = args(1)
      if (!s.foldable || !Seq(ByteType, ShortType, IntegerType, LongType).contains(s.dataType)) {
        throw DrillSparkErrors.nonFoldableArgument(Name, "scale", IntegerType)
      }
      s.eval() match {
        case null => throw DrillSparkErrors.nullParameter(Name, "scale")
        case n: Number => n.intValue()
        case other => throw DrillSparkErrors.nonFoldableArgument(Name, s"scale $other", IntegerType)
      }
    }
    DrillRound(args.head, scale)
  }
}
