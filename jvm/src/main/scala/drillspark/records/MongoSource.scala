package drillspark.records

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.{Batch, Scan, ScanBuilder, SupportsPushDownAggregates, SupportsPushDownFilters, SupportsPushDownLimit, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.{DataSourceRegister, Filter}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.source.{DrillDataSource, DrillJsonTable, DrillScanBuilder, LoadsOnce}
import drillspark.source.discovery.{Node, SchemaDiscovery}
import drillspark.source.input.{HeldPages, InputFile}

/**
 * The `drill-mongo` source: `spark.read.format("drill-mongo").option("paths", pages)` over the
 * pages [[MongoPages.plan]] cut a collection into (`table`: its name in EXPLAIN). The schema is
 * the `drill` reader's, discovered over every page (fetched in Spark tasks); a scan then asks
 * the server only for what the query needs ([[MongoScanBuilder]]). Used from
 * drillspark/spark/storage/mongo.py.
 */
final class MongoDataSource extends LoadsOnce[MongoTable] with DataSourceRegister {
  override def shortName(): String = "drill-mongo"

  override protected def resolve(options: CaseInsensitiveStringMap, schema: Option[StructType]): MongoTable =
    MongoDataSource.resolve(options)
}

object MongoDataSource {
  def resolve(options: CaseInsensitiveStringMap): MongoTable = {
    val m = new util.HashMap[String, String]()
    options.asCaseSensitiveMap().asScala.foreach { case (k, v) => if (!Own(k)) m.put(k, v) }
    // documents are Extended JSON; each page its own task, discovered by a Spark job: the
    // documents are fetched by executors only
    m.put("extendedTypes", "true"); m.put("splitBytes", "1"); m.put("discoveryParallelFiles", "1")
    val inner = DrillDataSource.resolve(new CaseInsensitiveStringMap(m), None)
    // the pages' merged schema tree, from discovery's cache (what types each field held)
    val (root, _) = SchemaDiscovery.discoverFiles(SparkSession.active, inner.files, inner.options)
    // Drill's pluginOptimizations: what may be asked of the server (all, unless turned off)
    val push = Own.filter(_.endsWith("Pushdown")).filter(k => !"false".equalsIgnoreCase(options.get(k)))
    new MongoTable(Option(options.get("table")).getOrElse(inner.name()), inner, root, push)
  }

  /** This source's own options (not the `drill` reader's): the table's name in EXPLAIN, and
   * which push-downs Drill's `pluginOptimizations` leaves on. */
  val Own: Set[String] = Set("table", "filterPushdown", "projectPushdown", "limitPushdown", "aggregatePushdown")
}

/** A collection's pages, their discovered schema and type tree. */
final class MongoTable(val tableName: String, val inner: DrillJsonTable, val root: Node, val push: Set[String])
  extends Table with SupportsRead with drillspark.DrillTable {
  override def name(): String = tableName
  override def schema(): StructType = inner.schema()
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)
  override def newScanBuilder(o: CaseInsensitiveStringMap): ScanBuilder = new MongoScanBuilder(this)
}

/**
 * Spark's filters, columns and limit, pushed into the server's find where MongoDB answers as
 * the reader would ([[MongoQuery]]); Spark still checks every filter over what comes back, so
 * the answer is the one without push-down. COUNT(*) of a whole collection is the `drill`
 * reader's (the record counts discovery already took). A scan that pushes nothing reads the
 * very pages discovery read (kept in this JVM, not fetched again).
 */
