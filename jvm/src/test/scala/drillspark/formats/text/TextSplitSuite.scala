package drillspark.formats.text

import java.util.regex.Pattern

import scala.util.Random

import drillspark.testkit.{Checks, Suite}

/** The text reader's field split against what it replaced, `Pattern.split(line, -1)` over the
 * quoted delimiter: random lines of fields, empty ones, regex characters and delimiters of
 * one and more characters, at both ends of a line too; each line alone, and the lines of one
 * text read in order by one splitter (whose finder keeps the next delimiter it found). */
object TextSplitSuite extends Suite {
  val name = "text-split"

  private def regex(line: String, d: String): Seq[String] = Pattern.compile(Pattern.quote(d)).split(line, -1).toSeq

  def run(c: Checks): Unit = {
    val random = new Random(37)
    val delimiters = Seq(",", "\t", "|", ".", "\\", "$", "*", "||", "ab", "\u00e9", "\ud83d\ude00", "::")
    val pieces = Seq("", "a", "b", " ", "x y", "1.5", "|", "\\", "$1", "é", "\ud83d\ude00", ":", "a:b")
    for (d <- delimiters; _ <- 0 until 30) {
      val lines = Seq.fill(1 + random.nextInt(12)) {
        Seq.fill(random.nextInt(6))(pieces(random.nextInt(pieces.size)) + (if (random.nextBoolean()) d else ""))
          .mkString(if (random.nextBoolean()) d else "")
      }
      for (line <- lines) {
        val alone = new TextFormat.Splitter(d)
        alone.reset(line)
        c.equal(alone.split(0, line.length).toSeq, regex(line, d), s"'$line' split at '$d'")
      }
      val text = lines.mkString("\n")
      val splitter = new TextFormat.Splitter(d)
      splitter.reset(text)
      var start = 0
      for (line <- lines) {
        c.equal(splitter.split(start, start + line.length).toSeq, regex(line, d),
          s"'$line' split at '$d' at $start of '$text'")
        start += line.length + 1
      }
    }
    val many = new TextFormat.Splitter(",")
    val wide = Seq.tabulate(100)(_.toString).mkString(",")
    many.reset(wide)
    c.equal(many.split(0, wide.length).toSeq, regex(wide, ","), "a hundred fields (the cut list grows)")
    val empty = new TextFormat.Splitter("")
    empty.reset("abc")
    c.equal(empty.split(0, 3).toSeq, regex("abc", ""), "an empty delimiter as the regex split gave")
    val quotes = new TextFormat.Finder("\"")
    quotes.reset("a,b\nc,\"d\"\ne")
    c.equal(Seq(quotes.from(0), quotes.from(4), quotes.from(7), quotes.from(9), quotes.from(10)),
      Seq(6, 6, 8, Int.MaxValue, Int.MaxValue), "the finder: the next quote from each place, none after the last")
  }
}
