package drillspark.functions

import scala.util.Random

import org.apache.spark.unsafe.types.UTF8String

import drillspark.testkit.{Checks, Suite}

/** `drill_integer_text`, `drill_decimal_text`, `drill_date_part`, `drill_timestamp_part` and
 * `drill_time_part` against the rules they state, written as regexes (anchored at the text's
 * very end, `\z`: the `$` of those they replaced also matched before a final line break; the
 * parts are the regexes' groups): random texts of digits, signs, points, exponents,
 * separators, spaces, line breaks and non-ASCII digits. */
object CastTextSuite extends Suite {
  val name = "cast-text"

  def run(c: Checks): Unit = {
    val rule = "-?[0-9]+\\z".r.pattern
    val random = new Random(12)
    val pieces = Seq("0", "7", "42", "-", "+", " ", "\n", "\r", ".", "5", "e", "\u0663", "\u00e9", "\t")
    for (_ <- 0 until 5000) {
      val text = Seq.fill(random.nextInt(5))(pieces(random.nextInt(pieces.size))).mkString
      val want = rule.matcher(text).matches()
      c.equal(DrillIntegerText.test(UTF8String.fromString(text)), want, s"'$text'")
    }
    for (yes <- Seq("0", "-0", "0012", "-9223372036854775808", "99999999999999999999"))
      c.check(DrillIntegerText.test(UTF8String.fromString(yes)), s"'$yes' reads")
    for (no <- Seq("", "-", "--1", "+1", " 1", "1 ", "1\n", "1.0", "\u0663"))
      c.check(!DrillIntegerText.test(UTF8String.fromString(no)), s"'$no' is refused")

    val decimal = "[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?\\z".r.pattern
    val parts = Seq("0", "12", "-", "+", ".", "e", "E", " ", "\n", "5", "x", "\u0663", "e-", "E+")
    for (_ <- 0 until 20000) {
      val text = Seq.fill(random.nextInt(6))(parts(random.nextInt(parts.size))).mkString
      c.equal(DrillDecimalText.test(UTF8String.fromString(text)), decimal.matcher(text).matches(), s"decimal '$text'")
    }
    for (yes <- Seq("1", "-1.5", "+.5", "5.", "1e3", "1.5E-3", "0012.50"))
      c.check(DrillDecimalText.test(UTF8String.fromString(yes)), s"decimal '$yes' reads")
    for (no <- Seq("", ".", "-", "+.", "e3", "1e", "1e+", " 1.5", "1.5 ", "1.5\n", "1..5", "1.5.", "\u0663"))
      c.check(!DrillDecimalText.test(UTF8String.fromString(no)), s"decimal '$no' is refused")

    // each field every digit it has (up to nine), as Drill 1.22 reads them
    val date = "^([0-9]{1,9})[-/.]([0-9]{1,9})[-/.]([0-9]{1,9})(?![0-9])".r.pattern
    val bits = Seq("2023", "5", "06", "0097", "12345", "-", "/", ".", " ", ":", "x", "\u0663", "1", "")
    for (_ <- 0 until 20000) {
      val text = Seq.fill(random.nextInt(7))(bits(random.nextInt(bits.size))).mkString
      val m = date.matcher(text)
      val want = if (m.find()) Some(Seq(m.group(1).toInt, m.group(2).toInt, m.group(3).toInt)) else None
      val parts = (1 to 3).map(DrillDatePart.partOf(UTF8String.fromString(text), _))
      c.equal(if (parts.contains(-1)) None else Some(parts), want, s"date parts of '$text'")
    }
    c.equal((1 to 3).map(DrillDatePart.partOf(UTF8String.fromString("2023-05-067 1:2:3"), _)), Seq(2023, 5, 67),
      "every digit of the day, the rest not read")
    c.equal(DrillDatePart.partOf(UTF8String.fromString("2023-05-1234567890"), 3), -1, "a field of ten digits")

    // Drill 1.22's TIMESTAMP and TIME texts: fields of one to nine digits, one space, a fraction
    // of up to nine digits cut to milliseconds
    val time = "([0-9]{1,9}):([0-9]{1,9}):([0-9]{1,9})(?:[.]([0-9]{0,9}))?"
    val timestamp = s"([0-9]{1,9})-([0-9]{1,9})-([0-9]{1,9})(?: $time)?\\z".r.pattern
    val clock = s"$time\\z".r.pattern
    def millis(f: String): Int = if (f == null) 0 else (f + "000").take(3).toInt
    def group(m: java.util.regex.Matcher, i: Int): Int = Option(m.group(i)).map(_.toInt).getOrElse(0)
    val timeBits = Seq("2024", "1", "07", "123456", "0000000001", "-", ":", ".", " ", "  ", "\n", "T", "/", "\u0663", "")
    for (_ <- 0 until 30000) {
      val text = Seq.fill(random.nextInt(12))(timeBits(random.nextInt(timeBits.size))).mkString
      val utf8 = UTF8String.fromString(text)
      val m = timestamp.matcher(text)
      val want = if (m.matches()) Some((1 to 6).map(group(m, _)) :+ millis(m.group(7))) else None
      val got = (1 to 7).map(DrillTimestampPart.partOf(utf8, _))
      c.equal(if (got.contains(-1)) None else Some(got), want, s"timestamp fields of '$text'")
      val t = clock.matcher(text)
      val wantTime = if (t.matches()) Some((1 to 3).map(group(t, _)) :+ millis(t.group(4))) else None
      val gotTime = (1 to 4).map(DrillTimePart.partOf(utf8, _))
      c.equal(if (gotTime.contains(-1)) None else Some(gotTime), wantTime, s"time fields of '$text'")
    }
    c.equal((1 to 7).map(DrillTimestampPart.partOf(UTF8String.fromString("2024-001-01 001:2:3.1239999"), _)),
      Seq(2024, 1, 1, 1, 2, 3, 123), "fields of many digits, the fraction cut")
    for (no <- Seq("2024-01-01 ", "2024-01-01  1:2:3", "2024-01-01 1:2", "2024-01-01T1:2:3", "2024/01/01",
        "2024-01-01 1:2:3.1234567890", "1234567890-1-1", "2024-01-01\n"))
      c.equal(DrillTimestampPart.partOf(UTF8String.fromString(no), 1), -1, s"timestamp '$no' is refused")
    c.equal((1 to 4).map(DrillTimePart.partOf(UTF8String.fromString("1:2:3."), _)), Seq(1, 2, 3, 0),
      "a point without digits")
  }
}
