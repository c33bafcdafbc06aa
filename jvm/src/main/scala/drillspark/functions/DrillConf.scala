package drillspark.functions

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.drillspark.compat.DrillConfCompat

/** drillspark's Spark confs (`spark.conf.set(key, value)`): every `spark.drillspark.*` key is
 * declared here and the extension reads them only through this object
 * (tests/foundation/test_options_declared.py checks both). Drill's own options (`store.json.*`,
 * ...) are not Spark confs: the Python side's options registry (drillspark.options) holds them,
 * and they reach the `drill` source as its options. */
object DrillConf {
  /** drill_flatten raises Drill SQL's error on a scalar or map instead of giving one row. */
  val FlattenStrict = "spark.drillspark.flatten.strict"

  /** The missing-column rule is on (default) for plans that read a Drill table. */
  val MissingColumnsEnabled = "spark.drillspark.missingColumns.enabled"

  /** Type of a missing column: `varchar` (Drill's JSON reader, default) or `int` (classic). */
  val MissingColumnsType = "spark.drillspark.missingColumns.type"

  /** A scan of one input partition plans no shuffle above it (compat's SinglePartitionScans;
   * default true: docs/scan.md). */
  val SinglePartitionScans = "spark.drillspark.singlePartitionScans"

  /** A global sort of an input AQE knows is small sorts it in one partition, without the range
   * exchange's sampling job (compat's SmallSorts; default true: docs/scan.md). */
  val SmallSorts = "spark.drillspark.smallSorts"

  /** A statement's ORDER BY ... LIMIT or LIMIT over one partition is collected in one job the
   * closure cleaner skips (compat's OnePartitionCollect; default true: docs/scan.md). */
  val OnePartitionCollect = "spark.drillspark.onePartitionCollect"

  /** A FLATTEN whose generated loop would buffer rows that grow with its array runs row by row
   * (compat's StreamingGenerates; default true: docs/functions.md). */
  val StreamingGenerates = "spark.drillspark.streamingGenerates"

  /** Such a statement over a small input of this extension's files (at most this many bytes;
   * 0 turns it off) runs its one task in the collecting thread on a local master, without a
   * Spark job (compat's LocalPartitionRun; docs/scan.md). */
  val LocalCollectBytes = "spark.drillspark.localCollectBytes"
  val LocalCollectBytesDefault: Long = 1L << 20

  /** Such a run builds its task's projections, orderings and predicates interpreted, not as
   * generated code (default true: building their code costs more than a small input's rows;
   * compat's LocalPartitionRun, docs/scan.md). */
  val LocalCollectInterpreted = "spark.drillspark.localCollectInterpreted"

  /** Of a shuffled join's inputs, the one likely small runs first, so AQE can broadcast it before
   * the other is shuffled (compat's BuildSideFirst; default true: docs/scan.md). */
  val BuildSideFirst = "spark.drillspark.buildSideFirst"

  /** Drill scans report their files' size to Spark's planner (source.input.ScanSize; default
   * true: docs/scan.md). */
  val ScanStatistics = "spark.drillspark.scanStatistics"

  /** Which scanner discovers a JSON file's schema, a diagnostic: fast, jackson or bytes (ScannerMode). */
  val DiscoveryScanner = "spark.drillspark.discoveryScanner"

  /** Which scanner reads a JSON split's rows, a diagnostic: fast, jackson or bytes (ScannerMode). */
  val ReadScanner = "spark.drillspark.readScanner"

  /** Read by the Python side only (spark/single_pass.py): records per file the one pass samples
   * (0 turns it off), and the table size below which a table is discovered in full. */
  val SinglePassSample = "spark.drillspark.singlePassSample"
  val SinglePassMinBytes = "spark.drillspark.singlePassMinBytes"

  /** Read by the Python side only (sql/temporary.py): Drill's boot option
   * drill.exec.default_temporary_workspace, the workspace CREATE TEMPORARY TABLE writes to
   * (`dfs.tmp` unless set; any writable workspace of a file plugin: docs/storage.md). */
  val DefaultTemporaryWorkspace = "spark.drillspark.defaultTemporaryWorkspace"

  /** Read by the Python side only (spark/plan_reuse.py): a SQL statement's translation is kept
   * while the local files it read are unchanged (default true; false translates every time). */
  val KeepTranslations = "spark.drillspark.keepTranslations"

  def flag(key: String, default: Boolean): Boolean =
    DrillConfCompat.get(key, default.toString).trim.equalsIgnoreCase("true")

  def string(key: String, default: String): String =
    DrillConfCompat.get(key, default).trim

  /** A whole number of `key`; a value that is not one is refused with the key's name. */
  def long(key: String, default: Long): Long = {
    val text = string(key, default.toString)
    text.toLongOption.getOrElse(throw new IllegalArgumentException(s"$key must be a whole number, not '$text'"))
  }

  /** `key` in `spark`'s conf (the session a scan is planned in). */
  def string(spark: SparkSession, key: String, default: String): String =
    spark.conf.get(key, default).trim
}
