package drillspark.formats.text

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, MalformedInputException, StandardCharsets}
import java.util.Locale

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.{ArrayType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.formats.logs.LineInput
import drillspark.source.input.InputFile

/** `spark.read.format("drill-text")`: csv, tsv, psv and other delimited text as Drill reads it. */
final class TextSource extends FormatSource {
  override def reader: FormatReader = TextFormat
}

/** One text config: Drill's `TextFormatConfig` keys, resolved for one file. */
final case class TextConfig(delimiter: String, quote: String, escape: String, comment: String,
    lineDelimiter: String, header: Boolean, skipFirstLine: Boolean)

/**
 * Drill's `text` format for Spark's door (drillspark.sql reads it with the Python reader of
 * drillspark/formats/text_reader.py, by the same rules): an empty line is a record with no
 * fields, a trailing delimiter adds an empty field, a line starting with the comment
 * character is skipped, a quote that does not end a quoted field stays as text. Without
 * `extractHeader` a record is one `columns` array of strings; with it the first record names
 * VARCHAR columns (cleaned as Drill cleans them), a field a short record lacks is ''. A file's
 * options not given are those of Drill's bootstrap config its extension selects (formats/text.py
 * NAMED: csv, csvh with a header, tsv, psv on *.tbl; drillspark reads *.psv alike). Files are
 * read whole, UTF-8 strictly (a byte that is not fails naming the file, line and column).
 */
object TextFormat extends FormatReader {
  override val typeName = "text"
  override val extensions: Seq[String] = Seq("csv", "csvh", "tsv", "tbl", "psv", "txt")

  /** Drill's bootstrap text configs by file extension: (fieldDelimiter, extractHeader). */
  val Named: Map[String, (String, Boolean)] = Map(
    "csv" -> (",", false), "csvh" -> (",", true), "tsv" -> ("\t", false), "tbl" -> ("|", false),
    "psv" -> ("|", false))

  /** The extension of a (possibly compressed) file's name, lower case. */
  def extensionOf(path: String): String = {
    var name = path.substring(path.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT)
    Seq(".gz", ".bz2", ".zip").find(name.endsWith).foreach(c => name = name.dropRight(c.length))
    val dot = name.lastIndexOf('.')
    if (dot < 0) "" else name.substring(dot + 1)
  }

  def config(o: FormatOptions, file: String): TextConfig = {
    if (o.get("schema").exists(_.trim.nonEmpty)) throw FormatErrors.badConfig(typeName,
      "a provided schema (option 'schema') is read through drillspark.sql only, not Spark's door yet")
    val (delimiter, header) = Named.getOrElse(extensionOf(file), (",", false))
    def text(name: String, default: String): String = o.get(name).map(unescape).getOrElse(default)
    val d = o.get("fieldDelimiter").orElse(o.get("delimiter")).map(unescape).getOrElse(delimiter)
    if (d.isEmpty) throw FormatErrors.badConfig(typeName, "option 'fieldDelimiter' must not be empty")
    TextConfig(d.substring(0, 1), text("quote", "\""), text("escape", "\""), text("comment", "#"),
      text("lineDelimiter", "\n"), o.bool("extractHeader", header), o.bool("skipFirstLine", default = false))
  }

  private val Escapes = Map('t' -> '\t', 'n' -> '\n', 'r' -> '\r', 'b' -> '\b', 'f' -> '\f', '\\' -> '\\',
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

  /** The records of one file's text, each its fields. */
  def records(source: String, c0: TextConfig): Iterator[Array[String]] = {
    val (text, c) =
      if (c0.lineDelimiter.isEmpty || c0.lineDelimiter == "\n") (source, c0.copy(lineDelimiter = "\n"))
      else (source.replace(c0.lineDelimiter, "\n"), c0.copy(lineDelimiter = "\n")) // both end a line
    val n = text.length
    var i = 0
    new Iterator[Array[String]] {
      private var pending: Array[String] = advance()
      private def advance(): Array[String] = {
        while (i < n && c.comment.nonEmpty && text.startsWith(c.comment, i)) {
          val j = text.indexOf('\n', i)
          i = if (j < 0) n else j + 1
        }
        if (i >= n) return null
        val j = text.indexOf('\n', i)
        val end = if (j < 0) n else j
        val line = text.substring(i, end)
        if (c.quote.isEmpty || !line.contains(c.quote)) { // the common case: no quoting on this line
          i = if (j < 0) n else end + 1
          if (line.isEmpty) Array.empty[String] else line.split(java.util.regex.Pattern.quote(c.delimiter), -1)
        } else quoted(text, c)
      }
      override def hasNext: Boolean = pending != null
      override def next(): Array[String] = { val r = pending; pending = advance(); r }

      private def quoted(text: String, c: TextConfig): Array[String] = {
        val fields = mutable.ArrayBuffer[String]()
        val (q, esc, d) = (c.quote, c.escape, c.delimiter)
        while (true) {
          if (text.startsWith(q, i)) {
            i += q.length
            val buf = new StringBuilder
            var open = true
            while (open && i < n) {
              if (esc != q && text.startsWith(esc + q, i)) { buf ++= q; i += esc.length + q.length }
              else if (text.startsWith(q, i)) {
                val after = i + q.length
                if (esc == q && text.startsWith(q, after)) { buf ++= q; i = after + q.length } // doubled
                else if (after >= n || text.startsWith(d, after) || text.startsWith("\n", after)) { i = after; open = false }
                else { buf ++= q; i = after } // not the field's end: the quote is text
              } else { buf += text.charAt(i); i += 1 }
            }
            fields += buf.toString
          } else {
            val ends = Seq(text.indexOf(d, i), text.indexOf('\n', i)).filter(_ >= 0)
            val end = if (ends.isEmpty) n else ends.min
            fields += text.substring(i, end)
            i = end
          }
          if (i >= n) { i = n; return fields.toArray }
          if (text.startsWith(d, i)) {
            i += d.length
            if (i >= n) { fields += ""; return fields.toArray }
          } else { i += 1; return fields.toArray } // at the line's end
        }
        fields.toArray
      }
    }
  }

  /** A header field as Drill names its column: letters and digits kept, others `_`, `col_` in
   * front of a name not starting with a letter (`5200.5` is `col_5200_5`). */
  def cleanName(raw: String): String = {
    val name = raw.trim.map(ch => if (Character.isLetterOrDigit(ch)) ch else '_')
    if (name.nonEmpty && !Character.isLetter(name.charAt(0))) "col_" + name.dropWhile(_ == '_') else name
  }

  /** A header record's column names: cleaned, unique (case-insensitively, `<name>_2`), none empty. */
  def headerNames(record: Array[String]): Seq[String] = {
    val seen = mutable.Set[String]()
    record.toSeq.zipWithIndex.map { case (raw, k) =>
      val base = Some(cleanName(raw)).filter(_.nonEmpty).getOrElse(s"column_${k + 1}")
      var name = base
      var m = 1
      while (seen.contains(name.toLowerCase(Locale.ROOT))) { m += 1; name = s"${base}_$m" }
      seen += name.toLowerCase(Locale.ROOT)
      name
    }
  }

  /** A file's text, UTF-8 strictly: a byte that is not fails naming the file, line and column. */
  private def content(file: InputFile, conf: Configuration): String = {
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
    val decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
    try decoder.decode(ByteBuffer.wrap(bytes)).toString
    catch {
      case e: CharacterCodingException =>
        val at = firstBad(bytes)
        val before = new String(bytes, 0, at, StandardCharsets.UTF_8)
        val line = before.count(_ == '\n') + 1
        val column = before.length - before.lastIndexOf('\n')
        val bad = e match { case m: MalformedInputException => m.getInputLength; case _ => 1 }
        val hex = bytes.slice(at, at + bad).map(b => f"${b & 0xff}%02X").mkString(" ")
        throw FormatErrors.badData(typeName, file.path, s"line $line, column $column, byte $at",
          s"the bytes $hex (hex) are not UTF-8; text files are read as UTF-8: convert the file " +
            "(e.g. iconv -f latin1 -t utf-8)")
    }
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

  private def header(file: InputFile, o: FormatOptions, conf: Configuration): Seq[String] = {
    val c = config(o, file.path)
    records(content(file, conf), c).nextOption().map(headerNames).getOrElse(Nil)
  }

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val withHeader = files.filter(f => config(options, f.path).header)
    if (withHeader.isEmpty) StructType(Seq(StructField("columns", ArrayType(StringType, containsNull = false))))
    else {
      val headers = withHeader.map { f =>
        val h = header(f, options, conf)
        h.map(_.toLowerCase(Locale.ROOT)) -> h
      }
      val names = mutable.LinkedHashMap[String, String]()
      headers.foreach(_._2.foreach(n => names.getOrElseUpdate(n.toLowerCase(Locale.ROOT), n)))
      // a column is NOT NULL when every file's header has it (a short record fills '')
      StructType(names.toSeq.map { case (low, n) =>
        StructField(n, StringType, nullable = !headers.forall(_._1.contains(low)))
      })
    }
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val c = config(options, file.path)
    val rows = records(content(file, conf), c)
    if (c.header) {
      val names = if (rows.hasNext) headerNames(rows.next()) else Nil
      val index = schema.fieldNames.map(_.toLowerCase(Locale.ROOT)).zipWithIndex.toMap
      val at = names.map(n => index.getOrElse(n.toLowerCase(Locale.ROOT), -1)).toArray
      rows.map { rec =>
        val out = new Array[Any](schema.size)
        var k = 0
        while (k < at.length) {
          if (at(k) >= 0) out(at(k)) = UTF8String.fromString(if (k < rec.length) rec(k) else "")
          k += 1
        }
        new GenericInternalRow(out)
      }
    } else {
      if (c.skipFirstLine && rows.hasNext) rows.next()
      rows.map(rec => new GenericInternalRow(Array[Any](new GenericArrayData(rec.map(UTF8String.fromString(_): Any)))))
    }
  }
}
