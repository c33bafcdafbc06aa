package drillspark.functions

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{TypeCheckFailure, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Whether Drill's CAST reads a text as a number of a kind: the SQL layer's CAST of text asks
 * before Spark's cast, which is looser (it trims spaces, reads `+5` as an integer and `1.5`
 * as one too), and fails the row with Drill's message when the answer is false. A byte loop
 * in generated code: a scan of CSV text casts every row, and the regex these replaced cost an
 * eighth of such a scan (docs/performance.md); its `$` also let a final line break through
 * (Drill 1.22 fails `CAST('12\n' AS INT)`). NULL for NULL.
 */
abstract class DrillTextCheck extends UnaryExpression {
  // a member, not a constructor parameter: Java serialization needs this class's no-argument
  // constructor (the case classes below are what is serialized)
  protected def rule: TextRule
  override def prettyName: String = rule.Name
  override def dataType: DataType = BooleanType

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case _: StringType => TypeCheckSuccess
    case other => TypeCheckFailure(s"${rule.Name} needs text, got ${other.sql}")
  }

  override protected def nullSafeEval(input: Any): Any = rule.test(input.asInstanceOf[UTF8String])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val owner = rule.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, c => s"$owner.test($c)")
  }
}

/** A text rule: its function's name and its test. */
trait TextRule {
  val Name: String
  def test(s: UTF8String): Boolean

  /** The first place at or after `i` that is not an ASCII digit. */
  protected final def digits(s: UTF8String, i0: Int): Int = {
    var i = i0
    while (i < s.numBytes && s.getByte(i) >= '0' && s.getByte(i) <= '9') i += 1
    i
  }
}

/** `drill_integer_text(s)`: an optional `-`, then ASCII digits and nothing else (no spaces,
 * `+`, fraction or line break). */
case class DrillIntegerText(child: Expression) extends DrillTextCheck {
  override protected def rule: TextRule = DrillIntegerText
  override protected def withNewChildInternal(newChild: Expression): DrillIntegerText = copy(child = newChild)
}

object DrillIntegerText extends TextRule {
  val Name = "drill_integer_text"

  def test(s: UTF8String): Boolean = {
    val n = s.numBytes
    val i = if (n > 0 && s.getByte(0) == '-') 1 else 0
    i < n && digits(s, i) == n
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

/** `drill_decimal_text(s)`: a plain number as Drill's BigDecimal reads it: an optional sign,
 * digits with an optional `.` (a digit on at least one side), an optional exponent (`e`, an
 * optional sign, digits), nothing else (no spaces or line break). */
case class DrillDecimalText(child: Expression) extends DrillTextCheck {
  override protected def rule: TextRule = DrillDecimalText
  override protected def withNewChildInternal(newChild: Expression): DrillDecimalText = copy(child = newChild)
}

object DrillDecimalText extends TextRule {
  val Name = "drill_decimal_text"

  def test(s: UTF8String): Boolean = {
    val n = s.numBytes
    var i = if (n > 0 && (s.getByte(0) == '-' || s.getByte(0) == '+')) 1 else 0
    val whole = digits(s, i)
    var any = whole > i
    i = whole
    if (i < n && s.getByte(i) == '.') {
      val fraction = digits(s, i + 1)
      any ||= fraction > i + 1
      i = fraction
    }
    if (!any) return false
    if (i < n && (s.getByte(i) == 'e' || s.getByte(i) == 'E')) {
      i += 1
      if (i < n && (s.getByte(i) == '-' || s.getByte(i) == '+')) i += 1
      val exponent = digits(s, i)
      if (exponent == i) return false
      i = exponent
    }
    i == n
  }

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillDecimalText].getName,
    usage = "_FUNC_(s) - Whether Drill's CAST reads the text `s` as a DECIMAL: an optional " +
      "sign, digits with an optional point, an optional exponent, nothing else; NULL for NULL.",
    examples = """
    Examples:
      > SELECT _FUNC_('-1.5e3');
       true
      > SELECT _FUNC_('1.5 ');
       false
  """,
    group = "string_funcs") { args =>
    DrillFunctions.arity(Name, args, 1)
    DrillDecimalText(args.head)
  }
}