final class MongoScanBuilder(table: MongoTable) extends ScanBuilder with SupportsPushDownRequiredColumns
  with SupportsPushDownFilters with SupportsPushDownLimit with SupportsPushDownAggregates {

  private val whole = new DrillScanBuilder(table.inner)
  private var required: StructType = table.schema()
  private var all: Array[Filter] = Array.empty
  private var server: (String, Seq[Filter]) = ("", Nil)
  private var limit = 0
  private var counted = false
  private var aggregate: Option[MongoAggregate.Plan] = None

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    all = filters
    whole.pushFilters(filters)
    val o = table.inner.options
    // under allTextMode / readNumbersAsDouble the reader's values are not the documents' own
    if (table.push("filterPushdown") && !o.allTextMode && !o.readNumbersAsDouble)
      server = MongoQuery.filters(table.root, filters.toSeq)
    filters
  }

  override def pushedFilters(): Array[Filter] = server._2.toArray

  /** Only reached when no filter stays above the scan (Spark's rule): each page's find takes
   * the limit, Spark's LIMIT the rest. */
  override def pushLimit(n: Int): Boolean = {
    if (table.push("limitPushdown")) limit = n
    limit > 0
  }

  override def isPartiallyPushed: Boolean = true

  /** COUNT(*) of the whole collection from discovery's counts; else, with no filter and no
   * limit, simple aggregates as pipelines of each page ([[MongoAggregate]]). */
  override def pushAggregation(aggregation: Aggregation): Boolean = {
    counted = whole.pushAggregation(aggregation)
    val o = table.inner.options
    if (!counted && table.push("aggregatePushdown") && all.isEmpty && limit <= 0 && !o.allTextMode &&
        !o.readNumbersAsDouble && table.inner.files.forall(_.source.isInstanceOf[MongoRange]))
      aggregate = MongoAggregate.plan(table.root, table.schema(), aggregation)
    counted || aggregate.nonEmpty
  }

  override def supportCompletePushDown(aggregation: Aggregation): Boolean = false

  override def build(): Scan = {
    if (counted) return whole.build()
    if (aggregate.nonEmpty)
      return new MongoAggregateScan(aggregate.get, table.inner.files.map(_.source.asInstanceOf[MongoRange]), table.name())
    val projection = if (table.push("projectPushdown")) MongoQuery.projection(table.root, required, table.schema()) else ""
    val (filter, _) = server
    if (filter.isEmpty && projection.isEmpty && limit <= 0) {
      whole.pruneColumns(required)
      return new MongoScan(whole.build(), s"mongo [${table.name()}] pages: ${table.inner.files.size}, nothing pushed")
    }
    // the same pages, each asking the server for less: the same _id ranges
    val renamed = scala.collection.mutable.LinkedHashMap[String, String]()
    val files: Seq[InputFile] = table.inner.files.map { f =>
      f.source match {
        case r: MongoRange =>
          val pushed = r.copy(filter = filter, projection = projection, limit = math.max(0, limit))
          val page = HeldPages.fetchedPage(s"${r.place} (pushed)", f.length, pushed)
          renamed(f.path) = page.path
          page
        case _ => f
      }
    }
    val o = table.inner.options
    def remap(m: Map[String, Seq[String]]) = m.flatMap { case (k, v) => renamed.get(k).map(_ -> v) } ++ m
    val opts = o.copy(fileNulls = remap(o.fileNulls), fileUnseen = remap(o.fileUnseen))
    val t = new DrillJsonTable(table.inner.tableName, opts, files, table.inner.dataSchema, table.inner.partitionColumns)
    val b = new DrillScanBuilder(t)
    b.pushFilters(all)
    b.pruneColumns(required)
    val shown = Seq(
      if (filter.isEmpty) "" else s"filter: $filter",
      if (projection.isEmpty) "" else s"projection: $projection",
      if (limit > 0) s"limit: $limit" else "").filter(_.nonEmpty).mkString(", ")
    new MongoScan(b.build(), s"mongo [${table.name()}] pages: ${files.size}, pushed: $shown")
  }
}

/** A `drill` scan of a collection's pages, named in EXPLAIN with what the server was asked. */
final class MongoScan(scan: Scan, shown: String) extends Scan {
  override def readSchema(): StructType = scan.readSchema()
  override def description(): String = s"$shown; ${scan.description()}"
  override def toBatch: Batch = scan.toBatch
  override def supportedCustomMetrics(): Array[CustomMetric] = scan.supportedCustomMetrics()
}
