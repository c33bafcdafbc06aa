package drillspark.source

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/** What to do with a path that is a scalar in some records and a struct or array in others. */
object TypeConflict extends Enumeration {
  val Json, Variant, Error = Value
  def parse(s: String): Value = s.toLowerCase(Locale.ROOT) match {
    case "json" => Json
    case "variant" => Variant
    case "error" => Error
    case other => throw new IllegalArgumentException(
      s"drill: option typeConflict must be json, variant or error, not '$other'")
  }
}

/**
 * Every option of the `drill` source, parsed once on the driver and shipped to the readers.
 * Names follow Drill's JSON format config (allTextMode, readNumbersAsDouble, ...).
 */
final case class DrillOptions(
    paths: Seq[String],
    allTextMode: Boolean = false,
    readNumbersAsDouble: Boolean = false,
    skipInvalidRecords: Boolean = false,
    nanInf: Boolean = true,
    escapeAnyChar: Boolean = false,
    extendedTypes: Boolean = false,
    typeConflict: TypeConflict.Value = TypeConflict.Json,
    nullType: DataType = StringType,
    batchRows: Int = 4096,
    batchBytes: Long = 16L << 20,
    sampleRecords: Long = -1L,
    schemaDdl: Option[String] = None,
    maxDepth: Int = 1000,
    replaceInvalidUtf8: Boolean = false,
    splitFiles: Boolean = true,
    splitBytes: Long = -1L,
    discoveryParallelFiles: Int = 64,
    pushFilters: Boolean = true,
    countScan: Boolean = true,
    format: String = "json") {

  /** The options that change a file's discovered schema (part of the schema cache key). */
  def discoveryKey: String =
    Seq(allTextMode, readNumbersAsDouble, nanInf, escapeAnyChar, extendedTypes, sampleRecords,
      maxDepth, replaceInvalidUtf8, skipInvalidRecords).mkString(",")
}

object DrillOptions {
  val MinBatchBytes: Long = 256L * 1024
  val MaxBatchRows: Int = 65536

  private def bool(m: CaseInsensitiveStringMap, k: String, d: Boolean): Boolean =
    Option(m.get(k)).map(_.trim.toLowerCase(Locale.ROOT)) match {
      case None => d
      case Some("true") => true
      case Some("false") => false
      case Some(v) => throw new IllegalArgumentException(s"drill: option $k must be true or false, not '$v'")
    }

  private def long(m: CaseInsensitiveStringMap, k: String, d: Long): Long =
    Option(m.get(k)).map { v =>
      try parseBytes(v.trim) catch {
        case _: NumberFormatException =>
          throw new IllegalArgumentException(s"drill: option $k must be a number, not '$v'")
      }
    }.getOrElse(d)

  /** "4096", "1m", "16MiB", "256k" */
  private def parseBytes(v: String): Long = {
    val s = v.toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "")
    val (num, mul) = s.lastOption match {
      case Some('k') => (s.dropRight(1), 1L << 10)
      case Some('m') => (s.dropRight(1), 1L << 20)
      case Some('g') => (s.dropRight(1), 1L << 30)
      case _ => (s, 1L)
    }
    num.trim.toLong * mul
  }

  def parsePaths(m: CaseInsensitiveStringMap): Seq[String] = {
    val many = Option(m.get("paths")).toSeq.flatMap { js =>
      // Spark passes load(a, b) as a JSON array string
      val mapper = new com.fasterxml.jackson.databind.ObjectMapper()
      mapper.readValue(js, classOf[Array[String]]).toSeq
    }
    Option(m.get("path")).toSeq ++ many
  }

  def apply(m: CaseInsensitiveStringMap): DrillOptions = {
    val known = Set("path", "paths", "alltextmode", "readnumbersasdouble", "skipinvalidrecords",
      "skipmalformedjsonrecords", "naninf", "escapeanychar", "extendedtypes", "typeconflict",
      "nulltype", "batchrows", "batchbytes", "samplerecords", "schema", "maxdepth", "invalidutf8",
      "splitfiles", "splitbytes", "discoveryparallelfiles", "pushfilters", "countscan", "format", "type")
    m.keySet().asScala.map(_.toLowerCase(Locale.ROOT)).filterNot(known).toSeq.sorted.headOption
      .foreach(k => throw new IllegalArgumentException(
        s"drill: unknown option '$k'; see docs/scan.md for the options of the drill source"))
    val batchBytes = long(m, "batchBytes", 16L << 20)
    if (batchBytes < MinBatchBytes) throw new IllegalArgumentException(
      s"drill: option batchBytes must be at least 256 KiB ($MinBatchBytes), not $batchBytes")
    val batchRows = long(m, "batchRows", 4096).toInt
    if (batchRows < 1 || batchRows > MaxBatchRows) throw new IllegalArgumentException(
      s"drill: option batchRows must be between 1 and $MaxBatchRows, not $batchRows")
    val utf8 = Option(m.get("invalidUtf8")).map(_.toLowerCase(Locale.ROOT)).getOrElse("error")
    if (utf8 != "error" && utf8 != "replace") throw new IllegalArgumentException(
      s"drill: option invalidUtf8 must be error or replace, not '$utf8'")
    val nullType = Option(m.get("nullType")).map { t =>
      try DataType.fromDDL(t) catch {
        case e: Exception => throw new IllegalArgumentException(
          s"drill: option nullType '$t' is not a type: ${e.getMessage.linesIterator.next()}")
      }
    }.getOrElse(StringType)
    DrillOptions(
      paths = parsePaths(m),
      allTextMode = bool(m, "allTextMode", false),
      readNumbersAsDouble = bool(m, "readNumbersAsDouble", false),
      skipInvalidRecords = bool(m, "skipInvalidRecords", bool(m, "skipMalformedJSONRecords", false)),
      nanInf = bool(m, "nanInf", true),
      escapeAnyChar = bool(m, "escapeAnyChar", false),
      extendedTypes = bool(m, "extendedTypes", false),
      typeConflict = Option(m.get("typeConflict")).map(TypeConflict.parse).getOrElse(TypeConflict.Json),
      nullType = nullType,
      batchRows = batchRows,
      batchBytes = batchBytes,
      sampleRecords = long(m, "sampleRecords", -1L),
      schemaDdl = Option(m.get("schema")).filter(_.trim.nonEmpty),
      maxDepth = long(m, "maxDepth", 1000).toInt,
      replaceInvalidUtf8 = utf8 == "replace",
      splitFiles = bool(m, "splitFiles", true),
      splitBytes = long(m, "splitBytes", -1L),
      discoveryParallelFiles = long(m, "discoveryParallelFiles", 64).toInt,
      pushFilters = bool(m, "pushFilters", true),
      countScan = bool(m, "countScan", true),
      format = Option(m.get("format")).orElse(Option(m.get("type"))).getOrElse("json").toLowerCase(Locale.ROOT))
  }
}
