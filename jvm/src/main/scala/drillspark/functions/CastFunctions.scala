package drillspark.functions

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{TypeCheckFailure, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.drillspark.compat.DrillSparkErrors
import org.apache.spark.sql.types.{BooleanType, DataType, IntegerType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Whether Drill's CAST reads a text as a number of a kind: the SQL layer's CAST of text asks
 * before Spark's cast, which is looser (it trims spaces, reads `+5` as an integer and `1.5`
 * as one too), and fails the row with Drill's message when the answer is false. A byte loop
 * in generated code: a scan of CSV text casts every row, and the regex these replaced cost an
 * eighth of such a scan (docs/performance.md); its `$` also let a final line break through
 * (Drill 1.22 fails `CAST('12\n' AS INT)`). NULL for NULL.
 */
abstract class DrillTextCheck extends UnaryExpression with TextArgument {
  // a member, not a constructor parameter: Java serialization needs this class's no-argument
  // constructor (the case classes below are what is serialized)
  protected def rule: TextRule
  override def prettyName: String = rule.Name
  override def dataType: DataType = BooleanType

  override protected def nullSafeEval(input: Any): Any = rule.test(input.asInstanceOf[UTF8String])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val owner = rule.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, c => s"$owner.test($c)")
  }
}

/** The text functions' one argument is text. */
trait TextArgument extends UnaryExpression {
  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case _: StringType => TypeCheckSuccess
    case other => TypeCheckFailure(s"$prettyName needs text, got ${other.sql}")
  }
}

/** A text rule: its function's name and its test. */
trait TextRule {
  val Name: String
  def test(s: UTF8String): Boolean

  protected final def digits(s: UTF8String, from: Int): Int = TextRule.digits(s, from)
}

object TextRule {
  /** The end of the run of ASCII digits at `from` (at most `most` of them). */
  def digits(s: UTF8String, from: Int, most: Int = Int.MaxValue): Int = {
    var i = from
    while (i < s.numBytes && i - from < most && s.getByte(i) >= '0' && s.getByte(i) <= '9') i += 1
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

/**
 * `drill_date_part(s, k)`: the year (`k` 1), month (2) or day (3) of the date `s` starts
 * with, as Drill's CAST of text to a DATE reads it (`2023-5-6`, `2023/05/06`, `900.2.3`: one
 * to four digits, a `-`, `/` or `.`, one or two digits, a separator again, one or two digits;
 * whatever follows, a time of day, is not read), or NULL when it does not start with one (and
 * for NULL). The SQL layer's CAST of text to a DATE makes its date of the three (a year below
 * 100 pivoted, an impossible date refused by Spark's `make_date`); they were three regexes and
 * a fourth to check, on every row of a CSV scan. NULL only for a NULL text where a row's CAST
 * reads it (a text with no date fails that row instead), so a CAST keeps its input's mode.
 */
case class DrillDatePart(child: Expression, part: Int) extends UnaryExpression with TextArgument {
  override def prettyName: String = DrillDatePart.Name
  override def dataType: DataType = IntegerType
  override def nullable: Boolean = true
  override def nullIntolerant: Boolean = true
  override def sql: String = s"${DrillDatePart.Name}(${child.sql}, $part)"

  override protected def nullSafeEval(input: Any): Any = {
    val v = DrillDatePart.partOf(input.asInstanceOf[UTF8String], part)
    if (v < 0) null else v
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val owner = DrillDatePart.getClass.getName.stripSuffix("$")
    // partOf, not part: a static forwarder named as the case class's field is not made
    nullSafeCodeGen(ctx, ev, c => s"${ev.value} = $owner.partOf($c, $part);\n${ev.isNull} = ${ev.value} < 0;")
  }

  override protected def withNewChildInternal(newChild: Expression): DrillDatePart = copy(child = newChild)
}

object DrillDatePart {
  val Name = "drill_date_part"

  /** Part `k` (1 year, 2 month, 3 day) of the date `s` starts with, or -1 when it starts with none. */
  def partOf(s: UTF8String, k: Int): Int = {
    def separator(i: Int): Boolean = i < s.numBytes && { val b = s.getByte(i); b == '-' || b == '/' || b == '.' }
    def run(from: Int, most: Int): Int = TextRule.digits(s, from, most)
    def number(from: Int, to: Int): Int = {
      var v = 0
      var i = from
      while (i < to) { v = v * 10 + (s.getByte(i) - '0'); i += 1 }
      v
    }
    val year = run(0, 4)
    if (year == 0 || !separator(year)) return -1
    val month = run(year + 1, 2)
    if (month == year + 1 || !separator(month)) return -1
    val day = run(month + 1, 2)
    if (day == month + 1) return -1
    k match {
      case 1 => number(0, year)
      case 2 => number(year + 1, month)
      case _ => number(month + 1, day)
    }
  }

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillDatePart].getName,
    usage = "_FUNC_(s, k) - The year (k = 1), month (2) or day (3) of the date Drill's CAST " +
      "reads at the start of the text `s` (`y-m-d`, `y/m/d` or `y.m.d`), or NULL when it starts with none.",
    examples = """
    Examples:
      > SELECT _FUNC_('2023/5/6 10:20', 2);
       5
      > SELECT _FUNC_('May 6', 1);
       NULL
  """,
    group = "datetime_funcs") { args =>
    DrillFunctions.arity(Name, args, 2)
    val k = args(1)
    val part = if (k.foldable && k.dataType == IntegerType) k.eval() else null
    part match {
      case p: Integer if p >= 1 && p <= 3 => DrillDatePart(args.head, p)
      case _ => throw DrillSparkErrors.nonFoldableArgument(Name, "k (1, 2 or 3)", IntegerType)
    }
  }
}
