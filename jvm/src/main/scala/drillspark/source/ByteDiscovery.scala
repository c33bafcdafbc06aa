package drillspark.source

import java.io.InputStream
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.control.ControlThrowable

import org.apache.hadoop.conf.Configuration

import drillspark.source.Node._

/** Anything the byte scanner does not handle exactly: the split is discovered again by the
 * Jackson pass, which then also produces the error messages. */
private[source] object GiveUp extends ControlThrowable

/**
 * Schema discovery of one split straight from the bytes (no Jackson, no per-key String): builds
 * the same [[Node]] tree, with the same conflict records, as the Jackson token pass does, for
 * strict JSON (what the files nearly always are). Keys are looked up by their bytes in a small
 * per-node table, decoded only the first time a spelling is seen. Strings, escapes, numbers and
 * UTF-8 are validated as strictly as Jackson does or stricter: on anything else (comments,
 * unquoted or single-quoted names, NaN/Infinity, escapes in keys, invalid UTF-8, an outer array,
 * extended-type `$` keys, malformed input, deep nesting) `run()` returns false and the caller
 * runs the Jackson pass instead, so results and error messages stay the Jackson pass's.
 *
 * Split rule: a split [start, end) owns the records on the lines that start at or after
 * `start` (after skipping the partial line before it) and before `end`.
 */
final class ByteDiscovery(conf: Configuration, split: FileSplit, o: DrillOptions) {
  private val file = split.file.path
  private val start = split.start
  private val end = split.end
  val root: Node = Node.root(file)
  /** Records discovered (all of the split's when `run()` returned true and nothing bounded it). */
  var records = 0L

  private val buf = new Array[Byte](1 << 16)
  private var pos = 0
  private var lim = 0
  /** Absolute file offset of buf(0). */
  private var bufBase = if (start > 0) start - 1 else 0L
  /** Jackson's line number (1-based, counted from where the parser starts; CR, LF, CRLF). */
  private var line = 1
  private var prevCR = false
  /** Absolute offset where the current LF-terminated line starts (the split rule's lines). */
  private var lineStart = 0L
  private var newlineInRecord = false
  private val depthLimit = math.min(o.maxDepth - 1, ByteDiscovery.MaxRecursion)
  private var in: InputStream = _

  /** Discover the split; false when the Jackson pass must do it instead. */
  def run(): Boolean = {
    if (o.replaceInvalidUtf8 || o.skipInvalidRecords) return false
    in = JsonInput.open(conf, file, bufBase)
    try { scan(); ByteDiscovery.dropKeyIndexes(root); true }
    catch { case GiveUp => false }
    finally in.close()
  }

  /** Roughly where the scanner gave up (for the `bytes` diagnostic mode's message). */
  var gaveUpAt: Long = -1L

  private def giveUp(): Nothing = { gaveUpAt = bufBase + pos; throw GiveUp }

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

  private def read(): Int =
    if (pos < lim || fill()) { val c = buf(pos) & 0xff; pos += 1; c } else -1

