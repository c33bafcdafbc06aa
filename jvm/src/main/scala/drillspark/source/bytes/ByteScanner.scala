package drillspark.source.bytes

import java.io.InputStream
import java.nio.{ByteBuffer, ByteOrder}

import scala.util.control.ControlThrowable

import org.apache.hadoop.conf.Configuration

import drillspark.source.DrillOptions
import drillspark.source.input.{FileSplit, JsonInput, Utf8}

/** Anything a byte scanner does not handle exactly: the split goes to the Jackson path, which
 * then also produces the error messages. */
private[source] object GiveUp extends ControlThrowable

/**
 * Strict JSON straight from the bytes of one split, shared by [[ByteDiscovery]] (schemas) and
 * [[ByteReader]] (rows): the buffer, Jackson's line counting, the split rule, and the lexical
 * pieces (whitespace, names, strings, numbers, literals, skipping a whole value). Strings,
 * escapes, numbers and UTF-8 are validated as strictly as Jackson does or stricter; anything
 * else (comments, unquoted or single-quoted names, NaN/Infinity, escapes in names, invalid
 * UTF-8, malformed input, deep nesting) throws [[GiveUp]].
 *
 * Split rule: a split [start, end) owns the records on the lines that start at or after
 * `start` (after skipping the partial line before it) and before `end`.
 */
