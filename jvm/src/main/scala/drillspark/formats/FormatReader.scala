package drillspark.formats

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

import drillspark.source.input.InputFile

/**
 * One file format's reader, the Scala half of a Python format module (drillspark/formats/):
 * Drill's type name, the extensions Drill's default config gives it, the schema of a table's
 * files (on the driver) and the rows of one file (on an executor). A reader never sees
 * dirN or implicit columns: [[FormatTable]] adds them. It is made reachable by a
 * [[FormatSource]] subclass listed in META-INF/services/...DataSourceRegister.
 */
trait FormatReader extends Serializable {
  /** Drill's format type name, as a `formats` config or table function writes it (`avro`). */
  def typeName: String

  /** The file extensions of Drill's default config of this format (lower case, no dot). */
  def extensions: Seq[String]

  /** The columns of the table made of `files` (none empty-handed: an empty table may have none). */
  def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType

  /** The rows of one file in `schema` (as [[schema]] gave it, or a user's), values in Spark's
   * internal form. A bad record fails with [[FormatErrors.badData]] naming the file and place. */
  def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow]

  /** Whether `file` may be read in byte ranges ([[readRange]]) when it is larger than a split
   * (Spark's spark.sql.files.maxPartitionBytes rule); false: one input partition per file. */
  def splittable(file: InputFile, options: FormatOptions): Boolean = false

  /** The rows of split [start, end) of `file` (the records on the lines that start in it), for
   * a reader whose [[splittable]] says so. */
  def readRange(file: InputFile, start: Long, end: Long, options: FormatOptions, schema: StructType,
      conf: Configuration): Iterator[InternalRow] =
    if (start == 0L && (end < 0 || end >= file.length)) read(file, options, schema, conf)
    else throw new UnsupportedOperationException(s"$typeName format: ${file.path} is read whole, not from byte $start")
}

/** The errors a format reader raises: one paragraph naming the format, file and place. */
object FormatErrors {
  def badData(typeName: String, file: String, place: String, why: String): RuntimeException =
    drillspark.functions.DrillErrors.runtime(
      s"DATA_READ ERROR: $typeName format: cannot read $file${if (place.isEmpty) "" else s" ($place)"}: $why")

  def badConfig(typeName: String, why: String): IllegalArgumentException =
    new IllegalArgumentException(s"$typeName format: $why")

  /** A throwable's own message, else its class's simple name (no stack trace). */
  def describe(t: Throwable): String =
    Option(t.getMessage).map(_.trim).filter(_.nonEmpty).getOrElse(t.getClass.getSimpleName)
}