  /** The next byte that is not JSON whitespace (consumed), counting lines as Jackson does. */
  private def skipWs(): Int = {
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

  private def scan(): Unit = {
    if (start > 0) {
      var c = read()
      while (c >= 0 && c != '\n') c = read()
    } else if (fill() && lim >= 3 && buf(0) == 0xEF.toByte && buf(1) == 0xBB.toByte && buf(2) == 0xBF.toByte) {
      pos = 3 // UTF-8 byte order mark, as Jackson skips it
    }
    lineStart = bufBase + pos
    while (o.sampleRecords < 0 || records < o.sampleRecords) {
      val c = skipWs()
      if (c < 0) return
      if (c != '{') giveUp()
      if (end >= 0 && lineStart >= end) return
      newlineInRecord = false
      members(root, 1, null)
      // a record crossing the split's end over several lines: the Jackson pass reports it
      if (end >= 0 && newlineInRecord && bufBase + pos - 1 >= end) giveUp()
      records += 1
    }
  }

  private def conflict(n: Node, newKind: String): Unit = if (n.kind != CONFLICT) {
    n.conflict = Conflict(n.path, kindName(n.kind), n.file, newKind, s"$file line $line")
    n.kind = CONFLICT; n.members = null; n.elem = null; n.keyIndex = null
  }

  /**
   * The members of an object whose '{' was read, into `n` (null: validate and skip). A struct
   * met where `pending` holds a scalar is a conflict, reported where Jackson reports it: at
   * the first member's value (or the closing brace of an empty object).
   */
  private def members(n: Node, depth: Int, pending: Node): Unit = {
    var c = skipWs()
    if (c == '}') { if (pending != null) conflict(pending, "STRUCT"); return }
    var first = true
    while (true) {
      if (c != '"') giveUp()
      val m = key(n)
      if (skipWs() != ':') giveUp()
      val v = skipWs()
      if (first && pending != null) conflict(pending, "STRUCT")
      first = false
      value(if (m == null) null else m.node, v, depth)
      c = skipWs()
      if (c == '}') return
      if (c != ',') giveUp()
      c = skipWs()
    }
  }

  /** A member name after its opening quote: its Member in `n` (null when `n` is null). */
  private def key(n: Node): Member = {
    var from = pos
    var p = pos
    var h = 0
    var ascii = true
    var done = false
    while (!done) {
      if (p >= lim) {
        // keep the name contiguous: move it to the buffer's front and read more
        if (from == 0 && lim == buf.length) giveUp()
        System.arraycopy(buf, from, buf, 0, lim - from)
        bufBase += from
        lim -= from
        p -= from
        from = 0
        pos = 0
        if (!more()) giveUp()
      } else {
        val b = buf(p)
        if (b == '"') done = true
        else {
          if (b == '\\' || (b >= 0 && b < 0x20)) giveUp()
          if (b < 0) ascii = false
          h = 31 * h + b
          p += 1
        }
      }
    }
    pos = p + 1
    val len = p - from
    if (!ascii) ByteDiscovery.checkUtf8(buf, from, p)
    if (o.extendedTypes && len > 0 && buf(from) == '$') giveUp()
    if (n == null) return null
    var idx = n.keyIndex
    if (idx == null) { idx = new KeyIndex; n.keyIndex = idx }
    var m = idx.get(h, buf, from, len)
    if (m == null) {
      m = n.member(new String(buf, from, len, UTF_8), file)
      idx.put(h, java.util.Arrays.copyOfRange(buf, from, p), m)
    }
    m
  }

  /** One value whose first byte `c` was read, into `n` (null: validate and skip). */
  private def value(n: Node, c: Int, depth: Int): Unit = c match {
    case '"' => skipString(); scalar(n, STRING)
    case '{' =>
      if (depth >= depthLimit) giveUp()
      if (n == null) members(null, depth + 1, null)
      else n.kind match {
        case NULL | STRUCT => n.kind = STRUCT; members(n, depth + 1, null)
        case CONFLICT => members(null, depth + 1, null)
        case _ => members(null, depth + 1, n)
      }
    case '[' =>
      if (depth >= depthLimit) giveUp()
      if (n != null && n.kind != NULL && n.kind != ARRAY) { conflict(n, "ARRAY"); elements(null, depth + 1) }
      else { if (n != null) n.kind = ARRAY; elements(n, depth + 1) }
    case 't' => literal('r', 'u', 'e'); scalar(n, BOOL)
    case 'f' => literal('a', 'l', 's'); if (read() != 'e') giveUp(); scalar(n, BOOL)
    case 'n' => literal('u', 'l', 'l')
    case _ =>
      if (c == '-' || (c >= '0' && c <= '9')) scalar(n, if (number(c) || o.readNumbersAsDouble) DOUBLE else BIGINT)
      else giveUp()
  }

  /** The elements of an array whose '[' was read, into `n`'s element node. */
  private def elements(n: Node, depth: Int): Unit = {
    var c = skipWs()
    if (c == ']') return
    while (true) {
      val e = if (n == null) null else {
        if (n.elem == null) n.elem = new Node(n.path + "[]", NULL, file)
        n.elem
      }
      value(e, c, depth)
      c = skipWs()
      if (c == ']') return
      if (c != ',') giveUp()
      c = skipWs()
    }
  }

  private def scalar(n: Node, k0: Int): Unit = if (n != null) {
    val k = if (o.allTextMode) STRING else k0
    n.kind match {
      case NULL => n.kind = k; n.file = file
      case STRUCT | ARRAY => conflict(n, kindName(k))
      case CONFLICT => ()
      case old => n.kind = meetScalar(old, k)
    }
  }

  private def literal(a: Char, b: Char, c: Char): Unit =
    if (read() != a || read() != b || read() != c) giveUp()

  /** A string value after its opening quote: escapes, control characters and UTF-8 checked. */
  private def skipString(): Unit = {
    while (true) {
      var p = pos
      val l = lim
      var b = 0
      while (p < l && { b = buf(p); b >= 0x20 && b != '"' && b != '\\' }) p += 1
      pos = p
      if (p == l) { if (!fill()) giveUp() } // end of the buffer, not of the string
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

  private def escape(): Unit = read() match {
    case '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' => ()
    case 'u' =>
      var i = 0
      while (i < 4) {
        val h = read()
        if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) giveUp()
        i += 1
      }
    case _ => giveUp()
  }

  /** The continuation bytes of a UTF-8 sequence whose lead byte `c` was read (strict). */
  private def utf8(c: Int): Unit = {
    val (n, lo, hi) = ByteDiscovery.sequence(c)
    var i = 0
    while (i < n) {
      val b = read()
      if (i == 0) { if (b < lo || b > hi) giveUp() }
      else if ((b & 0xC0) != 0x80 || b < 0) giveUp()
      i += 1
    }
  }

  /** A number whose first byte `c0` was read, to its last digit; true when it is a float. */
  private def number(c0: Int): Boolean = {
    var c = c0
    var len = 1
    if (c == '-') { c = read(); len += 1 }
    if (c == '0') { c = read(); if (c >= '0' && c <= '9') giveUp() }
    else if (c >= '1' && c <= '9') { c = read(); while (c >= '0' && c <= '9') { c = read(); len += 1 } }
    else giveUp()
    var float = false
    if (c == '.') {
      float = true
      c = read()
      if (c < '0' || c > '9') giveUp()
      while (c >= '0' && c <= '9') { c = read(); len += 1 }
    }
    if (c == 'e' || c == 'E') {
      float = true
      c = read()
      if (c == '+' || c == '-') c = read()
      if (c < '0' || c > '9') giveUp()
      while (c >= '0' && c <= '9') { c = read(); len += 1 }
    }
    if (len > ByteDiscovery.MaxNumberLength) giveUp()
    if (c >= 0) pos -= 1 // the byte after the number is the caller's
    float
  }
}

object ByteDiscovery {
  /** Deeper nesting is left to the Jackson pass (it checks maxDepth; we keep the stack small). */
  val MaxRecursion = 400
  val MaxNumberLength = 1000

  /** Continuation count and the allowed range of the first continuation byte (no overlongs,
   * no surrogates, nothing above U+10FFFF). */
  private def sequence(c: Int): (Int, Int, Int) =
    if (c >= 0xC2 && c <= 0xDF) (1, 0x80, 0xBF)
    else if (c == 0xE0) (2, 0xA0, 0xBF)
    else if (c == 0xED) (2, 0x80, 0x9F)
    else if (c >= 0xE1 && c <= 0xEF) (2, 0x80, 0xBF)
    else if (c == 0xF0) (3, 0x90, 0xBF)
    else if (c >= 0xF1 && c <= 0xF3) (3, 0x80, 0xBF)
    else if (c == 0xF4) (3, 0x80, 0x8F)
    else throw GiveUp

  /** Strict UTF-8 check of buf[from, until). */
  private def checkUtf8(buf: Array[Byte], from: Int, until: Int): Unit = {
    var p = from
    while (p < until) {
      val c = buf(p) & 0xff
      p += 1
      if (c >= 0x80) {
        val (n, lo, hi) = sequence(c)
        if (p + n > until) throw GiveUp
        val b0 = buf(p) & 0xff
        if (b0 < lo || b0 > hi) throw GiveUp
        var i = 1
        while (i < n) { if ((buf(p + i) & 0xC0) != 0x80) throw GiveUp; i += 1 }
        p += n
      }
    }
  }

  /** The byte-keyed lookup tables are only needed while a split is scanned. */
  private[source] def dropKeyIndexes(n: Node): Unit = {
    n.keyIndex = null
    if (n.members != null) n.members.values().forEach(m => dropKeyIndexes(m.node))
    if (n.elem != null) dropKeyIndexes(n.elem)
  }
}

/** Member names of one struct by their UTF-8 bytes (open addressing), so that a key seen
 * before costs a hash and a byte compare, not a String. */
private[source] final class KeyIndex {
  private var keys = new Array[Array[Byte]](16)
  private var hashes = new Array[Int](16)
  private var values = new Array[Member](16)
  private var size = 0

  def get(h: Int, buf: Array[Byte], off: Int, len: Int): Member = {
    val mask = keys.length - 1
    var i = h & mask
    while (keys(i) != null) {
      if (hashes(i) == h && same(keys(i), buf, off, len)) return values(i)
      i = (i + 1) & mask
    }
    null
  }

  private def same(k: Array[Byte], buf: Array[Byte], off: Int, len: Int): Boolean =
    k.length == len && java.util.Arrays.equals(k, 0, len, buf, off, off + len) // vectorized compare

  def put(h: Int, key: Array[Byte], m: Member): Unit = {
    if (size >= KeyIndex.MaxEntries) return // a struct with this many spellings: decode each time
    if (2 * (size + 1) > keys.length) grow()
    insert(h, key, m)
    size += 1
  }

  private def insert(h: Int, key: Array[Byte], m: Member): Unit = {
    val mask = keys.length - 1
    var i = h & mask
    while (keys(i) != null) i = (i + 1) & mask
    keys(i) = key; hashes(i) = h; values(i) = m
  }

  private def grow(): Unit = {
    val (ok, oh, ov) = (keys, hashes, values)
    keys = new Array[Array[Byte]](ok.length * 2)
    hashes = new Array[Int](ok.length * 2)
    values = new Array[Member](ok.length * 2)
    var i = 0
    while (i < ok.length) { if (ok(i) != null) insert(oh(i), ok(i), ov(i)); i += 1 }
  }
}

private object KeyIndex {
  val MaxEntries = 4096
}
