package drillspark.formats.text

import java.nio.charset.StandardCharsets
import java.util.regex.Pattern

import scala.util.Random

import org.apache.spark.unsafe.types.UTF8String

import drillspark.testkit.{Checks, Suite}

/** The text reader's field split against what it replaced, `Pattern.split(line, -1)` over the
 * quoted delimiter: random lines of fields, empty ones, regex characters and delimiters of
 * one and more characters, at both ends of a line too; each line alone, and the lines of one
 * text read in order by one splitter (whose finder keeps the next delimiter it found). */
object TextSplitSuite extends Suite {
  val name = "text-split"

  private def regex(line: String, d: String): Seq[String] = Pattern.compile(Pattern.quote(d)).split(line, -1).toSeq

  private def texts(fields: Array[UTF8String]): Seq[String] = fields.toSeq.map(_.toString)

  /** A quoted field's text, its end and whether it closed, a character at a time by the rule
   * [[TextFormat.Quoted]] states. */
  private def readByCharacter(text: String, open: Int, q: String, esc: String, d: String): (String, Int, Boolean) = {
    val buf = new StringBuilder
    def ends(at: Int) = at >= text.length || text.startsWith(d, at) || text.startsWith("\n", at)
    // past the blanks after a quote: spaces and control characters but a line feed, the delimiter not one
    def blanksEnd(at: Int): Int =
      if (at < text.length && !text.startsWith(d, at) && text.charAt(at) <= ' ' && text.charAt(at) != '\n') blanksEnd(at + 1) else at
    var i = open
    var closed = false
    while (!closed && i < text.length) {
      if (esc != q && text.startsWith(esc + q, i)) { buf.append(q); i += esc.length + q.length }
      else if (text.startsWith(q, i)) {
        if (esc == q && text.startsWith(q, i + q.length)) { buf.append(q); i += 2 * q.length }
        else if (ends(blanksEnd(i + q.length))) { i = blanksEnd(i + q.length); closed = true }
        else { buf.append(q); i += q.length }
      } else { buf.append(text.charAt(i)); i += 1 }
    }
    (buf.toString, i, closed)
  }

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
        c.equal(texts(alone.split(0, line.length)), regex(line, d), s"'$line' split at '$d'")
        if (line.forall(_ < 0x80)) { // an ASCII line's fields as views of its bytes: the same values
          alone.reset(line, line.getBytes(StandardCharsets.UTF_8))
          c.equal(texts(alone.split(0, line.length)), regex(line, d), s"'$line' split at '$d' from its bytes")
        }
      }
      val text = lines.mkString("\n")
      val splitter = new TextFormat.Splitter(d)
      splitter.reset(text)
      var start = 0
      for (line <- lines) {
        c.equal(texts(splitter.split(start, start + line.length)), regex(line, d),
          s"'$line' split at '$d' at $start of '$text'")
        start += line.length + 1
      }
    }
    val many = new TextFormat.Splitter(",")
    val wide = Seq.tabulate(100)(_.toString).mkString(",")
    many.reset(wide)
    c.equal(texts(many.split(0, wide.length)), regex(wide, ","), "a hundred fields (the cut list grows)")
    val empty = new TextFormat.Splitter("")
    empty.reset("abc")
    c.equal(texts(empty.split(0, 3)), regex("abc", ""), "an empty delimiter as the regex split gave")
    for (n <- 0 until 40; at <- 0 until n) { // ASCII or not, at every place of a word and the tail
      val bytes = Array.tabulate[Byte](n)(k => ('a' + k % 26).toByte)
      c.check(TextFormat.isAscii(bytes), s"$n ASCII bytes")
      for (b <- Seq(0x80, 0xc3, 0xff)) {
        bytes(at) = b.toByte
        c.check(!TextFormat.isAscii(bytes), s"byte $b at $at of $n")
      }
    }
    // well-formed UTF-8 as the strict decoder takes it: random runs of valid characters and
    // random bytes, and each boundary of Unicode's table 3-7
    def decodes(bytes: Array[Byte]): Boolean =
      try { StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)); true }
      catch { case _: java.nio.charset.CharacterCodingException => false }
    val characters = Seq("a", "\u00e9", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff", "\ud800\udc00", "\udbff\udfff", "0123456789")
    for (_ <- 0 until 4000) {
      val bytes = Seq.fill(random.nextInt(12))(characters(random.nextInt(characters.size))).mkString
        .getBytes(StandardCharsets.UTF_8)
      c.check(TextFormat.isUtf8(bytes), s"valid UTF-8 ${bytes.map(b => f"${b & 0xff}%02X").mkString(" ")}")
      if (bytes.nonEmpty) {
        bytes(random.nextInt(bytes.length)) = random.nextInt(256).toByte
        c.equal(TextFormat.isUtf8(bytes), decodes(bytes), s"as the decoder: ${bytes.map(b => f"${b & 0xff}%02X").mkString(" ")}")
      }
    }
    for (a <- 0xc0 to 0xf7; b <- Seq(0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0)) {
      val bytes = Array(a, b, 0x80, 0x80).map(_.toByte)
      for (k <- 2 to 4) c.equal(TextFormat.isUtf8(bytes.take(k)), decodes(bytes.take(k)), f"$a%02X $b%02X, $k bytes")
    }
    // UTF-8 split byte by byte (a bytewise config) gives the records of the decoded text: quoted
    // fields as they stand and read a character at a time, a line delimiter of two characters
    for ((q, esc, d, lines) <- Seq(("\"", "\"", ",", "\n"), ("\"", "\\", "|", "\r\n"), ("'", "'", "\t", "\n")); _ <- 0 until 1500) {
      val bits = Seq(q, esc, d, lines, "a", "\u00e9", "\u4e2d", "\ud83d\ude00", q + "x\u00e9" + q)
      val text = Seq.fill(random.nextInt(10))(bits(random.nextInt(bits.size))).mkString
      val config = TextConfig(d, q, esc, "#", lines, header = false, skipFirstLine = false)
      c.check(config.bytewise, "an ASCII config splits byte by byte")
      val bytes = text.getBytes(StandardCharsets.UTF_8)
      val decoded = TextFormat.records(text, config).map(texts).toList
      val bytewise = TextFormat.records(new String(bytes, StandardCharsets.ISO_8859_1), config, bytes = bytes)
        .map(texts).toList
      c.equal(bytewise, decoded, s"'$text' (quote $q, escape $esc, delimiter $d) byte by byte")
    }
    c.check(!TextConfig("\u00a6", "\"", "\"", "#", "\n", header = false, skipFirstLine = false).bytewise,
      "a delimiter past ASCII is found in decoded text only")
    // a quoted field read as it stands, where that is allowed, equals the field read a
    // character at a time: random texts of quotes, escapes, delimiters, blanks and line breaks
    var plain = 0
    for ((q, esc, d) <- Seq(("\"", "\"", ","), ("\"", "\\", ","), ("'", "'", "||"), ("\"", "\\", "\t")); _ <- 0 until 4000) {
      val bits = Seq(q, q, esc, d, "\n", "a", "b c", "\u00e9", " ", "\r", "\u0001")
      val text = Seq.fill(random.nextInt(8))(bits(random.nextInt(bits.size))).mkString
      val quoted = new TextFormat.Quoted(q, esc, d)
      val close = quoted.plainEnd(text, 0)
      val next = quoted.next
      val buf = new TextFormat.Unquoted
      buf.reset(text)
      val after = quoted.read(text, 0, buf)
      if (close >= 0) {
        plain += 1
        c.equal((text.substring(0, close), next, quoted.closed), (buf.toString, after, true),
          s"the quoted field '$text' (quote $q, escape $esc) as it stands")
      }
    }
    c.check(plain > 1000, s"plain quoted fields were read ($plain)")
    // a quoted field read in runs equals the field read a character at a time by the rule
    // itself: random texts of quotes, escapes, delimiters, line breaks and runs of text
    for ((q, esc, d) <- Seq(("\"", "\"", ","), ("\"", "\\", ","), ("'", "'", "||"), ("\"", "\\", "\t"), ("\"", "", ",")); _ <- 0 until 4000) {
      val bits = Seq(q, q, esc, d, "\n", "a", "b c", "\u00e9", "xyz xyz xyz", " ", "\r", "\u0001")
      val text = Seq.fill(random.nextInt(10))(bits(random.nextInt(bits.size))).mkString
      val open = if (text.isEmpty) 0 else random.nextInt(text.length + 1)
      val quoted = new TextFormat.Quoted(q, esc, d)
      val expected = readByCharacter(text, open, q, esc, d)
      val buf = new TextFormat.Unquoted
      buf.reset(text)
      val after = quoted.read(text, open, buf)
      c.equal((buf.toString, after, quoted.closed), expected,
        s"the quoted field at $open of '$text' (quote $q, escape $esc, delimiter $d) in runs")
      // from the text's bytes (its twin: one a character) the field's bytes are its text's
      val latin = new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1)
      val twin = latin.getBytes(StandardCharsets.ISO_8859_1)
      val byBytes = readByCharacter(latin, open, q, esc, d)
      buf.reset(latin, twin)
      val end = quoted.read(latin, open, buf)
      c.equal((buf.value(true).toString, end, quoted.closed),
        (new String(byBytes._1.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8), byBytes._2, byBytes._3),
        s"the quoted field at $open of '$text' (quote $q, escape $esc, delimiter $d) from its bytes")
    }
    val quotes = new TextFormat.Finder("\"")
    quotes.reset("a,b\nc,\"d\"\ne")
    c.equal(Seq(quotes.from(0), quotes.from(4), quotes.from(7), quotes.from(9), quotes.from(10)),
      Seq(6, 6, 8, Int.MaxValue, Int.MaxValue), "the finder: the next quote from each place, none after the last")
  }
}
