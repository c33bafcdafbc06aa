package drillspark.formats.logs

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-ltsv")`: Labeled Tab-separated Values files as Drill reads them. */
final class LtsvSource extends FormatSource {
  override def reader: FormatReader = LtsvFormat
}

/**
 * Drill's `ltsv` format (contrib/format-ltsv): each line is `label:value` entries separated by
 * tabs (`entryDelimiter`, `kvDelimiter` change them); every label is a VARCHAR column. Drill
 * puts a line's labels in a Java HashMap, so the columns come in that map's order, line after
 * line (a later line's new labels after the earlier ones): the same order here. An entry with no
 * delimiter is skipped, and a line with no entry is no row (Drill's `lenient` mode; Drill 1.22
 * answers the same in `strict`).
 */
object LtsvFormat extends FormatReader {
  override val typeName = "ltsv"
  override val extensions: Seq[String] = Seq("ltsv")

  private def delimiter(o: FormatOptions, name: String, default: String): String =
    o.get(name).filter(v => v.nonEmpty && v != "null").getOrElse(default)

  /** A line's entries in Drill's column order (a java.util.HashMap's). */
  private def entries(line: String, entry: String, kv: String): java.util.HashMap[String, String] = {
    val m = new java.util.HashMap[String, String]()
    line.split(java.util.regex.Pattern.quote(entry), -1).foreach { e =>
      val at = e.indexOf(kv)
      if (at > 0) m.put(e.substring(0, at), e.substring(at + kv.length))
    }
    m
  }

  private def rows(file: InputFile, o: FormatOptions, conf: Configuration): Iterator[java.util.HashMap[String, String]] = {
    val entry = delimiter(o, "entryDelimiter", "\t")
    val kv = delimiter(o, "kvDelimiter", ":")
    LineInput.lines(this, file, conf).map(l => entries(l.text, entry, kv)).filterNot(_.isEmpty)
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
