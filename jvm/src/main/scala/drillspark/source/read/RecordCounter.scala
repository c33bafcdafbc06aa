package drillspark.source.read

import java.io.InputStream

import org.apache.hadoop.conf.Configuration

import drillspark.source.DrillOptions
import drillspark.source.input.{DrillScanException, JsonInput, SplitOwnership, Splits}

/**
 * Counts the top-level records of a file or split without tokenizing them: the `count()` path
 * (no column read, no filter). A byte-level structural scan that still respects strings and
 * their escapes, `//` and `/* */` comments, concatenated objects and one outer array, and
 * checks the structure: brackets balance and match, nesting stays within `maxDepth`, nothing
 * but objects appears at the top level, no string or record is left open at the end. What it
 * does not check is the text inside a record (values, commas, colons, names, numbers, escape
 * sequences, UTF-8): like Spark's own count, it does not parse. Option `countScan=false` makes
 * count use the full parser. Splits follow [[RecordStream]]: after skipping the partial line
 * before the first newline, the records of the lines that start in [start, end), see
 * [[SplitOwnership]].
 */
final class RecordCounter(conf: Configuration, val file: String, start: Long, end: Long, o: DrillOptions)
  extends AutoCloseable {

  private val in: InputStream = JsonInput.open(conf, file, if (start > 0) start - 1 else 0L, o)
  private val owner = new SplitOwnership(end)
  private val buf = new Array[Byte](1 << 16)
  private var pos = 0
  private var lim = 0
  /** Absolute offset of buf(0). */
  private var bufBase = if (start > 0) start - 1 else 0L
  /** Absolute offset where this split's reading starts (after the skipped partial line). */
  private var origin = 0L
  private var line = 1L
  private var lineStart = 0L

  private val stack = new Array[Byte](o.maxDepth + 2)
  private var depth = 0
  private var arrayMode = false
  private var first = true
  private var inString = false
  private var escaped = false
  private var comment = 0 // 0 none, 1 after '/', 2 line comment, 3 block, 4 block after '*'
  private var recordStart = 0L
  /** The line of the last '/' outside strings, and where that line starts. */
  private var slashLine = 0L
  private var slashLineStart = 0L
  private var finished = false

  try {
    if (start > 0) skipPartialLine()
    origin = bufBase + pos
    lineStart = origin
    if (start == 0 && fill() && lim - pos >= 3 && buf(0) == 0xEF.toByte && buf(1) == 0xBB.toByte && buf(2) == 0xBF.toByte)
      pos = 3 // UTF-8 byte order mark, as Jackson skips it
  } catch {
    case e: Throwable => JsonInput.closeQuietly(in, e); throw e
  }

  private def fill(): Boolean = {
    if (pos < lim) return true
    bufBase += lim
    pos = 0
    lim = 0
    val n = in.read(buf, 0, buf.length)
    if (n > 0) { lim = n; true } else false
  }

  private def skipPartialLine(): Unit = {
    while (fill()) {
      val b = buf(pos)
      pos += 1
      if (b == '\n') { owner.newlineAt(bufBase + pos - 1); return }
    }
  }

  private def recordLevel: Int = if (arrayMode) 1 else 0

  private def fail(what: String, at: Long): DrillScanException = failOn(line, lineStart, what, at)

  /** The error at byte `at` of line `onLine` (which starts at byte `from`). */
  private def failOn(onLine: Long, from: Long, what: String, at: Long): DrillScanException = {
    val where = if (start > 0) s"line $onLine of the split starting at byte $origin" else s"line $onLine"
    val hint = if (start > 0) Splits.SplitHint else ""
    new DrillScanException(s"drill: $file $where, column ${at - from + 1} (byte $at): $what$hint")
  }

  /** Count up to `max` further records; 0 at the end of the file or split. */
  def count(max: Int): Int = {
    stepped = 0
    while (stepped < max && !finished) {
      if (!fill()) {
        finished = true
        val at = bufBase + pos
        if (inString) throw fail("malformed JSON: end of input inside a string", at)
        if (comment >= 3) throw fail("malformed JSON: end of input inside a /* comment", at)
        if (depth > 0) throw fail(s"malformed JSON: end of input inside ${if (depth == 1 && arrayMode) "the outer array" else "a record"} (unclosed object or array)", at)
      } else {
        // fast skips: string contents, and value bytes inside a record, up to the next byte
        // that can change the structure
        if (inString && !escaped) {
          var p = pos
          while (p < lim && !RecordCounter.StringStop(buf(p) & 0xff)) p += 1
          pos = p
        } else if (!inString && comment == 0 && depth > recordLevel) {
          var p = pos
          while (p < lim && !RecordCounter.RecordStop(buf(p) & 0xff)) p += 1
          pos = p
        }
        if (pos < lim) step()
      }
    }
    stepped
  }

  /** One byte at `pos` (the count is kept in `stepped`). */
  private var stepped = 0
  private def step(): Unit = {
    val b = buf(pos)
    val at = bufBase + pos
    pos += 1
    if (b == '\n') { line += 1; lineStart = at + 1; owner.newlineAt(at) }
    if (inString) {
      if (escaped) escaped = false
      else if (b == '\\') escaped = true
      else if (b == '"') inString = false
    } else if (comment != 0) comment = commentState(b, at)
    else if (b != ' ' && b != '\n' && b != '\t' && b != '\r') {
      // the first byte of the next split's lines at the top level: the rest is its
      if (depth == 0 && owner.beyond(at)) { finished = true; pos -= 1; return }
      if (b == '/') { comment = 1; slashLine = line; slashLineStart = lineStart }
      else {
        if (structural(b, at)) stepped += 1
        first = false
      }
    }
  }

  private def commentState(b: Byte, at: Long): Int = comment match {
    case 1 =>
      if (b == '/') 2 else if (b == '*') 3
      // the byte after the '/' may be a newline, already counted: place the error at the '/'
      else throw failOn(slashLine, slashLineStart, "malformed JSON: '/' that does not start a comment", at - 1)
    case 2 => if (b == '\n') 0 else 2
    case 3 => if (b == '*') 4 else 3
    case _ => if (b == '/') 0 else if (b == '*') 4 else 3
  }

  /** One structural or value byte outside strings and comments; true when it starts a record. */
  private def structural(b: Byte, at: Long): Boolean = b match {
    case '{' =>
      val isRecord = depth == recordLevel
      push('{', at)
      if (isRecord) recordStart = at
      isRecord
    case '[' =>
      if (depth == 0 && first && start == 0) { arrayMode = true; push('[', at) }
      else if (depth == recordLevel) throw fail("expected a JSON object at the top level, found an array", at)
      else push('[', at)
      false
    case '}' | ']' =>
      if (depth == 0 || (b == '}' && depth == recordLevel))
        throw fail(s"malformed JSON: unexpected close marker '${b.toChar}'", at)
      val open = stack(depth - 1)
      if ((b == '}') != (open == '{'))
        throw fail(s"malformed JSON: unexpected close marker '${b.toChar}' (expected '${if (open == '{') '}' else ']'}')", at)
      depth -= 1
      if (arrayMode && depth == 0) arrayMode = false
      else if (b == '}' && depth == recordLevel && owner.beyond(at))
        throw Splits.spansBoundary(file, recordStart, owner.ownedEnd)
      false
    case '"' =>
      if (depth <= recordLevel) throw fail("expected a JSON object at the top level, found a string", at)
      inString = true
      false
    case ',' =>
      if (depth == recordLevel && !arrayMode || depth == 0)
        throw fail("malformed JSON: unexpected ',' at the top level", at)
      false
    case _ =>
      if (depth <= recordLevel)
        throw fail(s"expected a JSON object at the top level, found '${b.toChar}'", at)
      false
  }

  private def push(kind: Char, at: Long): Unit = {
    if (depth >= o.maxDepth) throw fail(
      s"nesting deeper than the limit (option maxDepth): depth ${depth + 1} exceeds ${o.maxDepth}", at)
    stack(depth) = kind.toByte
    depth += 1
  }

  override def close(): Unit = in.close()
}

object RecordCounter {
  private def table(cs: Char*): Array[Boolean] = { val t = new Array[Boolean](256); cs.foreach(c => t(c) = true); t }
  /** Bytes that end a fast skip inside a string / inside a record. */
  private val StringStop = table('"', '\\', '\n')
  private val RecordStop = table('{', '}', '[', ']', '"', '/', '\n')
}
