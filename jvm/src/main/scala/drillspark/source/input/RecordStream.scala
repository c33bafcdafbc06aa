package drillspark.source.input

import java.io.{BufferedInputStream, ByteArrayInputStream, FilterInputStream, IOException, InputStream, SequenceInputStream}
import java.util.Locale

import com.fasterxml.jackson.core.{JsonFactory, JsonLocation, JsonParser, JsonProcessingException, JsonStreamContext, JsonToken}
import com.fasterxml.jackson.core.io.JsonEOFException
import org.apache.hadoop.conf.Configuration

import drillspark.source.DrillOptions

/** The parser's input: knows its absolute offset, and shows the newlines it passes to the
 * split's [[SplitOwnership]]. */
private final class TrackedInput(in: InputStream, var pos: Long, owner: SplitOwnership) extends FilterInputStream(in) {
  override def read(): Int = {
    val b = in.read()
    if (b >= 0) { if (b == '\n') owner.newlineAt(pos); pos += 1 }
    b
  }
  override def read(b: Array[Byte], off: Int, len: Int): Int = {
    val n = in.read(b, off, len)
    if (n > 0) { owner.scan(pos, b, off, n); pos += n }
    n
  }
  override def skip(n: Long): Long = {
    val buf = new Array[Byte](math.min(n, 8192L).toInt)
    val r = if (n <= 0) 0 else read(buf, 0, buf.length)
    math.max(r, 0).toLong
  }
  override def markSupported(): Boolean = false

  /** Read through the next newline; false at the end of the input. */
  def skipLine(): Boolean = {
    var b = read()
    while (b >= 0 && b != '\n') b = read()
    b >= 0
  }

  def atEnd: Boolean = { in.mark(1); val b = in.read(); in.reset(); b < 0 }

  /** The next `n` bytes, left unread (not counted, no newlines shown). */
  def peek(n: Int): Array[Byte] = { in.mark(n); val b = in.readNBytes(n); in.reset(); b }
}

/**
 * The top-level records of one file, or of one line-aligned split of it: JSON lines,
 * concatenated objects, or one outer array of objects; positions the parser on each record's
 * START_OBJECT. A split [start, end) skips the partial line before its first newline and reads
 * the records of the lines that start in it ([[SplitOwnership]]). With skipInvalidRecords a bad
 * record is counted and reading resumes at the next line (a top-level scalar or array, which
 * the parser reads whole, is counted and passed over).
 *
 * Positions in messages are the file's (the split's, in a split): after the input is reopened
 * (a re-read record, a resumption after a bad one) the parser counts from where it restarted,
 * so its lines and columns are offset by where that was.
 */
