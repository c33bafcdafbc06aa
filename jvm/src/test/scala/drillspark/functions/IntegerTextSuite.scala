package drillspark.functions

import scala.util.Random

import org.apache.spark.unsafe.types.UTF8String

import drillspark.testkit.{Checks, Suite}

/** `drill_integer_text` against the rule it states, written as a regex anchored at the text's
 * very end (`\z`: the `$` it replaced also matched before a final line break): random texts
 * of digits, signs, spaces, line breaks, fractions and non-ASCII digits. */
object IntegerTextSuite extends Suite {
  val name = "integer-text"

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
  }
}
