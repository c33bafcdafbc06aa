package drillspark.formats.text

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.util.Locale

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, EvalMode, GenericInternalRow}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.{ArrayType, MetadataBuilder, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.formats.logs.LineInput
import drillspark.source.{ProvidedSchema, RulesTable}
import drillspark.source.input.{HeldPages, InputFile, InputFiles}
import drillspark.source.write.ColumnWriter

/** `spark.read.format("drill-text")`: csv, tsv, psv and other delimited text as Drill reads it. */
final class TextSource extends FormatSource {
  override def reader: FormatReader = TextFormat
}

/** One text config: Drill's `TextFormatConfig` keys, resolved for one file. */
final case class TextConfig(delimiter: String, quote: String, escape: String, comment: String,
    lineDelimiter: String, header: Boolean, skipFirstLine: Boolean) {
  /** Whether UTF-8 text may be split byte by byte, each byte read as one character
   * (ISO-8859-1): the delimiter, quote, escape, comment and line delimiter are ASCII, and no
   * byte of a multi-byte UTF-8 character is. */
  def bytewise: Boolean =
    delimiter.nonEmpty && Seq(delimiter, quote, escape, comment, lineDelimiter).forall(_.forall(_ < 0x80))
}

/**
 * Drill's `text` format, the one reader of both doors (Spark's `dfs` catalog and
 * `spark.read.format("drill-text")`, and drillspark.sql through formats/text.py): an empty
 * line is a record with no fields, a trailing delimiter adds an empty field, a line starting with the comment
 * character is skipped, a quote that does not end a quoted field stays as text. Without
 * `extractHeader` a record is one `columns` array of strings; with it the first record names
 * VARCHAR columns (cleaned as Drill cleans them), a field a short record lacks is '', and so
 * is a column another file's header has and this one's lacks. A file's
 * options not given are those of Drill's bootstrap config its extension selects ([[Named]], from
 * rules/text_formats.tsv: csv, csvh with a header, tsv, psv on *.tbl and *.psv). A large
 * uncompressed file is read in splits cut at line boundaries ([[SplitBytes]]), as Drill's
 * block-splittable text format; others whole. UTF-8 strictly (a byte that is not fails naming
 * the file, line and column).
 * A provided schema (`schema`: `inline=(a int, ...)` or the column list alone) types columns
 * by name with a header and by position without one; its columns come first, in its order;
 * an empty field of a typed column is NULL, a NOT NULL column's default fills a NULL.
 */
object TextFormat extends FormatReader {
  override val typeName = "text"
  /** Drill's bootstrap text configs by file extension: (fieldDelimiter, extractHeader), from the
   * table the Python side reads too (python/drillspark/rules/text_formats.tsv, in the jar):
   * the defaults a file of that extension gets through Spark's door. */
  val Named: Map[String, (String, Boolean)] = RulesTable.rows("text_formats.tsv", 5).flatMap {
    case Array(_, exts, also, delimiter, header) =>
      (exts.split(',') ++ also.split(',').filter(_ != "-")).map(e =>
        e.toLowerCase(Locale.ROOT) -> (unescape(delimiter), header.trim.equalsIgnoreCase("true")))
  }.toMap

  // the named configs' extensions, and the text type's own default (`txt`)
  override val extensions: Seq[String] = Named.keys.toSeq.sorted :+ "txt"

  /** The extension of a (possibly compressed) file's name, lower case. */
  def extensionOf(path: String): String = {
    var name = path.substring(path.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT)
    Seq(".gz", ".bz2", ".zip").find(name.endsWith).foreach(c => name = name.dropRight(c.length))
    val dot = name.lastIndexOf('.')
    if (dot < 0) "" else name.substring(dot + 1)
  }

  def config(o: FormatOptions, file: String): TextConfig = {
    val (delimiter, header) = Named.getOrElse(extensionOf(file), (",", false))
    def text(name: String, default: String): String = o.get(name).map(unescape).getOrElse(default)
    val d = o.get("fieldDelimiter").orElse(o.get("delimiter")).map(unescape).getOrElse(delimiter)
    if (d.isEmpty) throw FormatErrors.badConfig(typeName, "option 'fieldDelimiter' must not be empty")
    TextConfig(d.substring(0, 1), text("quote", "\""), text("escape", "\""), text("comment", "#"),
      text("lineDelimiter", "\n"), o.bool("extractHeader", header), o.bool("skipFirstLine", default = false))
  }

  private lazy val Escapes = Map('t' -> '\t', 'n' -> '\n', 'r' -> '\r', 'b' -> '\b', 'f' -> '\f', '\\' -> '\\',
    '\'' -> '\'', '"' -> '"')

  /** Java escapes in an option, as Drill reads them: `\t` a tab, `\u0009` too. */
  def unescape(s: String): String = if (!s.contains('\\')) s else {
    val out = new StringBuilder
    var i = 0
    while (i < s.length) {
      val c = s.charAt(i)
      val next = if (i + 1 < s.length) s.charAt(i + 1) else '\u0000'
      if (c == '\\' && Escapes.contains(next)) { out += Escapes(next); i += 2 }
      else if (c == '\\' && next == 'u' && i + 6 <= s.length &&
          s.substring(i + 2, i + 6).forall(ch => Character.digit(ch, 16) >= 0)) {
        out += Integer.parseInt(s.substring(i + 2, i + 6), 16).toChar; i += 6
      } else { out += c; i += 1 }
    }
    out.toString
  }

  /** Text with the config's line delimiter turned into `\n` (both end a line). */
  private def normal(source: String, c: TextConfig): String =
    if (c.lineDelimiter.isEmpty || c.lineDelimiter == "\n") source else source.replace(c.lineDelimiter, "\n")

  /** The records of one file's text, each its fields. With `limit` (a split's text: its owned
   * lines are its first `limit` characters) only records starting before it are given; `more`
   * hands further lines of the file when a record's quoted field runs past the text's end (a
   * line break inside quotes at a split's end): the record is parsed again over the longer text.
   * `bytes` are the UTF-8 the text was read from ([[decode]]): when they are its twin (as many
   * bytes as characters: ASCII, or UTF-8 read one byte per character under a
   * [[TextConfig.bytewise]] config) a field's value is a view of them, not a copy of its text
   * encoded again (a CSV scan's reader spent most of its time on those copies); a field not cut
   * from the twin of such a text is its characters' bytes. */
  def records(source: String, c0: TextConfig, limit: Int = -1, more: () => String = null,
      bytes: Array[Byte] = null): Iterator[Array[UTF8String]] = {
    val c = c0.copy(lineDelimiter = "\n")
    // text decoded from bytes under a bytewise config holds one character a byte (decode)
    val bytewise = bytes != null && c0.bytewise
    var text = normal(source, c0)
    var twin = if (bytes != null && (text eq source) && bytes.length == text.length) bytes else null
    var n = text.length
    val stop = if (limit < 0) Int.MaxValue else limit
    var i = 0
    var truncated = false // the last record's quoted field ran into the end of the text
    new Iterator[Array[UTF8String]] {
      private val fields = new Splitter(c.delimiter)
      private val quotes = new Finder(c.quote)
      private val quoting = if (c.quote.isEmpty) null else new Quoted(c.quote, c.escape, c.delimiter)
      /** The finders over the text from its start (the text grew, or is read again). */
      private def restart(): Unit = { fields.reset(text, twin, bytewise); quotes.reset(text) }
      // a quoted line's fields, gathered in one array kept across lines (a buffer's generic
      // toArray was a fifth of an all-quoted CSV scan); set before the first record is read
      private var cells = new Array[UTF8String](16)
      private var count = 0
      private def add(cell: UTF8String): Unit = {
        if (count == cells.length) cells = java.util.Arrays.copyOf(cells, count * 2)
        cells(count) = cell
        count += 1
      }
      private def gathered(): Array[UTF8String] = java.util.Arrays.copyOf(cells, count)
      private val unquoted = new Unquoted // a field read by Quoted.read
      restart()
      private var pending: Array[UTF8String] = advance()
      private def advance(): Array[UTF8String] = {
        while (i < n && i < stop && c.comment.nonEmpty && text.startsWith(c.comment, i)) {
          val j = text.indexOf('\n', i)
          i = if (j < 0) n else j + 1
        }
        if (i >= n || i >= stop) return null
        val start = i
        var record = parse()
        while (truncated && more != null && {
            val extra = more()
            // the longer text has no byte twin: its fields are encoded from it
            extra != null && extra.nonEmpty && { text = text + normal(extra, c0); n = text.length; twin = null; true }
          }) {
          i = start // read again from the record's start: the finders start again too
          restart()
          record = parse()
        }
        record
      }
      override def hasNext: Boolean = pending != null
      override def next(): Array[UTF8String] = { val r = pending; pending = advance(); r }

      private def parse(): Array[UTF8String] = {
        truncated = false
        val j = text.indexOf('\n', i)
        val end = if (j < 0) n else j
        if (c.quote.isEmpty || quotes.from(i) >= end) { // the common case: no quoting on this line
          val start = i
          i = if (j < 0) n else end + 1
          if (end == start) Array.empty[UTF8String] else fields.split(start, end)
        } else quoted()
      }

      private def quoted(): Array[UTF8String] = {
        count = 0
        val (q, d) = (c.quote, c.delimiter)
        while (true) {
          if (text.startsWith(q, i)) {
            val open = i + q.length
            val close = quoting.plainEnd(text, open)
            if (close >= 0) { add(fields.field(open, close)); i = quoting.next } // its text as it stands
            else {
              unquoted.reset(text, twin)
              i = quoting.read(text, open, unquoted)
              if (!quoting.closed) truncated = true
              add(unquoted.value(bytewise))
            }
          } else {
            val (atDelimiter, atLineEnd) = (text.indexOf(d, i), text.indexOf('\n', i))
            val end = if (atDelimiter < 0) { if (atLineEnd < 0) n else atLineEnd }
              else if (atLineEnd < 0) atDelimiter else math.min(atDelimiter, atLineEnd)
            add(fields.field(i, end))
            i = end
          }
          if (i >= n) { i = n; return gathered() }
          if (quoting.delimiterAt(text, i)) {
            i += d.length
            if (i >= n) { add(UTF8String.EMPTY_UTF8); return gathered() }
          } else { i += 1; return gathered() } // at the line's end
        }
        gathered()
      }
    }
  }

  /** A quoted field's text, read from just after its opening quote: the escape then the quote,
   * and with the quote as its own escape a doubled quote, are a quote; a quote followed by
   * neither the delimiter, a line's end nor the text's end (after any spaces and control
   * characters but `\n`, which Drill skips there: `"x"\r\n` ends a CRLF file's line, `"a"  ,b`
   * and `"a"\u0001,b` are `a`) is
   * text; the quote before one of those closes the field. */
  private[text] final class Quoted(q: String, esc: String, d: String) {
    /** Whether the last [[read]] met the field's closing quote (else the text ended first). */
    var closed = false
    /** Where the text goes on after the last field closed by [[plainEnd]] or [[read]]: past its
     * closing quote and the blanks skipped after it, at the delimiter, a line's end or the end. */
    var next = 0
    private val escaped = esc + q

    private val oneDelimiter = d.length == 1
    private val dc = if (oneDelimiter) d.charAt(0) else '\u0000'

    /** Whether the delimiter starts at `at` (one character compared as a character: a quoted
     * CSV scan asks at every field's end). */
    def delimiterAt(text: String, at: Int): Boolean =
      if (oneDelimiter) at < text.length && text.charAt(at) == dc else text.startsWith(d, at)

    /** Just after a quote at `at`: where the field's text goes on if that quote closes it (at
     * the delimiter, a line's end or the text's end, past blanks), else -1. */
    private def closing(text: String, at: Int): Int = {
      var j = at
      while (j < text.length && !delimiterAt(text, j) && { val ch = text.charAt(j); ch <= ' ' && ch != '\n' })
        j += 1
      if (j >= text.length || text.charAt(j) == '\n' || delimiterAt(text, j)) j else -1
    }

    /** Where the field opened at `open` closes when its text is the text as it stands (its
     * first quote closes it: no escape before it, no quote doubled): that quote's place, else
     * -1 (the field needs [[read]]). One-character quote and escape only. */
    def plainEnd(text: String, open: Int): Int = {
      if (q.length != 1 || esc.length != 1) return -1
      val close = text.indexOf(q.charAt(0), open)
      if (close < 0) return -1
      val afterEscape = esc != q && close > open && text.charAt(close - 1) == esc.charAt(0)
      val doubled = esc == q && text.startsWith(q, close + 1)
      if (afterEscape || doubled) return -1
      next = closing(text, close + 1)
      if (next < 0) -1 else close
    }

    /** The field's text from `open` into `out`, as the places of the text it is made of (a
     * quote a doubled or escaped quote stands for is the place of its last quote); the place
     * after its closing quote and the blanks skipped after it ([[next]]), or the text's end when it has none ([[closed]] false). A run
     * of characters that cannot start a quote or an escape is taken in one piece (read a
     * character at a time, a doubled quote a line cost a CSV scan a fifth of its time;
     * docs/performance.md). */
    def read(text: String, open: Int, out: Unquoted): Int = {
      val n = text.length
      var i = open
      closed = false
      while (!closed && i < n) {
        val run = plainRun(text, i)
        if (run > i) { out.take(i, run); i = run }
        else if (esc != q && text.startsWith(escaped, i)) { i += escaped.length; out.take(i - q.length, i) }
        else if (text.startsWith(q, i)) {
          val after = i + q.length
          if (esc == q && text.startsWith(q, after)) { out.take(after, after + q.length); i = after + q.length } // doubled
          else if ({ next = closing(text, after); next >= 0 }) { i = next; closed = true }
          else { out.take(i, after); i = after } // not the field's end: the quote is text
        } else { out.take(i, i + 1); i += 1 }
      }
      i
    }

    private val (qc, ec) = (q.charAt(0), if (esc.isEmpty) q.charAt(0) else esc.charAt(0))

    /** Where the run of characters from `i` ends: the first that starts the quote or the
     * escape, else the text's end. */
    private def plainRun(text: String, i: Int): Int = {
      val n = text.length
      var j = i
      while (j < n && { val ch = text.charAt(j); ch != qc && ch != ec }) j += 1
      j
    }
  }

  /** A field [[Quoted.read]] gives, made of pieces of the text it reads: the pieces' bytes
   * copied from the text's twin when it has one (byte k is character k: no string built and
   * encoded again), else its characters. Kept by a reader for its fields, one at a time. */
  private[text] final class Unquoted {
    private val chars = new java.lang.StringBuilder
    private var bytes = new Array[Byte](64)
    private var size = 0
    private var text = ""
    private var twin: Array[Byte] = null
    /** A new field of `text`, whose twin `bytes` may be null. */
    def reset(text: String, bytes: Array[Byte] = null): Unit = {
      this.text = text; twin = bytes; size = 0; chars.setLength(0)
    }
    /** The text's characters [from, to) next. */
    def take(from: Int, to: Int): Unit =
      if (twin == null) chars.append(text, from, to)
      else {
        val k = to - from
        if (size + k > bytes.length) bytes = java.util.Arrays.copyOf(bytes, math.max(bytes.length * 2, size + k))
        System.arraycopy(twin, from, bytes, size, k)
        size += k
      }
    /** The field as a value (`bytewise`: the text's characters are UTF-8 bytes). */
    def value(bytewise: Boolean): UTF8String =
      if (twin == null) TextFormat.value(chars.toString, bytewise)
      else UTF8String.fromBytes(java.util.Arrays.copyOf(bytes, size))
    override def toString: String = if (twin == null) chars.toString else new String(bytes, 0, size, StandardCharsets.ISO_8859_1)
  }

  /** Where `what` next occurs in a text read forward: the first place at or after the last
   * one asked for is kept, so a line's search for a character its lines lack (a quote, a
   * delimiter of a one-column file) does not scan the rest of the text again for every line.
   * Asked for places that never go back, else `reset`. */
  private[text] final class Finder(what: String) {
    private val one = what.length == 1
    private val ch = if (one) what.charAt(0) else '\u0000'
    private var t = ""
    private var found = -1 // at or after the last place asked; Int.MaxValue: none
    def text: String = t
    def reset(to: String): Unit = { t = to; found = -1 }
    def from(i: Int): Int = {
      if (found < i) {
        val j = if (one) t.indexOf(ch, i) else t.indexOf(what, i)
        found = if (j < 0) Int.MaxValue else j
      }
      found
    }
  }

  /** A line's fields between each `delimiter` (none dropped, trailing empty ones kept): what
   * `Pattern.split(line, -1)` over the quoted delimiter gives, cut straight from the text
   * without a regex or a copy of the line (a CSV scan's reader spent most of its time there;
   * docs/performance.md). Lines are asked for in the text's order, else `reset`. */
  private[text] final class Splitter(delimiter: String) {
    private val d = delimiter.length
    private val finder = new Finder(delimiter)
    private var cuts = new Array[Int](16)
    private var twin: Array[Byte] = null
    private var bytewise = false
    /** Over the text `t`; `bytes`, when not null, its twin (byte k is character k); `bytewise`:
     * the text's characters are UTF-8 bytes ([[records]]). */
    def reset(t: String, bytes: Array[Byte] = null, bytewise: Boolean = false): Unit = {
      finder.reset(t); twin = bytes; this.bytewise = bytewise
    }
    /** The text's characters [from, to) as a value: a view of the twin's bytes, or encoded. */
    def field(from: Int, to: Int): UTF8String =
      if (twin != null) UTF8String.fromBytes(twin, from, to - from)
      else value(finder.text.substring(from, to), bytewise)
    def split(start: Int, end: Int): Array[UTF8String] = {
      val text = finder.text
      if (d == 0) return text.substring(start, end).split("", -1).map(UTF8String.fromString)
      var k = 0
      var at = finder.from(start)
      while (at < end) {
        if (k == cuts.length) cuts = java.util.Arrays.copyOf(cuts, k * 2)
        cuts(k) = at
        k += 1
        at = finder.from(at + d)
      }
      val out = new Array[UTF8String](k + 1)
      var from = start
      var j = 0
      while (j < k) { out(j) = field(from, cuts(j)); from = cuts(j) + d; j += 1 }
      out(k) = field(from, end)
      out
    }
  }

  /** A field's text as a value: its characters' bytes when they are UTF-8 read one byte per character. */
  private def value(s: String, bytewise: Boolean): UTF8String =
    if (bytewise) UTF8String.fromBytes(s.getBytes(StandardCharsets.ISO_8859_1)) else UTF8String.fromString(s)

  /** A header field as Drill names its column: letters and digits kept, others `_`, `col_` in
   * front of a name not starting with a letter (`5200.5` is `col_5200_5`). */
  def cleanName(raw: String): String = {
    val name = raw.trim.map(ch => if (Character.isLetterOrDigit(ch)) ch else '_')
    if (name.nonEmpty && !Character.isLetter(name.charAt(0))) "col_" + name.dropWhile(_ == '_') else name
  }

  /** A header record's column names: cleaned, unique (case-insensitively, `<name>_2`), none empty. */
  def headerNames(record: Array[UTF8String]): Seq[String] = {
    val seen = mutable.Set[String]()
    record.toSeq.zipWithIndex.map { case (raw, k) =>
      val base = Some(cleanName(raw.toString)).filter(_.nonEmpty).getOrElse(s"column_${k + 1}")
      var name = base
      var m = 1
      while (seen.contains(name.toLowerCase(Locale.ROOT))) { m += 1; name = s"${base}_$m" }
      seen += name.toLowerCase(Locale.ROOT)
      name
    }
  }

  /** A file as errors name it: its name alone, never where the table lies on this machine
   * (a server's user sees the message). */
  private def shown(file: InputFile): String =
    if (HeldPages.isPage(file.path)) HeldPages.shown(file.path) else new org.apache.hadoop.fs.Path(file.path).getName

  /** A file's records, its text read UTF-8 strictly: a byte that is not fails naming the file,
   * line and column. */
  private def fileRecords(file: InputFile, c: TextConfig, conf: Configuration): Iterator[Array[UTF8String]] = {
    val bytes = {
      val in = try LineInput.open(file, conf) catch {
        case e: java.io.IOException => throw FormatErrors.badData(typeName, file.path, "", FormatErrors.describe(e))
      }
      try {
        val out = new ByteArrayOutputStream()
        in.transferTo(out)
        out.toByteArray
      } finally in.close()
    }
    records(decode(bytes, file, 0L, c.bytewise), c, bytes = bytes)
  }

  /** Bytes of `file` from byte `offset` as text, UTF-8 strictly: a byte that is not fails naming
   * the file and its place (line and column from the file's start; the byte alone past it).
   * `bytewise` ([[TextConfig.bytewise]]): UTF-8 text is read one byte per character. */
  private def decode(bytes: Array[Byte], file: InputFile, offset: Long, bytewise: Boolean): String = {
    // ASCII (most CSV) is its own text, and so is other UTF-8 split byte by byte: copied, not
    // decoded to UTF-16 and compressed back
    if (isAscii(bytes) || (bytewise && isUtf8(bytes))) return new String(bytes, StandardCharsets.ISO_8859_1)
    val decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
    try decoder.decode(ByteBuffer.wrap(bytes)).toString
    catch {
      case _: CharacterCodingException =>
        val at = firstBad(bytes)
        val place = if (offset > 0) s"file ${shown(file)}" else {
          val before = new String(bytes, 0, at, StandardCharsets.UTF_8)
          val line = before.count(_ == '\n') + 1
          val column = before.length - before.lastIndexOf('\n')
          s"file ${shown(file)} line $line, column $column"
        }
        val hex = bytes.slice(at, badRunEnd(bytes, at)).map(b => f"${b & 0xff}%02X").mkString(" ")
        throw FormatErrors.badData(typeName, place, s"byte ${offset + at}",
          s"the bytes $hex (hex) are not UTF-8; text files are read as UTF-8: convert the file " +
            "(e.g. iconv -f latin1 -t utf-8)")
    }
  }

  /** Whether a file may be read in splits cut at line boundaries, as Drill's text format is
   * block-splittable: uncompressed, lines ending in `\n` (or `\r\n`). */
  override def splittable(file: InputFile, o: FormatOptions): Boolean = {
    val c = config(o, file.path)
    !HeldPages.isPage(file.path) && !InputFiles.isCompressed(file) &&
      Seq("", "\n", "\r\n").contains(c.lineDelimiter)
  }

  /**
   * The bytes of split [start, end) of a file by Hadoop's line rule, Drill's too: its lines are
   * those whose first byte lies in it, the first one just past the first newline at or after
   * start - 1 (the file's first byte for start 0), the last one ending at the first newline at
   * or after end - 1; [[more]] gives the lines after them, for a record whose quoted field
   * holds a line break and runs on.
   */
  private final class SplitBytes(file: InputFile, start: Long, end: Long, conf: Configuration) extends AutoCloseable {
    private val in = {
      val p = new org.apache.hadoop.fs.Path(file.path)
      val raw = try p.getFileSystem(conf).open(p) catch {
        case e: java.io.IOException => throw FormatErrors.badData(typeName, file.path, "", FormatErrors.describe(e))
      }
      if (start > 0) raw.seek(start - 1)
      new java.io.BufferedInputStream(raw, 1 << 16)
    }
    private var pos = if (start > 0) start - 1 else 0L
    private var eof = false

    private def byte(): Int = {
      val b = in.read()
      if (b < 0) eof = true else pos += 1
      b
    }

    /** Through the next newline (or the file's end), into `out`. */
    private def toNewline(out: ByteArrayOutputStream): Unit = {
      var b = 0
      while (!eof && b != '\n') { b = byte(); if (b >= 0 && out != null) out.write(b) }
    }

    if (start > 0) toNewline(null)
    /** The file offset of the split's first line. */
    val first: Long = pos

    /** The split's own lines (none when its first line starts past end - 1). */
    def owned(): Array[Byte] = {
      val out = new ByteArrayOutputStream(math.max(0L, math.min(end - first + 256, Int.MaxValue - 8)).toInt)
      if (first < end && !eof) {
        val buf = new Array[Byte](1 << 16)
        var left = end - 1 - first
        while (left > 0 && !eof) {
          val k = in.read(buf, 0, math.min(left, buf.length.toLong).toInt)
          if (k < 0) eof = true else { out.write(buf, 0, k); pos += k; left -= k }
        }
        toNewline(out)
      }
      out.toByteArray
    }

    /** At least 64 KiB more of the file (or its rest), through a newline; empty at its end. */
    def more(): Array[Byte] = {
      val out = new ByteArrayOutputStream(1 << 16)
      while (!eof && out.size() < (1 << 16)) toNewline(out)
      out.toByteArray
    }

    override def close(): Unit = in.close()
  }

  /** The records of a split: its text, its owned lines' length, what runs on after them. */
  private def splitRecords(file: InputFile, start: Long, end: Long, c: TextConfig,
      conf: Configuration): (Iterator[Array[UTF8String]], Long, AutoCloseable) = {
    val bytes = new SplitBytes(file, start, end, conf)
    try {
      val first = bytes.first
      val owned = bytes.owned()
      val text = decode(owned, file, first, c.bytewise)
      var at = first + owned.length
      val more = () => {
        val b = bytes.more()
        val t = decode(b, file, at, c.bytewise)
        at += b.length
        t
      }
      (records(text, c, normal(text, c).length, more, owned), first, bytes)
    } catch { case e: Throwable => bytes.close(); throw e }
  }

  /** Whether every byte is ASCII: their high bits, eight bytes at a time. */
  private[text] def isAscii(bytes: Array[Byte]): Boolean = {
    val words = ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    var high = 0L
    var i = 0
    while (i + 8 <= bytes.length) { high |= words.getLong(i); i += 8 }
    while (i < bytes.length) { high |= bytes(i); i += 1 } // a byte above 0x7F is negative: all high bits
    (high & 0x8080808080808080L) == 0
  }

  /** Whether the bytes are well-formed UTF-8 as the strict decoder takes it (Unicode's table
   * 3-7: no overlong form, no surrogate, nothing past U+10FFFF); ASCII eight bytes at a time. */
  private[text] def isUtf8(bytes: Array[Byte]): Boolean = {
    val words = ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    val n = bytes.length
    def within(k: Int, lo: Int, hi: Int): Boolean = k < n && { val b = bytes(k) & 0xff; b >= lo && b <= hi }
    var i = 0
    while (i < n) {
      if (i + 8 <= n && (words.getLong(i) & 0x8080808080808080L) == 0) i += 8
      else if (bytes(i) >= 0) i += 1
      else {
        val lead = bytes(i) & 0xff
        val length =
          if (lead >= 0xc2 && lead <= 0xdf) 2
          else if (lead >= 0xe0 && lead <= 0xef) 3
          else if (lead >= 0xf0 && lead <= 0xf4) 4
          else return false
        // the second byte's range narrows after E0, ED, F0 and F4
        val (lo, hi) = lead match {
          case 0xe0 => (0xa0, 0xbf)
          case 0xed => (0x80, 0x9f)
          case 0xf0 => (0x90, 0xbf)
          case 0xf4 => (0x80, 0x8f)
          case _ => (0x80, 0xbf)
        }
        val rest = (length < 3 || within(i + 2, 0x80, 0xbf)) && (length < 4 || within(i + 3, 0x80, 0xbf))
        if (!within(i + 1, lo, hi) || !rest) return false
        i += length
      }
    }
    true
  }

  /** The end of the run of bytes from `at` that start no UTF-8 character (a few at most). */
  private def badRunEnd(bytes: Array[Byte], at: Int): Int = {
    def startsCharacter(k: Int): Boolean = {
      val lead = bytes(k) & 0xff
      val n = if (lead < 0x80) 1 else if (lead >= 0xc2 && lead <= 0xdf) 2 else if (lead >= 0xe0 && lead <= 0xef) 3
        else if (lead >= 0xf0 && lead <= 0xf4) 4 else 0
      n > 0 && k + n <= bytes.length && (1 until n).forall(j => (bytes(k + j) & 0xc0) == 0x80)
    }
    var end = at + 1
    while (end < bytes.length && end - at < 16 && !startsCharacter(end)) end += 1
    end
  }

  /** The offset of the first byte that does not decode as UTF-8. */
  private def firstBad(bytes: Array[Byte]): Int = {
    val decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
    val in = ByteBuffer.wrap(bytes)
    val out = java.nio.CharBuffer.allocate(bytes.length + 1)
    decoder.decode(in, out, true)
    in.position()
  }

  /** A file's first record (its header): from its first 64 KiB when it may be split, so a
   * large file is not read whole on the driver nor by every split; else from its whole text. */
  private def firstRecord(file: InputFile, o: FormatOptions, c: TextConfig, conf: Configuration): Option[Array[UTF8String]] =
    if (!splittable(file, o) || file.length <= HeaderBytes) fileRecords(file, c, conf).nextOption()
    else {
      val (rows, _, open) = splitRecords(file, 0L, HeaderBytes, c, conf)
      try rows.nextOption() finally open.close()
    }.orElse(if (file.length > HeaderBytes) fileRecords(file, c, conf).nextOption() else None)

  private val HeaderBytes = 1L << 16

  private def header(file: InputFile, o: FormatOptions, conf: Configuration): Seq[String] = {
    val c = config(o, file.path)
    firstRecord(file, o, c, conf).map(headerOf(file, _, c, conf)).getOrElse(Nil)
  }

  /** The names of a file's header record. An empty header line names none: Drill refuses such a
   * file, whose rows would otherwise be read as no columns at all (an empty file has none). */
  private def headerOf(file: InputFile, record: Array[UTF8String], c: TextConfig, conf: Configuration): Seq[String] =
    if (record.isEmpty) throw FormatErrors.badData(typeName, shown(file), s"line ${headerLine(file, c, conf)}",
      "the file must define at least one header, and its header line is empty")
    else headerNames(record)

  /** The line of a file's header (for an error only): after a skipped first line and the
   * comment lines before it, counted in the file's first 64 KiB. */
  private def headerLine(file: InputFile, c: TextConfig, conf: Configuration): Int = {
    val in = LineInput.open(file, conf)
    val head = try in.readNBytes(HeaderBytes.toInt) finally in.close()
    val lines = new String(head, StandardCharsets.UTF_8).split("\n", -1).iterator
    val skipped = if (c.skipFirstLine && lines.hasNext) { lines.next(); 1 } else 0
    skipped + lines.takeWhile(l => c.comment.nonEmpty && l.startsWith(c.comment)).size + 1
  }

  /** Marks a VARCHAR column of a text table: drillspark.sql reads a column missing beside
   * only such columns as '' (spark/scope.py TEXT_COLUMN), as Drill's text reader does. */
  private val TextMark = new MetadataBuilder().putBoolean("drill.text", value = true).build()

  private def textField(name: String, nullable: Boolean): StructField =
    StructField(name, StringType, nullable, TextMark)

  private val Inline = """(?is)^\s*inline\s*=\s*\((.*)\)\s*$""".r

  /** The provided schema of option `schema` (`inline=(a int not null default '0', b varchar)`,
   * or the column list alone), Drill's type names read by [[ProvidedSchema]]; a NOT NULL column
   * without a default stays nullable (an empty field has no value to give it). */
  def provided(o: FormatOptions): Option[StructType] = o.get("schema").map(_.trim).filter(_.nonEmpty).map { s =>
    val ddl = s match {
      case Inline(body) => body
      case other if other.toLowerCase(Locale.ROOT).startsWith("inline") => throw FormatErrors.badConfig(typeName,
        s"schema '$s' is not of the form inline=(name type, ...)")
      case other => other
    }
    val fields = try ProvidedSchema.parseDdl(ddl, notNullNeedsDefault = false).fields catch {
      case e: IllegalArgumentException => throw FormatErrors.badConfig(typeName, FormatErrors.describe(e).stripPrefix("drill: "))
    }
    StructType(fields.map { f =>
      val keep = !f.nullable && f.metadata.contains(ColumnWriter.DefaultKey)
      val typed = if (f.dataType == StringType) f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata)
        .withMetadata(TextMark).build()) else f
      typed.copy(nullable = !keep)
    })
  }

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val providedSchema = provided(options).getOrElse(StructType(Nil))
    val withHeader = files.filter(f => config(options, f.path).header)
    if (withHeader.isEmpty) {
      if (providedSchema.nonEmpty) providedSchema
      else StructType(Seq(StructField("columns", ArrayType(StringType, containsNull = false), nullable = true, TextMark)))
    } else {
      val headers = withHeader.map { f =>
        val h = header(f, options, conf)
        h.map(_.toLowerCase(Locale.ROOT)) -> h
      }
      val names = mutable.LinkedHashMap[String, String]()
      headers.foreach(_._2.foreach(n => names.getOrElseUpdate(n.toLowerCase(Locale.ROOT), n)))
      val typed = providedSchema.fieldNames.map(_.toLowerCase(Locale.ROOT)).toSet
      // a header column is NOT NULL: a short record, or a file whose header lacks the column,
      // fills '' (Drill 1.22), unless an empty value is NULL (trimValues)
      val trim = options.bool(TrimValues, default = false)
      StructType(providedSchema.fields ++ names.toSeq.filterNot(n => typed(n._1)).map { case (_, n) =>
        textField(n, nullable = trim)
      })
    }
  }

  /** A provided column's value from its field's text (null: the record lacks the field). */
  private final class Typed(f: StructField, file: String) {
    private val cast = if (f.dataType == StringType) None
      else Some(Cast(BoundReference(0, StringType, nullable = true), f.dataType, Some("UTC"), EvalMode.TRY))
    private val fill: Any =
      if (f.metadata.contains(ColumnWriter.DefaultKey))
        convert(UTF8String.fromString(f.metadata.getString(ColumnWriter.DefaultKey)), 0L)
      else null

    private def convert(text: UTF8String, record: Long): Any = cast match {
      case None => text
      case Some(c) =>
        val v = c.eval(InternalRow(text))
        if (v == null) throw FormatErrors.badData(typeName, file, s"record $record, column ${f.name}",
          s"'$text' cannot be read as ${f.dataType.sql} (the provided schema's type)")
        v
    }

    def apply(text: UTF8String, record: Long): Any =
      if (text == null || (cast.nonEmpty && text.numBytes == 0)) fill else convert(text, record)
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] =
    rowsOf(file, options, schema, conf, None)

  override def readRange(file: InputFile, start: Long, end: Long, options: FormatOptions, schema: StructType,
      conf: Configuration): Iterator[InternalRow] = rowsOf(file, options, schema, conf, Some((start, end)))

  /** The rows of a file, or of a split of it: a split past the file's first line takes its
   * header from the file's first record (as Drill's reader does for every split), and neither
   * skips a first line nor takes one as a header itself. */
  private def rowsOf(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration,
      range: Option[(Long, Long)]): Iterator[InternalRow] = {
    val c = config(options, file.path)
    val providedSchema = provided(options)
    val (rows, first, open) = range match {
      case Some((start, end)) => splitRecords(file, start, end, c, conf)
      case None => (fileRecords(file, c, conf), 0L, null)
    }
    val starts = first == 0L
    val width = schema.size
    val trim = options.bool(TrimValues, default = false)
    // a record of a later split is counted from that split's first line
    val where = if (starts) shown(file) else s"${shown(file)} from byte $first"
    val typed: Array[Typed] = schema.fields.map { f =>
      providedSchema.flatMap(_.fields.find(_.name.equalsIgnoreCase(f.name))).map(p => new Typed(p, where)).orNull
    }
    val out = if (c.header) {
      val names = if (!starts) header(file, options, conf) else if (rows.hasNext) headerOf(file, rows.next(), c, conf) else Nil
      val index = schema.fieldNames.map(_.toLowerCase(Locale.ROOT)).zipWithIndex.toMap
      val at = names.map(n => index.getOrElse(n.toLowerCase(Locale.ROOT), -1)).toArray
      // a header column of the table this file's header lacks is '' in Drill, as a short record's
      val headerColumn = schema.fields.map(_.metadata.contains("drill.text"))
      var record = if (starts) 1L else 0L
      rows.map { rec =>
        record += 1
        val text = new Array[UTF8String](width)
        var k = 0
        while (k < at.length) {
          if (at(k) >= 0) text(at(k)) = if (k < rec.length) rec(k) else UTF8String.EMPTY_UTF8
          k += 1
        }
        val out = new Array[Any](width)
        k = 0
        while (k < width) {
          out(k) = if (typed(k) != null) typed(k)(text(k), record)
            else if (text(k) == null) { if (trim || !headerColumn(k)) null else UTF8String.EMPTY_UTF8 }
            else if (trim) trimmed(text(k)) else text(k)
          k += 1
        }
        new GenericInternalRow(out)
      }
    } else {
      val skip = starts && c.skipFirstLine
      if (skip && rows.hasNext) rows.next()
      providedSchema match {
        case Some(p) => // by position: the provided schema's n-th column is the record's n-th field
          val position = schema.fieldNames.map(n => p.fieldNames.indexWhere(_.equalsIgnoreCase(n)))
          var record = if (skip) 1L else 0L
          rows.map { rec =>
            record += 1
            val out = new Array[Any](width)
            var k = 0
            while (k < width) {
              val at = position(k)
              out(k) = typed(k)(if (at >= 0 && at < rec.length) rec(at) else null, record)
              k += 1
            }
            new GenericInternalRow(out)
          }
        case None =>
          rows.map { rec =>
            val values = new Array[Any](rec.length)
            var k = 0
            while (k < rec.length) { values(k) = rec(k); k += 1 }
            new GenericInternalRow(Array[Any](new GenericArrayData(values)))
          }
      }
    }
    if (open == null) out else new Closing(out, open)
  }

  /** The http plugin's CSV values (Drill 1.22's http reader: univocity's ignoreLeading /
   * ignoreTrailingWhitespaces, no nullValue): spaces around a value dropped, an empty value
   * NULL. Read with a header only; no file format config sets it. */
  val TrimValues = "trimValues"

  private def trimmed(s: UTF8String): UTF8String = {
    val t = s.trim() // spaces (ASCII 32) alone, as before
    if (t.numBytes == 0) null else t
  }

  /** A split's rows, closing its file when Spark's reader closes them. */
  private final class Closing(rows: Iterator[InternalRow], open: AutoCloseable) extends Iterator[InternalRow]
      with AutoCloseable {
    override def hasNext: Boolean = rows.hasNext
    override def next(): InternalRow = rows.next()
    override def close(): Unit = open.close()
  }
}