final class RecordStream(
    conf: Configuration, val file: String, start: Long, end: Long, o: DrillOptions, f: JsonFactory)
  extends AutoCloseable {

  private val owner = new SplitOwnership(end)
  private var in: TrackedInput = _
  var parser: JsonParser = _
  /** Absolute file offset of the parser's byte 0 (one before its first file byte when it was
   * handed a '[' to resume inside an outer array). */
  private var base = 0L
  /** Absolute offset of the first file byte the parser reads. */
  private var parserFrom = 0L
  /** Line of the parser's line 1, minus one; column of its column 1 (on its line 1), minus one. */
  private var lineBase = 0L
  private var colBase = 0L
  /** First byte of this split's first line (0 for a whole file). */
  private var origin = 0L
  private var arrayMode = false
  private var first = true
  /** The parser was handed a '[' the file does not have at that place. */
  private var resumedInArray = false

  /** Strict UTF-8 below the parser (null with invalidUtf8=replace: the decoder replaces). */
  private var guard: Utf8Guard = _
  private var recordParent: JsonStreamContext = _
  private var recordOpen = false
  /** Absolute byte, line and column of the current record's START_OBJECT. */
  var recordStart: Long = -1L
  private var recordLine = 0L
  private var recordCol = 0L
  var skipped: Long = 0L
  var records: Long = 0L

  try {
    openAt(if (start > 0) start - 1 else 0L)
    if (start > 0) in.skipLine()
    origin = in.pos
    startParser(1, 1, inArray = false)
    first = true
  } catch {
    case e: Throwable => JsonInput.closeQuietly(this, e); throw e
  }

  private def openAt(pos: Long): Unit = {
    closeInput()
    val compressed = JsonInput.isCompressed(file)
    val raw = JsonInput.open(conf, file, if (compressed) 0L else pos, o)
    try {
      val buffered = new BufferedInputStream(raw, 1 << 16)
      if (compressed && pos > 0) {
        try buffered.skipNBytes(pos) catch { case e: IOException => throw JsonInput.cannotRead(file, pos, e) }
      }
      in = new TrackedInput(buffered, pos, owner)
    } catch {
      case e: Throwable => JsonInput.closeQuietly(raw, e); throw e
    }
  }

  /** A parser from the input's position, which is at `line` and `column`; inside an outer array
   * it is handed a '[' first, so that the records' separators and the closing ']' still parse. */
  private def startParser(line: Long, column: Long, inArray: Boolean): Unit = {
    parserFrom = in.pos
    base = in.pos
    lineBase = line - 1
    colBase = column - 1
    resumedInArray = inArray && !in.atEnd
    guard = if (o.replaceInvalidUtf8) null else new Utf8Guard(in, in.pos)
    val body: InputStream = if (guard == null) in else guard
    var src: InputStream =
      if (!resumedInArray) body
      else { base -= 1; colBase -= 1; new SequenceInputStream(new ByteArrayInputStream(RecordStream.OpenArray), body) }
    // Jackson guesses the encoding of every parser from its first four bytes: a parser started
    // inside the file (a resumption, a split, a re-read) on bytes such as `a\0\0\0` took the
    // UTF-8 text for UTF-32 and failed with a raw CharConversionException. The text is UTF-8
    // (JsonInput.open transcodes other encodings): spaces in front keep Jackson's guess UTF-8.
    val seen = (if (resumedInArray) RecordStream.OpenArray else Array.emptyByteArray) ++ in.peek(4)
    if (!o.replaceInvalidUtf8 && (parserFrom > 0 || resumedInArray) && Encodings.nonUtf8(seen.take(4)).isDefined) {
      base -= RecordStream.Shield.length; colBase -= RecordStream.Shield.length
      src = new SequenceInputStream(new ByteArrayInputStream(RecordStream.Shield), src)
    }
    parser = JsonInput.parser(f, src, o)
    arrayMode = false
    first = resumedInArray
    recordOpen = false
  }

  /** Reopen at absolute offset `pos` (at `line`, `column`), skip `lines` line ends, parse on. */
  private def reopenAt(pos: Long, line: Long, column: Long, lines: Int, inArray: Boolean): Unit = {
    openAt(pos)
    var l = line
    var c = column
    var k = 0
    while (k < lines && in.skipLine()) { l += 1; c = 1; k += 1 }
    startParser(l, c, inArray)
  }

  private def lineOf(loc: JsonLocation): Long = lineBase + loc.getLineNr
  private def columnOf(loc: JsonLocation): Long =
    if (loc.getLineNr == 1) colBase + loc.getColumnNr else loc.getColumnNr.toLong
  private def byteOf(loc: JsonLocation): Long = if (loc.getByteOffset >= 0) base + loc.getByteOffset else -1L

  private def whereAt(loc: JsonLocation): String =
    if (loc == null) file
    else JsonInput.where(file, lineOf(loc), columnOf(loc), byteOf(loc), if (start > 0) origin else 0L)

  /** "file line L, column C (byte B)" of the parser's position. */
  def where: String = whereAt(if (parser == null) null else parser.currentLocation())

  def fail(what: String, cause: Throwable = null): DrillScanException =
    failAt(if (parser == null) null else parser.currentLocation(), what, cause)

  private def failAt(loc: JsonLocation, what: String, cause: Throwable = null): DrillScanException =
    new DrillScanException(s"drill: ${whereAt(loc)}: $what${if (start > 0) Splits.SplitHint else ""}", cause)

  /** Move to the next record's START_OBJECT; false at the end of the file or split. */
  def next(): Boolean = {
    checkRecordEnd()
    while (true) {
      var t: JsonToken = null
      var bad = false
      try t = parser.nextToken() catch {
        case e: JsonProcessingException =>
          if (endsHere(e)) return false
          onBadRecord(e)
          bad = true
      }
      if (!bad) {
        if (t == null) return false
        val loc = parser.currentTokenLocation()
        val at = base + loc.getByteOffset
        if (owner.beyond(at)) return false
        if (t == JsonToken.START_OBJECT) {
          first = false
          recordParent = parser.getParsingContext.getParent
          recordOpen = true
          recordStart = if (loc.getByteOffset >= 0) at else -1L
          recordLine = lineOf(loc)
          recordCol = columnOf(loc)
          records += 1
          return true
        } else if (first && t == JsonToken.START_ARRAY && start == 0) arrayMode = true
        else if (arrayMode && t == JsonToken.END_ARRAY && parser.getParsingContext.inRoot) arrayMode = false
        else notAnObject(t)
        first = false
      }
    }
    false
  }

  /** A syntax error between records that is not this split's: on a line the next split owns
   * (it reports or skips it), or the end of input inside the '[' handed to the parser. */
  private def endsHere(e: JsonProcessingException): Boolean = {
    val ctx = parser.getParsingContext
    if (resumedInArray && e.isInstanceOf[JsonEOFException] && ctx != null && ctx.inArray &&
        ctx.getParent != null && ctx.getParent.inRoot) return true
    val loc = e.getLocation
    ctx != null && ctx.inRoot && loc != null && loc.getByteOffset >= 0 &&
      owner.beyond(byteOf(loc) - columnOf(loc) + 1)
  }

  /** A top-level value that is not an object: fail, or (skipInvalidRecords) count it and go
   * on after it; the parser read it whole (a scalar) or skips it whole (an array). */
  private def notAnObject(t: JsonToken): Unit = {
    if (!o.skipInvalidRecords)
      throw failAt(parser.currentTokenLocation(), s"expected a JSON object at the top level, found ${tokenText(t)}")
    skipped += 1
    if (t == JsonToken.START_ARRAY) {
      try parser.skipChildren() catch { case e: JsonProcessingException => resume(e) }
    }
  }

  /** In a split, a record must not run into the next split's first line: the file is not
   * JSON lines after all, and the next split started inside this record. */
  private def checkRecordEnd(): Unit = {
    if (recordOpen && owner.ownedEnd >= 0 && parser.currentToken() == JsonToken.END_OBJECT &&
        (parser.getParsingContext eq recordParent) &&
        owner.beyond(base + parser.currentTokenLocation().getByteOffset))
      throw Splits.spansBoundary(file, recordStart, owner.ownedEnd)
    recordOpen = false
  }

  /** The top-level token for an error: its kind and the start of its text. Jackson decodes a
   * string only when asked, so a string that is itself malformed (cut short, a raw control
   * character) is named by its kind alone rather than failing here with Jackson's error. */
  private def tokenText(t: JsonToken): String = t match {
    case JsonToken.START_ARRAY => "an array"
    case JsonToken.END_ARRAY | JsonToken.END_OBJECT => s"'${t.asString}'"
    case _ =>
      val kind = t.toString.toLowerCase(Locale.ROOT).replace("value_", "")
      val text = try Option(parser.getText).getOrElse("") catch { case _: JsonProcessingException => "" }
      val shown = if (text.length > RecordStream.ShownChars) text.take(RecordStream.ShownChars) + "..." else text
      if (shown.isEmpty) s"a $kind" else s"$kind $shown"
  }

  /** A syntax error in a record: fail, or (skipInvalidRecords) count it and resume after it. */
  def onBadRecord(e: JsonProcessingException): Unit = {
    // with invalidUtf8=replace, positions are in decoded characters: nowhere to resume
    if (!o.skipInvalidRecords || o.replaceInvalidUtf8) throw fail(JsonInput.describe(e, utf8Problem(e)), e)
    skipped += 1
    resume(e)
  }

  /** What the guard turned into 0xFF, when that is what Jackson failed on (or a sequence cut
   * short by the end of the input, which Jackson reports as the end of the input). */
  private def utf8Problem(e: JsonProcessingException): String =
    if (guard == null || guard.problems.isEmpty) null
    else {
      val m = Option(e.getOriginalMessage).getOrElse("").toLowerCase(Locale.ROOT)
      val head = guard.problems.peekFirst()
      if (m.contains("0xff") || (m.contains("end-of-input") && head.contains("end of the input"))) guard.problems.pollFirst()
      else null
    }

  /** Resume after a syntax error at the line after the one holding it; but inside a record, an
   * error at a line's first byte means the line before was cut short: resume at this line. */
  private def resume(e: JsonProcessingException): Unit = {
    if (o.replaceInvalidUtf8) throw fail(JsonInput.describe(e), e)
    val loc = Option(e.getLocation).filter(_.getByteOffset >= 0).getOrElse(parser.currentLocation())
    val at = byteOf(loc)
    // no byte position: Jackson took the file for UTF-16 or UTF-32 (it guesses from the first
    // bytes) and counts characters; reopening "at" -1 read the same error again, forever
    if (at < 0) throw fail(JsonInput.describe(e) + " (the file's first bytes look like UTF-16 or UTF-32, " +
      "which has no byte positions to skip a bad record by; skipInvalidRecords needs UTF-8)", e)
    val ctx = parser.getParsingContext
    val inRecord = ctx != null && !ctx.inRoot
    // In a split, a bad record whose error lies on a line of a later split ran into that split
    // (a block comment or string left open, brackets never closed), which reads those lines as
    // records of its own, while the whole file skips them with the bad record: not JSON lines.
    // Only a record cut short on this split's last line fails at the next split's first byte.
    if (inRecord && owner.beyond(at - columnOf(loc) + 1) && !(columnOf(loc) == 1 && at == owner.ownedEnd))
      throw Splits.spansBoundary(file, recordStart, owner.ownedEnd)
    val inArray = arrayMode
    // at > parserFrom: never resume where this parser started (that line is the bad one)
    if (inRecord && columnOf(loc) == 1 && at > parserFrom) reopenAt(at, lineOf(loc), 1, 0, inArray)
    else reopenAt(at, lineOf(loc), columnOf(loc), 1, inArray)
  }

  /** A value that does not fit its column (not a syntax error): skip to the record's end. */
  def skipRecord(): Unit = {
    skipped += 1
    try {
      while (parser.getParsingContext ne recordParent) {
        if (parser.nextToken() == null) return
      }
    } catch {
      case e: JsonProcessingException => resume(e)
    }
  }

  /** Inside a file's outer array (records cannot be re-read from their offset there). */
  def inArray: Boolean = arrayMode

  /** The current record can be read again from its offset ([[reread]]): not inside an outer
   * array, and its byte offset known (Jackson counts characters in a UTF-16 or UTF-32 file). */
  def canReread: Boolean = !arrayMode && recordStart >= 0

  /** Reopen at the current record's START_OBJECT (a record rejected early by a pushed filter
   * but revived by a later duplicate key is read again in full). */
  def reread(): Unit = {
    reopenAt(recordStart, recordLine, recordCol, 0, inArray = false)
    parser.nextToken()
    recordParent = parser.getParsingContext.getParent
    recordOpen = true
  }

  private def closeInput(): Unit = {
    try { if (parser != null) parser.close() }
    finally {
      parser = null
      if (in != null) { val s = in; in = null; s.close() }
    }
  }

  override def close(): Unit = closeInput()
}

object RecordStream {
  private val OpenArray = Array[Byte]('[')
  /** Put before a parser's input so that Jackson takes it for UTF-8 (see startParser). */
  private val Shield = "    ".getBytes(java.nio.charset.StandardCharsets.US_ASCII)
  /** Characters of a misplaced top-level value an error shows. */
  private val ShownChars = 40
}
