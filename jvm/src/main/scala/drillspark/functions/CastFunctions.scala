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
 * A field of the date or time Drill's CAST reads in a text (`drill_date_part`,
 * `drill_timestamp_part`, `drill_time_part`): an INT, or NULL when the text is not of its
 * form (and for NULL). The SQL layer's CASTs of text to DATE, TIMESTAMP and TIME make their
 * value of the fields; they were regexes, one to check and one a field, on every row of a CSV
 * scan. NULL only for a NULL text where a row's CAST reads it (a text not of the form fails
 * that row instead), so a CAST keeps its input's mode.
 */
abstract class DrillTextPart extends UnaryExpression with TextArgument {
  // members, not constructor parameters: Java serialization needs this class's no-argument
  // constructor (the case classes below are what is serialized)
  protected def reader: PartReader
  def field: Int
  override def prettyName: String = reader.Name
  override def dataType: DataType = IntegerType
  override def nullable: Boolean = true
  override def nullIntolerant: Boolean = true
  override def sql: String = s"$prettyName(${child.sql}, $field)"

  override protected def nullSafeEval(input: Any): Any = {
    val v = reader.partOf(input.asInstanceOf[UTF8String], field)
    if (v < 0) null else v
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val owner = reader.getClass.getName.stripSuffix("$")
    // partOf is the object's static forwarder: no case class has a member of that name
    nullSafeCodeGen(ctx, ev, c => s"${ev.value} = $owner.partOf($c, $field);\n${ev.isNull} = ${ev.value} < 0;")
  }
}

/** One text form's fields: its function's name, how many fields it has and the reading of field `k`. */
abstract class PartReader(val Name: String, val fields: Int) {
  /** Field `k` (from 1) of the text `s`, or -1 when `s` is not of the form. */
  def partOf(s: UTF8String, k: Int): Int

  /** The function's builder: the text, then a constant field number. */
  protected def build(args: Seq[Expression])(make: (Expression, Int) => Expression): Expression = {
    DrillFunctions.arity(Name, args, 2)
    val k = args(1)
    (if (k.foldable && k.dataType == IntegerType) k.eval() else null) match {
      case f: Integer if f >= 1 && f <= fields => make(args.head, f)
      case _ => throw DrillSparkErrors.nonFoldableArgument(Name, s"k (1 to $fields)", IntegerType)
    }
  }
}

/**
 * `drill_date_part(s, k)`: the year (`k` 1), month (2) or day (3) of the date `s` starts
 * with, as Drill's CAST of text to a DATE reads it (`2023-5-6`, `2023/05/06`, `900.2.3`,
 * `02023-005-06`: each field every digit it has, up to nine, with a `-`, `/` or `.` between
 * them; whatever follows the day's digits, a time of day, is not read: `2023-05-061` is day 61,
 * which Drill refuses too). The SQL layer makes the DATE of the three (a year below 100
 * pivoted, an impossible date refused by Spark's `make_date`).
 */
case class DrillDatePart(child: Expression, field: Int) extends DrillTextPart {
  override protected def reader: PartReader = DrillDatePart
  override protected def withNewChildInternal(newChild: Expression): DrillDatePart = copy(child = newChild)
}

object DrillDatePart extends PartReader("drill_date_part", 3) {
  def partOf(s: UTF8String, k: Int): Int =
    DateTimeText.date(s, k, yearDigits = DateTimeText.MostDigits, digits = DateTimeText.MostDigits, separators = "-/.")

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
    group = "datetime_funcs") { args => build(args)(DrillDatePart(_, _)) }
}

/**
 * `drill_timestamp_part(s, k)`: the year (`k` 1), month (2), day (3), hour (4), minute (5),
 * second (6) or millisecond (7) of the text `s` as Drill's CAST of text to a TIMESTAMP reads
 * it: `y-m-d`, then optionally one space and `h:m:s`, then optionally a `.` and up to nine
 * digits of a second, cut to milliseconds; each field one to nine digits (Drill 1.22 reads
 * `2024-001-01 001:2:3`), nothing else (a second space, a `/`, ISO's `T`, a zone or a line
 * break are refused). The time's fields are 0 when it has none.
 */
case class DrillTimestampPart(child: Expression, field: Int) extends DrillTextPart {
  override protected def reader: PartReader = DrillTimestampPart
  override protected def withNewChildInternal(newChild: Expression): DrillTimestampPart = copy(child = newChild)
}

object DrillTimestampPart extends PartReader("drill_timestamp_part", 7) {
  def partOf(s: UTF8String, k: Int): Int = {
    def date(k: Int): Int = DateTimeText.date(s, k, yearDigits = DateTimeText.MostDigits,
      digits = DateTimeText.MostDigits, separators = "-")
    val day = date(0)
    if (day < 0) return -1
    // the time read for its field, or only checked when a date field is asked
    val time =
      if (day == s.numBytes) 0
      else if (DateTimeText.is(s, day, ' ')) DrillTimePart.partOf(s, day + 1, math.max(k - 3, 1))
      else -1
    if (time < 0) -1 else if (k <= 3) date(k) else time
  }

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillTimestampPart].getName,
    usage = "_FUNC_(s, k) - The year (k = 1), month (2), day (3), hour (4), minute (5), second (6) " +
      "or millisecond (7) of the text `s` as Drill's CAST to a TIMESTAMP reads it (`y-m-d[ h:m:s[.f]]`), " +
      "or NULL when it is not of that form.",
    examples = """
    Examples:
      > SELECT _FUNC_('2023-5-6 7:8:9.1239', 7);
       123
      > SELECT _FUNC_('2023-05-06T07:08:09', 4);
       NULL
  """,
    group = "datetime_funcs") { args => build(args)(DrillTimestampPart(_, _)) }
}

