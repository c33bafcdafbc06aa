package drillspark.formats.logs

import java.time.{LocalDate, LocalDateTime, LocalTime, ZoneOffset}
import java.time.format.DateTimeFormatterBuilder
import java.time.temporal.ChronoField
import java.util.Locale
import java.util.regex.{Matcher, Pattern, PatternSyntaxException}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-logregex")`: log files cut into columns by a regex, as Drill does. */
final class LogRegexSource extends FormatSource {
  override def reader: FormatReader = LogRegexFormat
}

/** One `schema` entry of a logRegex config: Drill's `fieldName`, `fieldType`, `format`. */
final case class LogField(name: String, drillType: String, format: Option[String])

/**
 * Drill's `logRegex` format (contrib/format-log): each line that the `regex` matches whole is a
 * row, one column per capturing group, named and typed by `schema` (`fieldName`, `fieldType`
 * VARCHAR by default, `format` for DATE, TIME and TIMESTAMP; groups past the schema are
 * VARCHAR `field_N`); without a schema the groups are one VARCHAR array `columns`. Two special
 * columns come only when asked for: `_raw` (the matched line) and `_unmatched_rows` (a line
 * the regex missed; asking for it makes those lines rows). More than `maxErrors` (10) lines the
 * regex misses fail the read at the line reaching the limit (Drill fails at count = maxErrors);
 * a value its type refuses fails at once, naming the column, value, file and line.
 */
object LogRegexFormat extends FormatReader {
  override val typeName = "logRegex"
  override val extensions: Seq[String] = Nil // Drill ships no logRegex config: `extension` names it

  val Raw = "_raw"
  val Unmatched = "_unmatched_rows"
  val Columns = "columns"
  val DefaultMaxErrors = 10

  /** Drill's minor types the log reader takes, and their Spark types. */
  private val Types: Map[String, DataType] = Map(
    "VARCHAR" -> StringType, "INT" -> IntegerType, "BIGINT" -> LongType, "FLOAT4" -> FloatType,
    "FLOAT8" -> DoubleType, "DATE" -> DateType, "TIME" -> TimeType(3), "TIMESTAMP" -> TimestampNTZType)

  private val Json = new ObjectMapper()

  def pattern(o: FormatOptions): Pattern = {
    val regex = o.get("regex").filter(_.nonEmpty).getOrElse(throw FormatErrors.badConfig(typeName,
      "no 'regex' given: a logRegex format needs a Java regular expression with one capturing group per column"))
    try Pattern.compile(regex)
    catch {
      case e: PatternSyntaxException => throw FormatErrors.badConfig(typeName,
        s"option 'regex' is not a valid Java regular expression: ${e.getDescription} near index ${e.getIndex} of $regex")
    }
  }

  /** The `schema` option: a JSON array of {fieldName, fieldType, format} as Drill's config has it. */
  def fields(o: FormatOptions): Seq[LogField] = o.get("schema").map(_.trim).filter(s => s.nonEmpty && s != "null") match {
    case None => Nil
    case Some(text) =>
      val node = try Json.readTree(text) catch {
        case NonFatal(e) => throw FormatErrors.badConfig(typeName, s"option 'schema' is not a JSON list: ${FormatErrors.describe(e)}")
      }
      if (!node.isArray) throw FormatErrors.badConfig(typeName, "option 'schema' must be a list of {fieldName, fieldType, format}")
      node.elements().asScala.zipWithIndex.map { case (f, i) =>
        def text(k: String): Option[String] = Option(f.get(k)).filterNot(_.isNull).map(_.asText()).filter(_.nonEmpty)
        val name = text("fieldName").getOrElse(throw FormatErrors.badConfig(typeName, s"schema entry ${i + 1} has no fieldName"))
        val kind = text("fieldType").map(_.trim.toUpperCase(Locale.ROOT)).getOrElse("VARCHAR")
        if (!Types.contains(kind)) throw FormatErrors.badConfig(typeName, s"schema field '$name' has fieldType " +
          s"'$kind', which is not one of Drill's log reader types (${Types.keys.toSeq.sorted.mkString(", ")})")
        LogField(name, kind, text("format"))
      }.toSeq
  }

  /** The data columns of a config: the schema's fields (and `field_N` past them), else `columns`. */
  def dataSchema(o: FormatOptions): StructType = {
    val groups = pattern(o).matcher("").groupCount()
    val declared = fields(o)
    if (declared.isEmpty) StructType(Seq(StructField(Columns, ArrayType(StringType, containsNull = true), nullable = true)))
    else StructType((0 until groups).map { i =>
      declared.lift(i).fold(StructField(s"field_$i", StringType, nullable = true))(f =>
        StructField(f.name, Types(f.drillType), nullable = true))
    })
  }

  /** The special columns, in Drill's order. */
  val specialColumns: Seq[StructField] = Seq(StructField(Raw, StringType), StructField(Unmatched, StringType))

