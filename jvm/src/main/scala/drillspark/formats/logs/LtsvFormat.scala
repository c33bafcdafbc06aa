package drillspark.formats.logs

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-ltsv")`: Labeled Tab-separated Values files as Drill reads them. */
final class LtsvSource extends FormatSource {
  override def reader: FormatReader = LtsvFormat
}

/**
 * Drill's `ltsv` format (contrib/format-ltsv): each line is `label:value` entries separated by
 * tabs (`entryDelimiter`, `kvDelimiter` change them); every label is a VARCHAR column. Drill
 * puts a line's labels in a Java HashMap, so the columns come in that map's order, line after
 * line (a later line's new labels after the earlier ones): the same order here. As Drill 1.22
 * answers: a label runs to the first `kvDelimiter`, so in `lenient` mode an entry without one
 * joins the next entry's label (`novalue<TAB>a:6` is the column `novalue<TAB>a`), and in
 * `strict` mode it fails the read naming the line ("Key without a value"); the value runs to
 * the next entry delimiter (it may hold `:`); labels and values are trimmed (blanks and control
 * characters), an empty value is NULL but a blank one ''; a repeated label keeps
 * its last value; a label left without a value at the end of a line is dropped, and a line
 * with no entry is no row.
 */
object LtsvFormat extends FormatReader {
  override val typeName = "ltsv"
  override val extensions: Seq[String] = Seq("ltsv")

  private def delimiter(o: FormatOptions, name: String, default: String): String =
    o.get(name).filter(v => v.nonEmpty && v != "null").getOrElse(default)

  /** A line's entries in Drill's column order (a java.util.HashMap's). */
  private def entries(line: NumberedLine, entry: String, kv: String, strict: Boolean, path: String)
      : java.util.HashMap[String, String] = {
    val m = new java.util.HashMap[String, String]()
    val text = line.text
    var at = 0
    while (at < text.length) {
      var colon = text.indexOf(kv, at)
      val tab = text.indexOf(entry, at)
      if (strict && tab >= 0 && (colon < 0 || tab < colon))
        throw FormatErrors.badData(typeName, path, s"line ${line.number}",
          s"Key without a value: the entry delimiter at column ${tab + 1} ends an entry without '$kv' (parseMode strict)")
      if (colon < 0) at = text.length // a label with no value at the end of the line: dropped
      else {
        val label = text.substring(at, colon)
        colon += kv.length
        val end = text.indexOf(entry, colon) match { case -1 => text.length case e => e }
        val value = text.substring(colon, end)
        // Drill trims label and value after testing them for emptiness: ` k : v ` is k = 'v',
        // `k:<blanks>` is k = '' and a blank label the column ''
        if (label.nonEmpty) m.put(label.trim, if (value.isEmpty) null else value.trim)
        at = if (end == text.length) end else end + entry.length
      }
    }
    m
  }

  private def rows(file: InputFile, o: FormatOptions, conf: Configuration): Iterator[java.util.HashMap[String, String]] = {
    val entry = delimiter(o, "entryDelimiter", "\t")
    val kv = delimiter(o, "kvDelimiter", ":")
    val strict = o.string("parseMode", "lenient").trim.equalsIgnoreCase("strict")
    LineInput.lines(this, file, conf).map(l => entries(l, entry, kv, strict, file.path)).filterNot(_.isEmpty)
  }

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val names = mutable.LinkedHashSet.empty[String]
    files.foreach(f => rows(f, options, conf).foreach(m => names ++= m.keySet().asScala))
    StructType(names.toSeq.map(StructField(_, StringType)))
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val names = schema.fieldNames
    rows(file, options, conf).map { m =>
      new GenericInternalRow(names.map[Any](n => Option(m.get(n)).map(UTF8String.fromString).orNull))
    }
  }
}