/**
 * `drill_time_part(s, k)`: the hour (`k` 1), minute (2), second (3) or millisecond (4) of the
 * text `s` as Drill's CAST of text to a TIME reads it: `h:m:s`, then optionally a `.` and up
 * to nine digits of a second, cut to milliseconds; each field one to nine digits, nothing
 * else.
 */
case class DrillTimePart(child: Expression, field: Int) extends DrillTextPart {
  override protected def reader: PartReader = DrillTimePart
  override protected def withNewChildInternal(newChild: Expression): DrillTimePart = copy(child = newChild)
}

object DrillTimePart extends PartReader("drill_time_part", 4) {
  def partOf(s: UTF8String, k: Int): Int = partOf(s, 0, k)

  /** Field `k` of the time from `from` to the text's end, or -1 when that is not one. */
  def partOf(s: UTF8String, from: Int, k: Int): Int = {
    val most = DateTimeText.MostDigits
    val hour = DateTimeText.run(s, from, most)
    if (hour < 0 || !DateTimeText.is(s, hour, ':')) return -1
    val minute = DateTimeText.run(s, hour + 1, most)
    if (minute < 0 || !DateTimeText.is(s, minute, ':')) return -1
    val second = DateTimeText.run(s, minute + 1, most)
    if (second < 0) return -1
    val end = if (DateTimeText.is(s, second, '.')) TextRule.digits(s, second + 1, most) else second
    if (end != s.numBytes) return -1
    k match {
      case 1 => DateTimeText.value(s, from, hour)
      case 2 => DateTimeText.value(s, hour + 1, minute)
      case 3 => DateTimeText.value(s, minute + 1, second)
      case _ => DateTimeText.millis(s, second + 1, end)
    }
  }

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillTimePart].getName,
    usage = "_FUNC_(s, k) - The hour (k = 1), minute (2), second (3) or millisecond (4) of the text " +
      "`s` as Drill's CAST to a TIME reads it (`h:m:s[.f]`), or NULL when it is not of that form.",
    examples = """
    Examples:
      > SELECT _FUNC_('7:8:9.5', 4);
       500
      > SELECT _FUNC_('10:20', 1);
       NULL
  """,
    group = "datetime_funcs") { args => build(args)(DrillTimePart(_, _)) }
}

/** The digit runs of Drill's date and time texts. */
private[functions] object DateTimeText {
  /** A DATE's, TIMESTAMP's or TIME's field's digits at most: nine make an INT, and a tenth is where a
   * separator or the text's end must be, so a longer run is not of the form. */
  val MostDigits = 9

  /** The end of the run of one to `most` digits at `from`, or -1 when there is no digit. */
  def run(s: UTF8String, from: Int, most: Int): Int = {
    val end = TextRule.digits(s, from, most)
    if (end == from) -1 else end
  }

  /** Field `k` (1 year, 2 month, 3 day) of the date the text starts with, or with `k` 0 the
   * place after its day; -1 when it starts with none: a year of up to `yearDigits` digits, a
   * month and a day of up to `digits`, each of the first two followed by one of `separators`. */
  def date(s: UTF8String, k: Int, yearDigits: Int, digits: Int, separators: String): Int = {
    def separator(i: Int): Boolean = i < s.numBytes && separators.indexOf(s.getByte(i).toInt) >= 0
    val year = run(s, 0, yearDigits)
    if (year < 0 || !separator(year)) return -1
    val month = run(s, year + 1, digits)
    if (month < 0 || !separator(month)) return -1
    val day = run(s, month + 1, digits)
    // a day of more digits than `digits` is none (the year and month end at their separators)
    if (day < 0 || (day < s.numBytes && s.getByte(day) >= '0' && s.getByte(day) <= '9')) return -1
    k match {
      case 0 => day
      case 1 => value(s, 0, year)
      case 2 => value(s, year + 1, month)
      case _ => value(s, month + 1, day)
    }
  }

  def is(s: UTF8String, i: Int, b: Char): Boolean = i < s.numBytes && s.getByte(i) == b

  /** The number the digits in [from, to) write. */
  def value(s: UTF8String, from: Int, to: Int): Int = {
    var v = 0
    var i = from
    while (i < to) { v = v * 10 + (s.getByte(i) - '0'); i += 1 }
    v
  }

  /** The milliseconds of a second's fraction, the digits in [from, to): its first three, cut. */
  def millis(s: UTF8String, from: Int, to: Int): Int = {
    var v = 0
    var i = from
    while (i < from + 3) { v = v * 10 + (if (i < to) s.getByte(i) - '0' else 0); i += 1 }
    v
  }
}
