package drillspark.source

import java.io.{BufferedInputStream, ByteArrayOutputStream, FilterInputStream, InputStream}

import com.fasterxml.jackson.core.{JsonFactory, JsonParser, JsonProcessingException, JsonStreamContext, JsonToken}
import org.apache.hadoop.conf.Configuration

/** Counts the bytes handed to the parser, so a restart after a bad record knows where it is. */
private final class CountingInputStream(in: InputStream) extends FilterInputStream(in) {
  var count: Long = 0L
  override def read(): Int = { val b = super.read(); if (b >= 0) count += 1; b }
  override def read(b: Array[Byte], off: Int, len: Int): Int = {
    val n = super.read(b, off, len); if (n > 0) count += n; n
  }
  override def skip(n: Long): Long = { val s = super.skip(n); count += s; s }
}

/**
 * The top-level records of one file, or of one line-aligned split of it: JSON lines,
 * concatenated objects, or one outer array of objects; positions the parser on each record's
 * START_OBJECT. A split [start, end) reads the records that begin in it: it skips the partial
 * line before its first newline and stops at the first record starting at or after `end`.
 * With skipInvalidRecords a bad record is counted and reading resumes at the next line.
 */
final class RecordStream(
    conf: Configuration, val file: String, start: Long, end: Long, o: DrillOptions, f: JsonFactory)
  extends AutoCloseable {

  private var in: InputStream = _
  private var counting: CountingInputStream = _
  var parser: JsonParser = _
  /** Absolute file offset of the parser's byte 0. */
  var base: Long = 0L
  private var arrayMode = false
  private var first = true
  private var recordParent: JsonStreamContext = _
  var skipped: Long = 0L
  var records: Long = 0L

  open()

  private def open(): Unit = {
    val from = if (start > 0) start - 1 else 0L
    val raw = new BufferedInputStream(JsonInput.open(conf, file, from), 1 << 16)
    base = from
    if (start > 0) base += skipLine(raw)
    start(raw)
  }

  private def start(stream: InputStream): Unit = {
    in = stream
    counting = new CountingInputStream(stream)
    parser = JsonInput.parser(f, counting, o)
  }

  /** Skip through the next newline; returns the bytes skipped. */
  private def skipLine(s: InputStream): Long = {
    var n = 0L
    var b = s.read()
    while (b >= 0 && b != '\n') { n += 1; b = s.read() }
    if (b >= 0) n + 1 else n
  }

  def where: String = JsonInput.where(file, parser, base)

  def fail(what: String, cause: Throwable = null): DrillScanException =
    JsonInput.error(file, parser, base, what + (if (start > 0) RecordCounter.SplitHint else ""), cause)

  /** Move to the next record's START_OBJECT; false at the end of the file or split. */
  def next(): Boolean = {
    checkRecordEnd()
    while (true) {
      val t = try parser.nextToken() catch {
        case e: JsonProcessingException => onBadRecord(e); null
      }
      if (t == null) {
        if (!recovering) return false
        recovering = false
      } else if (first && t == JsonToken.START_ARRAY && start == 0) {
        arrayMode = true
        first = false
      } else if (t == JsonToken.START_OBJECT) {
        first = false
        if (end >= 0 && base + parser.currentTokenLocation().getByteOffset >= end) return false
        recordParent = parser.getParsingContext.getParent
        val loc = parser.currentTokenLocation()
        recordStart = base + loc.getByteOffset
        recordLine = loc.getLineNr
        records += 1
        return true
      } else if (arrayMode && t == JsonToken.END_ARRAY && parser.getParsingContext.inRoot) {
        arrayMode = false
      } else {
        val what = s"expected a JSON object at the top level, found ${tokenText(t)}"
        if (o.skipInvalidRecords) { skipped += 1; skipRestOfLine() }
        else throw fail(what)
      }
    }
    false
  }

  private var recovering = false
  /** Absolute byte and parser line of the current record's START_OBJECT (line 0: none). */
  var recordStart: Long = -1L
  private var recordLine: Int = 0

  /** In a split, a record that crosses the split's end must lie on one line: otherwise the
   * file is not JSON lines after all and the next split started inside a record. */
  private def checkRecordEnd(): Unit = {
    if (end >= 0 && recordLine > 0 && parser.currentToken() == JsonToken.END_OBJECT &&
        (parser.getParsingContext eq recordParent)) {
      val loc = parser.currentTokenLocation()
      if (base + loc.getByteOffset >= end && loc.getLineNr != recordLine)
        throw RecordCounter.spansBoundary(file, recordStart, end)
    }
    recordLine = 0
  }

  private def tokenText(t: JsonToken): String = t match {
    case JsonToken.START_ARRAY => "an array"
    case JsonToken.END_ARRAY | JsonToken.END_OBJECT => s"'${t.asString}'"
    case _ => s"${t.toString.toLowerCase.replace("value_", "")} ${parser.getText}"
  }

  /** A syntax error in a record: fail, or (skipInvalidRecords) count it and resume at the
   * line after the one holding the error. */
  def onBadRecord(e: JsonProcessingException): Unit = {
    if (!o.skipInvalidRecords || o.replaceInvalidUtf8) throw fail(JsonInput.describe(e), e)
    skipped += 1
    val loc = e.getLocation
    val at = if (loc != null && loc.getByteOffset >= 0) base + loc.getByteOffset else -1L
    // inside a record, an error at a line's first byte means the line before was cut short:
    // resume at this line; at the top level the bad token is on this line: skip it
    val inRecord = parser.getParsingContext != null && !parser.getParsingContext.inRoot
    restartAfterLine(if (at > 0 && inRecord) at - 1 else at)
    recovering = true
    recordLine = 0
  }

  /** A value that does not fit its column (not a syntax error): skip to the record's end. */
  def skipRecord(): Unit = {
    skipped += 1
    try {
      while (parser.getParsingContext ne recordParent) {
        if (parser.nextToken() == null) return
      }
    } catch {
      case _: JsonProcessingException => restartAfterLine(-1L); recovering = true
    }
  }

  private def skipRestOfLine(): Unit = restartAfterLine(-1L)

  /** Reopen the file after the first newline at or after byte `from` (-1: the parser's position). */
  private def restartAfterLine(from: Long): Unit = {
    val pos = if (from >= 0) from else {
      val rest = new ByteArrayOutputStream()
      parser.releaseBuffered(rest)
      base + counting.count - rest.size()
    }
    parser.close()
    in.close()
    val compressed = JsonInput.compression(file).isDefined
    val raw = new BufferedInputStream(JsonInput.open(conf, file, if (compressed) 0L else pos), 1 << 16)
    if (compressed) raw.skipNBytes(pos)
    val before = base
    base = pos + skipLine(raw)
    // an error at the very start of the line this parser started on: that line itself is bad
    // (resuming at it again would loop forever), so skip it too
    if (base <= before && pos >= 0) base += skipLine(raw)
    start(raw)
    arrayMode = false
    first = false
  }

  /** Inside a file's outer array (records cannot be re-read from their offset there). */
  def inArray: Boolean = arrayMode

  /** Reopen at the current record's START_OBJECT (a record rejected early by a pushed filter
   * but revived by a later duplicate key is read again in full). */
  def reread(): Unit = {
    val at = recordStart
    parser.close()
    in.close()
    val compressed = JsonInput.compression(file).isDefined
    val raw = new BufferedInputStream(JsonInput.open(conf, file, if (compressed) 0L else at), 1 << 16)
    if (compressed) raw.skipNBytes(at)
    base = at
    start(raw)
    parser.nextToken()
    recordParent = parser.getParsingContext.getParent
    recordLine = parser.currentTokenLocation().getLineNr
    first = false
  }

  override def close(): Unit = {
    if (parser != null) parser.close()
    if (in != null) in.close()
  }
}
