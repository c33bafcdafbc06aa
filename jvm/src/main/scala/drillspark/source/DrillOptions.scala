package drillspark.source

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.types.{DataType, StringType, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.functions.DrillConf

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

/** Which scanner reads (Spark confs spark.drillspark.discoveryScanner and readScanner, a
 * diagnostic): the Jackson path only, the byte scanner handing anything unusual back to the
 * Jackson path (the default), or the byte scanner alone (a split it would hand back fails, so
 * tests see which inputs it handles). */
object ScannerMode {
  final val Jackson = 0
  final val Fast = 1
  final val BytesOnly = 2

  /** The mode named by Spark conf `key` (fast, jackson or bytes). */
  def apply(spark: org.apache.spark.sql.SparkSession, key: String): Int =
    DrillConf.string(spark, key, "fast").toLowerCase(Locale.ROOT) match {
      case "fast" => Fast
      case "jackson" => Jackson
      case "bytes" => BytesOnly
      case other => throw new IllegalArgumentException(s"drill: $key must be fast, jackson or bytes, not '$other'")
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
    exactSample: Boolean = false,
    schemaDdl: Option[String] = None,
    maxDepth: Int = 1000,
    maxSchemaDepth: Int = DrillOptions.DefaultSchemaDepth,
    maxColumns: Int = DrillOptions.DefaultMaxColumns,
    replaceInvalidUtf8: Boolean = false,
    splitFiles: Boolean = true,
    splitBytes: Long = -1L,
    discoveryParallelFiles: Int = 64,
    pushFilters: Boolean = true,
    countScan: Boolean = true,
    format: String = "json",
    sampledSchema: Option[StructType] = None,
    fileNulls: Map[String, Seq[String]] = Map.empty,
    fileUnseen: Map[String, Seq[String]] = Map.empty,
    readScanner: Int = ScannerMode.Fast,
    workspace: Option[String] = None,
    workspaceRoot: Option[String] = None,
    keepColumns: Option[Set[String]] = None) {
  // sampledSchema: set by DrillDataSource, not an option. With sampleRecords, the unpruned
  // data schema (provided columns typed NullType: not checked) against which the readers
  // refuse keys discovery never saw. readScanner: set by DrillScan from the Spark conf
  // spark.drillspark.readScanner (see ScannerMode), not an option either. fileNulls: set
  // by DrillDataSource, per file path the maps and arrays that file never gives a value
  // (Node.fileNullPaths), read NULL in its records; fileUnseen (exactSample, set likewise):
  // per file the array elements its sample saw none of (Node.unseenElementPaths). workspaceRoot (option, set by the dfs
  // catalog and drillspark.sql for a confined workspace named `workspace`): every file must
  // really lie below it, checked when the files are listed and again where each is opened.
  // keepColumns (option, a JSON array of names; drillspark.sql sets it from the names a
  // statement uses): the table has only the top-level columns so named (folded here); the
  // others are left out of its schema, so nobody pays for sending or analyzing a wide schema
  // they never read; None keeps every column. exactSample (option, with sampleRecords): the
  // sample's schema must be what reading every record would discover, so a key, a value's
  // kind or a map's first value the sample did not see fails with [[DrillOptions.SampleMisfit]]
  // (never converted, nor skipped), and the caller reads again without a sample
  // (drillspark's single pass, docs/scan.md).

  /** Whether the table keeps the top-level column `name` (see `keepColumns`). */
  def keeps(name: String): Boolean = keepColumns.forall(_(Names.fold(name)))

  /** The options that change whether a file reads and how many records it holds (part of the
   * record count cache key): not how values are typed. */
  def countKey: String = Seq[Any](nanInf, escapeAnyChar, maxDepth, replaceInvalidUtf8, skipInvalidRecords).mkString(",")

  /** These options without a sample: what a full discovery of the same files reads with. */
  def withoutSample: DrillOptions = copy(sampleRecords = -1L, exactSample = false)

  /** The options that change a file's discovered schema (part of the schema cache key). */
  def discoveryKey: String =
    Seq[Any](allTextMode, readNumbersAsDouble, nanInf, escapeAnyChar, extendedTypes, sampleRecords,
      exactSample, maxDepth, maxSchemaDepth, replaceInvalidUtf8, skipInvalidRecords).mkString(",")
}

object DrillOptions {
  val MinBatchBytes: Long = 256L * 1024
  /** Leads the message of an [[DrillOptions.exactSample]] read that met what its sample did
   * not see; drillspark's Python side (spark/storage/single_pass.py) matches it to read again. */
  val SampleMisfit: String = "SAMPLE_MISFIT"
  /** Field metadata of a top-level column of `sampledSchema` that the provided schema types:
   * the schema, not the sample, judges its values. */
  val ProvidedKey: String = "drill.provided"
  val MaxBatchRows: Int = 65536
  /** Jackson's nesting limit is an int; far beyond any real document. */
  val MaxDepth: Int = 1000000
  /** Maps and arrays nested deeper than `maxSchemaDepth` levels (the record is level 1) are
   * typed as their JSON text: Spark's analyzer, code generation and PySpark's row conversion
   * recurse once or more per level of a nested type, and a few hundred levels overflow a
   * thread's stack (which kills the SparkContext when it happens in a task). Measured: 200
   * levels still read and collect through PySpark, 250 do not; 100 leaves room for the
   * callers' own frames. */
  val DefaultSchemaDepth: Int = 100
  val MaxSchemaDepth: Int = 200
  /** Columns a scan may read before it is refused: Spark's planning of a DSv2 scan matches
   * every output attribute against the others (DataSourceStrategy.normalizeExprs), quadratic in
   * the columns: `SELECT *` over one object of 100,000 keys planned for over 10 minutes. At
   * 10,000 it takes seconds. */
  val DefaultMaxColumns: Int = 10000

  private def bool(m: CaseInsensitiveStringMap, k: String, d: Boolean): Boolean =
    Option(m.get(k)).map(_.trim.toLowerCase(Locale.ROOT)) match {
      case None => d
      case Some("true") => true
      case Some("false") => false
      case Some(v) => throw new IllegalArgumentException(s"drill: option $k must be true or false, not '$v'")
    }

  /** A byte size option: "4096", "256k", "16m", "16MiB", "1g". */
  private def size(m: CaseInsensitiveStringMap, k: String, d: Long): Long =
    Option(m.get(k)).map { v =>
      try parseBytes(v.trim) catch {
        case _: NumberFormatException | _: ArithmeticException => throw new IllegalArgumentException(
          s"drill: option $k must be a size in bytes (a whole number, optionally with k, m or g), not '$v'")
      }
    }.getOrElse(d)

  /** A count option: a whole number between `min` and `max` (no size suffixes). */
  private def count(m: CaseInsensitiveStringMap, k: String, d: Long, min: Long, max: Long): Long =
    Option(m.get(k)).map { v =>
      val n = try v.trim.toLong catch {
        case _: NumberFormatException =>
          throw new IllegalArgumentException(s"drill: option $k must be a whole number, not '$v'")
      }
      if (n < min || n > max) throw new IllegalArgumentException(
        s"drill: option $k must be between $min and $max, not $n")
      n
    }.getOrElse(d)

  private def parseBytes(v: String): Long = {
    val s = v.toLowerCase(Locale.ROOT).stripSuffix("ib").stripSuffix("b")
    val (num, mul) = s.lastOption match {
      case Some('k') => (s.dropRight(1), 1L << 10)
      case Some('m') => (s.dropRight(1), 1L << 20)
      case Some('g') => (s.dropRight(1), 1L << 30)
      case _ => (s, 1L)
    }
    Math.multiplyExact(num.trim.toLong, mul)
  }

  /** Options whose value is a JSON array of strings (reading with it is thread-safe). */
  private lazy val Json = new com.fasterxml.jackson.databind.ObjectMapper()

  def parsePaths(m: CaseInsensitiveStringMap): Seq[String] = {
    // Spark passes load(a, b) as a JSON array string
    val many = Option(m.get("paths")).toSeq.flatMap(js => Json.readValue(js, classOf[Array[String]]).toSeq)
    Option(m.get("path")).toSeq ++ many
  }

  /** Option `keepColumns`: a JSON array of top-level names, folded (see DrillOptions). */
  private def keptNames(m: CaseInsensitiveStringMap): Option[Set[String]] =
    Option(m.get("keepColumns")).map { js =>
      val names = try Json.readValue(js, classOf[Array[String]])
      catch {
        case _: com.fasterxml.jackson.core.JacksonException => null
      }
      if (names == null || names.contains(null)) throw new IllegalArgumentException(
        s"drill: option keepColumns must be a JSON array of column names, not '$js'")
      names.map(Names.fold).toSet
    }

  /** Drill's spellings of the JSON reader options (lower case) -> the source's name for each:
   * the table python/drillspark/rules/json_options.tsv, which the Python side reads too (plans'
   * and SQL's format configs), packed into the jar by tools/build_jar.py. */
  private[source] lazy val DrillSpellings: Map[String, String] =
    RulesTable.rows("json_options.tsv", 3)
      .flatMap(r => (r(0) +: r(1).split(",").toSeq).map(_.toLowerCase(Locale.ROOT) -> r(0))).toMap

  /** `options` with each Drill spelling also under the source's name, unless that is given too. */
  private def withSourceNames(options: CaseInsensitiveStringMap): CaseInsensitiveStringMap = {
    val out = new java.util.HashMap[String, String](options.asCaseSensitiveMap())
    options.asCaseSensitiveMap().asScala.foreach { case (k, v) =>
      DrillSpellings.get(k.toLowerCase(Locale.ROOT)).filterNot(options.containsKey).foreach(out.put(_, v))
    }
    new CaseInsensitiveStringMap(out)
  }

  def apply(options: CaseInsensitiveStringMap): DrillOptions = {
    val m = withSourceNames(options)
    val known = Set("path", "paths", "typeconflict", "nulltype", "batchrows", "batchbytes", "samplerecords",
      "exactsample", "maxdepth", "maxschemadepth", "maxcolumns", "invalidutf8", "splitfiles", "splitbytes", "discoveryparallelfiles",
      "pushfilters", "countscan", "format", "type", "workspace", "workspaceroot", "keepcolumns") ++ DrillSpellings.keySet
    m.keySet().asScala.map(_.toLowerCase(Locale.ROOT)).filterNot(known).toSeq.sorted.headOption
      .foreach(k => throw new IllegalArgumentException(
        s"drill: unknown option '$k'; see docs/scan.md for the options of the drill source"))
    val batchBytes = size(m, "batchBytes", 16L << 20)
    if (batchBytes < MinBatchBytes) throw new IllegalArgumentException(
      s"drill: option batchBytes must be at least 256 KiB ($MinBatchBytes), not $batchBytes")
    val splitBytes = size(m, "splitBytes", -1L)
    if (m.containsKey("splitBytes") && splitBytes < 1) throw new IllegalArgumentException(
      s"drill: option splitBytes must be at least 1 byte, not $splitBytes")
    val workspaceRoot = Option(m.get("workspaceRoot")).map(_.trim).filter(_.nonEmpty)
    if (workspaceRoot.exists(r => r.contains("://") && !r.startsWith("file:"))) throw new IllegalArgumentException(
      s"drill: option workspaceRoot confines local files only, not '${workspaceRoot.get}'")
    val utf8 = Option(m.get("invalidUtf8")).map(_.toLowerCase(Locale.ROOT)).getOrElse("error")
    if (utf8 != "error" && utf8 != "replace") throw new IllegalArgumentException(
      s"drill: option invalidUtf8 must be error or replace, not '$utf8'")
    val nullType = Option(m.get("nullType")).map { t =>
      try DataType.fromDDL(t) catch {
        case e: Exception => throw new IllegalArgumentException(
          s"drill: option nullType '$t' is not a type: ${e.getMessage.linesIterator.next()}")
      }
    }.getOrElse(StringType)
    val sampleRecords = count(m, "sampleRecords", -1L, 1, Long.MaxValue)
    val exactSample = bool(m, "exactSample", false)
    if (exactSample && sampleRecords < 0) throw new IllegalArgumentException(
      "drill: option exactSample needs sampleRecords (the sample it checks)")
    if (exactSample && bool(m, "extendedTypes", false)) throw new IllegalArgumentException(
      "drill: option exactSample cannot check extended types (extendedTypes): read without a sample")
    DrillOptions(
      paths = parsePaths(m),
      allTextMode = bool(m, "allTextMode", false),
      readNumbersAsDouble = bool(m, "readNumbersAsDouble", false),
      skipInvalidRecords = bool(m, "skipInvalidRecords", false),
      nanInf = bool(m, "nanInf", true),
      escapeAnyChar = bool(m, "escapeAnyChar", false),
      extendedTypes = bool(m, "extendedTypes", false),
      typeConflict = Option(m.get("typeConflict")).map(TypeConflict.parse).getOrElse(TypeConflict.Json),
      nullType = nullType,
      batchRows = count(m, "batchRows", 4096, 1, MaxBatchRows).toInt,
      batchBytes = batchBytes,
      sampleRecords = sampleRecords,
      exactSample = exactSample,
      schemaDdl = Option(m.get("schema")).filter(_.trim.nonEmpty),
      maxDepth = count(m, "maxDepth", 1000, 1, MaxDepth).toInt,
      maxSchemaDepth = count(m, "maxSchemaDepth", DefaultSchemaDepth, 1, MaxSchemaDepth).toInt,
      maxColumns = count(m, "maxColumns", DefaultMaxColumns, 1, Int.MaxValue).toInt,
      replaceInvalidUtf8 = utf8 == "replace",
      splitFiles = bool(m, "splitFiles", true),
      splitBytes = splitBytes,
      discoveryParallelFiles = count(m, "discoveryParallelFiles", 64, 1, Int.MaxValue).toInt,
      pushFilters = bool(m, "pushFilters", true),
      countScan = bool(m, "countScan", true),
      format = Option(m.get("format")).orElse(Option(m.get("type"))).getOrElse("json").toLowerCase(Locale.ROOT),
      workspace = workspaceRoot.map(r => Option(m.get("workspace")).map(_.trim).filter(_.nonEmpty).getOrElse(r)),
      workspaceRoot = workspaceRoot,
      keepColumns = keptNames(m))
  }
}