  /** The data columns, then the special ones option `metadataColumns` names (the Python door
   * passes those a query names, as Drill shows them only then). */
  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val asked = options.get("metadataColumns").toSeq.flatMap(_.split(',')).map(_.trim).filter(_.nonEmpty)
    asked.filterNot(a => specialColumns.exists(_.name.equalsIgnoreCase(a))).foreach(a => throw FormatErrors.badConfig(
      typeName, s"unknown metadata column '$a' (known: ${specialColumns.map(_.name).mkString(", ")})"))
    StructType(dataSchema(options).fields ++ specialColumns.filter(s => asked.exists(_.equalsIgnoreCase(s.name))))
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val regex = pattern(options)
    val own = dataSchema(options)
    val declared = fields(options)
    val maxErrors = options.int("maxErrors", DefaultMaxErrors)
    val slots: Array[Slot] = schema.fields.map { f =>
      if (f.name.equalsIgnoreCase(Raw)) RawSlot
      else if (f.name.equalsIgnoreCase(Unmatched)) UnmatchedSlot
      else if (declared.isEmpty && f.name.equalsIgnoreCase(Columns)) ColumnsSlot
      else own.fieldNames.indexWhere(_.equalsIgnoreCase(f.name)) match {
        case -1 => NullSlot
        case i => GroupSlot(i + 1, own(i).name, declared.lift(i).map(_.drillType).getOrElse("VARCHAR"),
          converter(own(i).dataType, declared.lift(i).flatMap(_.format)))
      }
    }
    val keepsUnmatched = slots.contains(UnmatchedSlot)
    val lines = LineInput.lines(this, file, conf)
    var errors = 0
    new Iterator[InternalRow] with AutoCloseable {
      private var pending: InternalRow = _
      override def hasNext: Boolean = {
        while (pending == null && lines.hasNext) pending = row(lines.next())
        pending != null
      }
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException("no more rows")
        val r = pending
        pending = null
        r
      }
      override def close(): Unit = lines.close()

      private def row(line: NumberedLine): InternalRow = {
        val m = regex.matcher(line.text)
        if (!m.matches()) {
          errors += 1
          if (errors >= maxErrors) throw FormatErrors.badData(typeName, file.path, s"line ${line.number}",
            s"Too many errors. Max error threshold exceeded: $errors lines do not match the regex (maxErrors " +
              s"$maxErrors); this one is: ${clip(line.text)}")
          if (!keepsUnmatched) null
          else new GenericInternalRow(slots.map[Any] {
            case UnmatchedSlot => UTF8String.fromString(line.text)
            case _ => null
          })
        } else new GenericInternalRow(slots.map[Any](value(_, m, line)))
      }

      private def value(slot: Slot, m: Matcher, line: NumberedLine): Any = slot match {
        case RawSlot => UTF8String.fromString(line.text)
        case UnmatchedSlot | NullSlot => null
        case ColumnsSlot => new GenericArrayData((1 to m.groupCount()).map(g => Option(m.group(g)).map(UTF8String.fromString).orNull).toArray[Any])
        case GroupSlot(g, name, drillType, convert) =>
          val text = m.group(g)
          if (text == null) null
          else try convert(text) catch {
            case NonFatal(_) => throw FormatErrors.badData(typeName, file.path, s"line ${line.number}",
              s"Illegal conversion: Column `$name` of type $drillType, Illegal value `${clip(text)}`")
          }
      }
    }
  }

  private def clip(s: String): String = if (s.length <= 200) s else s.take(200) + "..."

  private sealed trait Slot
  private case object RawSlot extends Slot
  private case object UnmatchedSlot extends Slot
  private case object ColumnsSlot extends Slot
  private case object NullSlot extends Slot
  private final case class GroupSlot(group: Int, name: String, drillType: String, convert: String => Any) extends Slot

  /** A group's text to the column's value in Spark's internal form; blank is null but for VARCHAR. */
  private def converter(t: DataType, format: Option[String]): String => Any = {
    def blank(f: String => Any): String => Any = s => { val v = s.trim; if (v.isEmpty) null else f(v) }
    lazy val pattern = format.map(p => new DateTimeFormatterBuilder().appendPattern(p)
      .parseDefaulting(ChronoField.HOUR_OF_DAY, 0).toFormatter(Locale.ROOT))
    t match {
      case StringType => UTF8String.fromString
      case IntegerType => blank(_.toInt)
      case LongType => blank(_.toLong)
      case FloatType => blank(_.toFloat)
      case DoubleType => blank(_.toDouble)
      case DateType => blank(s => pattern.fold(LocalDate.parse(s))(p => LocalDate.parse(s, p)).toEpochDay.toInt)
      case _: TimeType => blank { s =>
        val n = pattern.fold(LocalTime.parse(s))(p => LocalTime.parse(s, p)).toNanoOfDay
        n - n % 1000000L
      }
      case TimestampNTZType => blank { s =>
        val t = pattern.fold(LocalDateTime.parse(s.replace(' ', 'T')))(p => LocalDateTime.parse(s, p))
        val micros = t.toEpochSecond(ZoneOffset.UTC) * 1000000L + t.getNano / 1000
        micros - Math.floorMod(micros, 1000L) // Drill's TIMESTAMP holds milliseconds
      }
      case other => throw new IllegalStateException(s"no log conversion to $other")
    }
  }
}
