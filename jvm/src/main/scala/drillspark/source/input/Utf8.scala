package drillspark.source.input

import java.io.{FilterInputStream, InputStream}

/**
 * Strict UTF-8, the one rule both readers apply: no overlong forms, no UTF-16 surrogates, nothing
 * above U+10FFFF (what the JDK's strict decoder accepts). The byte scanner checks names with
 * [[valid]] and string values with the lead-byte tables; [[Utf8Guard]] applies them under the
 * Jackson parser.
 */
object Utf8 {
  /** Continuation bytes after lead byte `c`; -1 when `c` cannot lead a sequence. */
  def continuations(c: Int): Int =
    if (c >= 0xC2 && c <= 0xDF) 1
    else if (c >= 0xE0 && c <= 0xEF) 2
    else if (c >= 0xF0 && c <= 0xF4) 3
    else -1

  /** The allowed range of the first continuation byte after lead byte `c` (the later ones are
   * 0x80 to 0xBF). */
  def firstLow(c: Int): Int = if (c == 0xE0) 0xA0 else if (c == 0xF0) 0x90 else 0x80
  def firstHigh(c: Int): Int = if (c == 0xED) 0x9F else if (c == 0xF4) 0x8F else 0xBF

  /** buf[from, until) is strict UTF-8. */
  def valid(buf: Array[Byte], from: Int, until: Int): Boolean = {
    var p = from
    while (p < until) {
      val c = buf(p) & 0xff
      p += 1
      if (c >= 0x80) {
        val n = continuations(c)
        if (n < 0 || p + n > until) return false
        val b0 = buf(p) & 0xff
        if (b0 < firstLow(c) || b0 > firstHigh(c)) return false
        var i = 1
        while (i < n) { if ((buf(p + i) & 0xC0) != 0x80) return false; i += 1 }
        p += n
      }
    }
    true
  }
}

/**
 * Strict UTF-8 under the Jackson parser (invalidUtf8=error). Jackson decodes some invalid
 * sequences silently: overlong forms (`C0 AF` becomes '/'), UTF-16 surrogates encoded in UTF-8
 * (later written as '?'), code points above U+10FFFF. This stream checks every sequence as the
 * bytes pass and turns the byte where one goes wrong into 0xFF, which Jackson always rejects,
 * so the error comes with Jackson's line and column; what was really wrong is kept in
 * [[problems]] for the message. `pos`: the file offset of the first byte read.
 */
private[source] final class Utf8Guard(in: InputStream, private var pos: Long) extends FilterInputStream(in) {
  /** Continuation bytes still expected, the range allowed for the next one, and the sequence
   * read so far (for the message). */
  private var need = 0
  private var lo = 0x80
  private var hi = 0xBF
  private var seq = 0L
  private var seqLen = 0
  private var seqAt = 0L
  /** What was wrong at each byte turned into 0xFF, oldest first. */
  val problems = new java.util.ArrayDeque[String]()

  private def hex(v: Long, n: Int): String =
    (n - 1 to 0 by -1).map(k => f"${(v >>> (8 * k)) & 0xff}%02x").mkString(" ")

  private def bad(what: String, x: Int, at: Long): Unit = {
    val bytes = if (seqLen > 0) s"${hex(seq, seqLen)} ${f"$x%02x"}" else f"$x%02x"
    problems.add(s"$what: bytes $bytes at byte ${if (seqLen > 0) seqAt else at}")
    need = 0; seqLen = 0
  }

  /** Check byte `x` at `at`; the byte to hand on (0xFF when it is where a sequence fails). */
  private def check(x: Int, at: Long): Int = {
    if (need == 0) {
      if (x < 0x80) x
      else if (x >= 0xC2 && x <= 0xF4) {
        need = Utf8.continuations(x); lo = Utf8.firstLow(x); hi = Utf8.firstHigh(x)
        seq = x; seqLen = 1; seqAt = at
        x
      } else {
        bad(if (x >= 0x80 && x < 0xC0) "a continuation byte without a lead byte"
          else if (x == 0xC0 || x == 0xC1) "an overlong encoding" else "a byte that never occurs in UTF-8", x, at)
        0xFF
      }
    } else if (x < lo || x > hi) {
      val lead = (seq >>> (8 * (seqLen - 1))).toInt & 0xff
      bad(if ((x & 0xC0) != 0x80) "a sequence cut short"
        else if (lead == 0xED) "a UTF-16 surrogate encoded in UTF-8"
        else if (lead == 0xF4) "a code point above U+10FFFF" else "an overlong encoding", x, at)
      0xFF
    } else {
      need -= 1; lo = 0x80; hi = 0xBF
      seq = seq << 8 | x; seqLen += 1
      if (need == 0) seqLen = 0
      x
    }
  }

  private def atEnd(): Unit = if (need > 0) {
    problems.add(s"a sequence cut short by the end of the input: bytes ${hex(seq, seqLen)} at byte $seqAt")
    need = 0; seqLen = 0
  }

  override def read(): Int = {
    val b = in.read()
    if (b < 0) { atEnd(); b }
    else { val c = check(b, pos); pos += 1; c }
  }

  override def read(b: Array[Byte], off: Int, len: Int): Int = {
    val n = in.read(b, off, len)
    if (n < 0) atEnd()
    var i = off
    while (i < off + n) {
      val x = b(i)
      if (x < 0 || need > 0) { val c = check(x & 0xff, pos + i - off); if (c != (x & 0xff)) b(i) = c.toByte }
      i += 1
    }
    if (n > 0) pos += n
    n
  }

  override def skip(n: Long): Long = {
    val buf = new Array[Byte](math.min(n, 8192L).toInt)
    val r = if (n <= 0) 0 else read(buf, 0, buf.length)
    math.max(r, 0).toLong
  }

  override def markSupported(): Boolean = false
}