private[source] abstract class ByteScanner(conf: Configuration, split: FileSplit, o: DrillOptions) {
  protected final val file: String = split.file.path
  protected final val start: Long = split.start
  protected final val end: Long = split.end

  protected final val buf = new Array[Byte](1 << 16)
  /** `buf` read 8 bytes at a time (little-endian, so byte k of a word is buf(p + k)). */
  private val words = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN)
  protected final var pos = 0
  protected final var lim = 0
  /** Absolute file offset of buf(0). */
  protected final var bufBase: Long = if (start > 0) start - 1 else 0L
  /** Jackson's line number (1-based, counted from where the parser starts; CR, LF, CRLF). */
  protected final var line = 1
  private var prevCR = false
  /** Absolute offset where the current LF-terminated line starts (the split rule's lines). */
  protected final var lineStart = 0L
  private var newlineInRecord = false
  protected final val depthLimit: Int = math.min(o.maxDepth - 1, ByteScanner.MaxRecursion)
  private var in: InputStream = _

  /** Roughly where the scanner gave up (for the `bytes` diagnostic modes' messages). */
  var gaveUpAt: Long = -1L

  private[source] final def giveUp(): Nothing = { gaveUpAt = bufBase + pos; throw GiveUp }

  protected final def open(): Unit = in = JsonInput.open(conf, file, bufBase, o)

  def close(): Unit = if (in != null) { val s = in; in = null; s.close() }

  private def fill(): Boolean = {
    bufBase += lim
    pos = 0
    lim = 0
    more()
  }

  /** Read more bytes after `lim`; false at the end of the input. */
  private def more(): Boolean = {
    var n = 0
    while (n == 0) n = in.read(buf, lim, buf.length - lim)
    if (n > 0) { lim += n; true } else false
  }

  /** Move buf[from, lim) to the buffer's front, so that a name or number being scanned stays
   * contiguous (one as long as the buffer gives up); returns how far it moved. */
  private def compact(from: Int): Int = {
    if (from == 0 && lim == buf.length) giveUp()
    System.arraycopy(buf, from, buf, 0, lim - from)
    bufBase += from
    lim -= from
    pos -= from
    from
  }

  protected final def read(): Int =
    if (pos < lim || fill()) { val c = buf(pos) & 0xff; pos += 1; c } else -1

  /** The next byte that is not JSON whitespace (consumed), counting lines as Jackson does. */
  protected final def skipWs(): Int = {
    while (true) {
      if (pos >= lim && !fill()) return -1
      val c = buf(pos) & 0xff
      pos += 1
      if (c > ' ') { prevCR = false; return c } // the common case: no whitespace at all
      if (c == ' ' || c == '\t') prevCR = false
      else if (c == '\n') {
        if (!prevCR) line += 1
        prevCR = false
        lineStart = bufBase + pos
        newlineInRecord = true
      } else if (c == '\r') { line += 1; prevCR = true; newlineInRecord = true }
      else { prevCR = false; return c }
    }
    -1
  }

  /** `skipWs()` where the next byte is already in the buffer and not whitespace (compact JSON),
   * without its loop; `prevCR` is false there: only skipWs sets it, and clears it before it
   * returns a byte. */
  private def nextByte(): Int = {
    val p = pos
    if (p < lim) { val b = buf(p); if (b > ' ') { pos = p + 1; return b } }
    skipWs()
  }

  /** Open the input at the split's first owned line (past a file's UTF-8 byte order mark). */
  protected final def begin(): Unit = {
    open()
    if (start > 0) {
      var c = read()
      while (c >= 0 && c != '\n') c = read()
    } else if (fill() && lim >= 3 && buf(0) == 0xEF.toByte && buf(1) == 0xBB.toByte && buf(2) == 0xBF.toByte) {
      pos = 3 // as Jackson skips it
    }
    lineStart = bufBase + pos
  }

  /** Consume the next record's '{'; false at the end of the split. A top-level value that is
   * not an object gives up (the Jackson path reads outer arrays and reports the rest). */
  protected final def nextRecord(): Boolean = {
    val c = skipWs()
    if (c < 0) return false
    if (c != '{') giveUp()
    if (end >= 0 && lineStart >= end) return false
    newlineInRecord = false
    true
  }

  /** After a record's '}': a record crossing the split's end over several lines is the
   * Jackson path's to report. */
  protected final def endRecord(): Unit =
    if (end >= 0 && newlineInRecord && bufBase + pos - 1 >= end) giveUp()

  /** A member name after its opening quote, contiguous in `buf` at [keyFrom, keyFrom + keyLen)
   * (valid until the scanner reads on), and its first word `keyWord`. */
  protected final var keyFrom = 0
  protected final var keyLen = 0
  /** The name's first 8 bytes (fewer: zero-padded), little-endian. */
  protected final var keyWord = 0L

  protected final def scanKey(): Unit = {
    var from = pos
    var p = plainRun(from)
    while (p >= lim) { // keep the name contiguous (names longer than the buffer: give up)
      p -= compact(from)
      from = 0
      if (!more()) giveUp()
      p = plainRun(p)
    }
    if (buf(p) != '"') { // a non-ASCII name (checked below); escapes and controls give up
      var b = buf(p)
      while (b != '"') {
        if (b == '\\' || (b >= 0 && b < 0x20)) giveUp()
        p += 1
        if (p >= lim) {
          p -= compact(from)
          from = 0
          if (!more()) giveUp()
        }
        b = buf(p)
      }
      if (!Utf8.valid(buf, from, p)) giveUp()
    }
    pos = p + 1
    keyFrom = from
    keyLen = p - from
    keyWord = wordOf(from, keyLen)
    if (o.extendedTypes && keyLen > 0 && buf(from) == '$') giveUp()
  }

  /** The first 8 bytes of buf[from, from + len) (fewer: zero-padded; a word read may pass
   * the name's end when the buffer has room, and is masked). */
  private def wordOf(from: Int, len: Int): Long =
    if (len >= 8 || from + 8 <= buf.length) {
      val x = words.getLong(from)
      if (len >= 8) x else x & ((1L << (len << 3)) - 1)
    } else {
      var v = 0L
      var i = len - 1
      while (i >= 0) { v = v << 8 | (buf(from + i) & 0xff); i -= 1 }
      v
    }

  /** The current name's hash (for [[KeyIndex]]), from its first and last 8 bytes and its
   * length; every input bit reaches the low bits the tables index by (names such as
   * attr_000 .. attr_299 differ only in their last bytes, the word's high bits). */
  protected final def keyHash: Int = {
    val x = if (keyLen > 8) keyWord * 0x9E3779B97F4A7C15L ^ words.getLong(keyFrom + keyLen - 8) else keyWord
    var h = (x ^ keyLen) * 0xFF51AFD7ED558CCDL
    h ^= h >>> 33
    h *= 0xC4CEB9FE1A85EC53L
    (h ^ (h >>> 33)).toInt
  }

  /** The current name is `spelling` (whose first 8 bytes are `word`). */
  protected final def keyIs(spelling: Array[Byte], word: Long): Boolean =
    word == keyWord && spelling.length == keyLen && (keyLen <= 8 || {
      var i = 8
      while (i < keyLen && spelling(i) == buf(keyFrom + i)) i += 1
      i == keyLen
    })

  /** After a member's name: its ':', then the first byte of the member's value. */
  protected final def memberValue(): Int = {
    if (nextByte() != ':') giveUp()
    nextByte()
  }

  /** The first byte of buf[p, lim) that needs attention inside a string (a quote, a
   * backslash, a control or a non-ASCII byte), or lim; 8 bytes at a time. */
  private def plainRun(p0: Int): Int = {
    var p = p0
    val w = words
    while (p + 8 <= lim) {
      val m = ByteScanner.special(w.getLong(p))
      if (m != 0L) return p + (java.lang.Long.numberOfTrailingZeros(m) >>> 3)
      p += 8
    }
    while (p < lim && { val b = buf(p); b >= 0x20 && b != '"' && b != '\\' }) p += 1
    p
  }

  /** A string value after its opening quote: escapes, control characters and UTF-8 checked. */
  protected final def skipString(): Unit = {
    while (true) {
      pos = plainRun(pos)
      if (pos == lim) { if (!fill()) giveUp() } // end of the buffer, not of the string
      else {
        val c = buf(pos) & 0xff
        pos += 1
        if (c == '"') return
        if (c == '\\') escape()
        else if (c < 0x80) giveUp() // a raw control character
        else utf8(c)
      }
    }
  }

  /** The character of the escape after a backslash (-1 for a \\u escape, whose code unit is
   * then in `escaped`). */
  protected final var escaped = 0

  protected final def escape(): Int = read() match {
    case c @ ('"' | '\\' | '/') => c
    case 'b' => '\b'
    case 'f' => '\f'
    case 'n' => '\n'
    case 'r' => '\r'
    case 't' => '\t'
    case 'u' =>
      var i = 0
      var v = 0
      while (i < 4) {
        val h = read()
        val d =
          if (h >= '0' && h <= '9') h - '0'
          else if (h >= 'a' && h <= 'f') h - 'a' + 10
          else if (h >= 'A' && h <= 'F') h - 'A' + 10
          else giveUp()
        v = v * 16 + d
        i += 1
      }
      escaped = v
      -1
    case _ => giveUp()
  }

  /** The continuation bytes of a UTF-8 sequence whose lead byte `c` was read (strict); with
   * `keep`, the whole sequence is appended to the decoded string. */
  protected final def utf8(c: Int, keep: Boolean = false): Unit = {
    val n = Utf8.continuations(c)
    if (n < 0) giveUp()
    val lo = Utf8.firstLow(c)
    val hi = Utf8.firstHigh(c)
    if (keep) keepByte(c)
    var i = 0
    while (i < n) {
      val b = read()
      if (i == 0) { if (b < lo || b > hi) giveUp() }
      else if ((b & 0xC0) != 0x80 || b < 0) giveUp()
      if (keep) keepByte(b)
      i += 1
    }
  }

  /** The last decoded string value: str[0, strLen). */
  private[source] final var str = new Array[Byte](256)
  private[source] final var strLen = 0

  private def room(n: Int): Unit =
    if (strLen + n > str.length) str = java.util.Arrays.copyOf(str, math.max(str.length * 2, strLen + n))

  private def keepByte(b: Int): Unit = { room(1); str(strLen) = b.toByte; strLen += 1 }

  /** A code point as UTF-8. */
  private def keepCodePoint(cp: Int): Unit =
    if (cp < 0x80) keepByte(cp)
    else if (cp < 0x800) { keepByte(0xC0 | cp >> 6); keepByte(0x80 | (cp & 0x3F)) }
    else if (cp < 0x10000) { keepByte(0xE0 | cp >> 12); keepByte(0x80 | (cp >> 6 & 0x3F)); keepByte(0x80 | (cp & 0x3F)) }
    else {
      keepByte(0xF0 | cp >> 18); keepByte(0x80 | (cp >> 12 & 0x3F))
      keepByte(0x80 | (cp >> 6 & 0x3F)); keepByte(0x80 | (cp & 0x3F))
    }

  /** A string value after its opening quote, decoded into `str` (UTF-8, escapes resolved; a
   * lone surrogate escape gives up: Jackson's text would hold it, and its bytes a '?'). */
  protected final def readString(): Unit = {
    strLen = 0
    while (true) {
      val p = plainRun(pos)
      if (p > pos) {
        room(p - pos)
        System.arraycopy(buf, pos, str, strLen, p - pos)
        strLen += p - pos
        pos = p
      }
      if (pos == lim) { if (!fill()) giveUp() }
      else {
        val c = buf(pos) & 0xff
        pos += 1
        if (c == '"') return
        if (c == '\\') {
          val e = escape()
          if (e >= 0) keepByte(e)
          else if (escaped < 0xD800 || escaped > 0xDFFF) keepCodePoint(escaped)
          else { // a surrogate pair as two escapes
            val high = escaped
            if (high > 0xDBFF || read() != '\\' || escape() != -1 || escaped < 0xDC00 || escaped > 0xDFFF) giveUp()
            keepCodePoint(0x10000 + ((high - 0xD800) << 10) + (escaped - 0xDC00))
          }
        }
        else if (c < 0x80) giveUp() // a raw control character
        else utf8(c, keep = true)
      }
    }
  }

  protected final def literal(a: Char, b: Char, c: Char): Unit =
    if (read() != a || read() != b || read() != c) giveUp()

  /** The text of the last number: buf[numFrom, numFrom + numLen), valid until the scanner
   * reads on. */
  protected final var numFrom = 0
  protected final var numLen = 0

  /** The byte at offset `q` of the number being scanned, reading more at the buffer's end
   * (keeping the number contiguous); -1 at the end of the input. */
  private def numByte(q: Int): Int = {
    val p = numFrom + q
    if (p < lim) buf(p) & 0xff
    else {
      if (q > ByteScanner.MaxNumberLength) giveUp()
      numFrom -= compact(numFrom)
      if (more()) buf(numFrom + q) & 0xff else -1
    }
  }

  /** The offset (from numFrom) of the first byte at or after offset `q0` that is not a digit. */
  private def digits(q0: Int): Int = {
    var q = q0
    while (true) {
      var p = numFrom + q
      while (p < lim && { val b = buf(p); b >= '0' && b <= '9' }) p += 1
      q = p - numFrom
      if (p < lim) return q
      val c = numByte(q) // the buffer's end: read on (the number stays contiguous)
      if (c < '0' || c > '9') return q
      q += 1
    }
    q
  }

  /** A number whose first byte `c0` was read, to its last digit (its text at `numFrom`); true
   * when it is a float. */
  protected final def number(c0: Int): Boolean = {
    numFrom = pos - 1
    var q = 1 // offset of the next byte; `c` is the byte at q - 1
    var c = c0
    if (c == '-') { c = numByte(q); q += 1 }
    if (c == '0') { c = numByte(q); q += 1; if (c >= '0' && c <= '9') giveUp() }
    else if (c >= '1' && c <= '9') { q = digits(q); c = numByte(q); q += 1 }
    else giveUp()
    var float = false
    if (c == '.') {
      float = true
      c = numByte(q); q += 1
      if (c < '0' || c > '9') giveUp()
      q = digits(q); c = numByte(q); q += 1
    }
    if (c == 'e' || c == 'E') {
      float = true
      c = numByte(q); q += 1
      if (c == '+' || c == '-') { c = numByte(q); q += 1 }
      if (c < '0' || c > '9') giveUp()
      q = digits(q); c = numByte(q); q += 1
    }
    numLen = q - 1 // the byte after the number (at offset q - 1) is the caller's
    if (numLen > ByteScanner.MaxNumberLength) giveUp()
    pos = numFrom + numLen
    float
  }

  /** Validate and skip one value whose first byte `c` was read (members at `depth`). */
  protected final def skipValue(c: Int, depth: Int): Unit = c match {
    case '"' => skipString()
    case '{' => if (depth >= depthLimit) giveUp(); skipMembers(depth + 1)
    case '[' => if (depth >= depthLimit) giveUp(); skipElements(depth + 1)
    case 't' => literal('r', 'u', 'e')
    case 'f' => literal('a', 'l', 's'); if (read() != 'e') giveUp()
    case 'n' => literal('u', 'l', 'l')
    case _ =>
      if (c >= '1' && c <= '9') skipInteger(c)
      else if (c == '-' || c == '0') number(c) else giveUp()
  }

  /** A number starting with 1-9: a run of digits ending inside the buffer at a byte that cannot
   * continue a number is a whole, valid integer; anything else is `number`'s to read. */
  private def skipInteger(c: Int): Unit = {
    var p = pos
    while (p < lim && { val b = buf(p); b >= '0' && b <= '9' }) p += 1
    if (p < lim && { val b = buf(p); b != '.' && b != 'e' && b != 'E' } && p - pos < ByteScanner.MaxNumberLength) pos = p
    else number(c)
  }

  /** The members of an object whose '{' was read, validated and skipped. */
  protected final def skipMembers(depth: Int): Unit = {
    var c = nextByte()
    if (c == '}') return
    while (true) {
      if (c != '"') giveUp()
      skipString() // a name nobody looks up: any valid string will do
      skipValue(memberValue(), depth)
      c = nextByte()
      if (c == '}') return
      if (c != ',') giveUp()
      c = nextByte()
    }
  }

  /** The elements of an array whose '[' was read, validated and skipped. */
  protected final def skipElements(depth: Int): Unit = {
    var c = nextByte()
    if (c == ']') return
    while (true) {
      skipValue(c, depth)
      c = nextByte()
      if (c == ']') return
      if (c != ',') giveUp()
      c = nextByte()
    }
  }
}

private[source] object ByteScanner {
  /** Deeper nesting is left to the Jackson path (it checks maxDepth; we keep the stack small). */
  val MaxRecursion = 400
  val MaxNumberLength = 1000

  private final val Ones = 0x0101010101010101L
  private final val Highs = 0x8080808080808080L
  private final val Quotes = 0x2222222222222222L
  private final val Backslashes = 0x5C5C5C5C5C5C5C5CL
  private final val Spaces = 0x2020202020202020L

  /** The bytes of a word (little-endian) that are a quote, a backslash, below 0x20 or above
   * 0x7F, flagged by their high bits (SWAR). A byte's high bit is set when it is non-ASCII
   * (the `| w`), when XOR-ing it with the quote or the backslash gives 0 (0 - 1 borrows), or
   * when it is below 0x20 (x - 0x20 borrows); an ASCII byte that is none of these sets no
   * high bit in any term. A borrow only reaches the bytes above a byte that matched, so the
   * lowest flag is exact. */
  @inline def special(w: Long): Long = {
    val q = w ^ Quotes
    val b = w ^ Backslashes
    ((q - Ones) | (b - Ones) | (w - Spaces) | w) & Highs
  }
}
