package drillspark.catalog

import java.util

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{Identifier, MetadataColumn, SupportsMetadataColumns, SupportsRead, Table,
  TableCapability}
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader, PartitionReaderFactory, Scan, ScanBuilder,
  SupportsPushDownAggregates, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.records.{KafkaPages, KafkaPushDown, MongoDataSource, MongoPages, RecordBatch}
import drillspark.source.{DrillDataSource, DrillJsonTable, DrillScanBuilder}

/**
 * A `mongo` storage plugin as a Spark catalog of its name: ``spark.table("mongo.db.coll")``,
 * its databases the namespaces, their collections the tables. A table is planned as
 * drillspark.sql plans it (spark/storage/mongo.py): [[MongoPages.plan]] cuts the collection
 * into pages, read by the `drill-mongo` source with its push-downs. Confs (written by the
 * plugin's module, `catalog_confs`): `url` (the connection URI: Spark's SET redacts a conf of
 * that name), `batchSize`, `pageDocuments`, and the source's push-down flags.
 */
final class MongoPluginCatalog extends PluginCatalog with DrillCatalog {
  @volatile private var confs: Map[String, String] = Map.empty // set under the catalog's lock (configure), read by any thread

  override protected def configure(c: Map[String, String]): Unit = confs = c

  private def uri(what: => String): String = { current(what); confs.getOrElse("url", "") }

  private def databases(what: => String): Seq[String] = {
    val u = uri(what)
    guarded("cannot list the databases")(MongoPages.databases(u).toSeq)
  }

  /** The database `ns` names (as the server spells it, else in another case): the server is
   * asked for that name alone, not for its every database. */
  private def database(ns: Array[String], what: => String): Option[String] =
    if (ns.length != 1) None
    else {
      val u = uri(what)
      PluginCatalog.matching(ns(0), guarded("cannot list the databases")(MongoPages.databasesNamed(u, ns(0)).toSeq))
    }

  override def listNamespaces(): Array[Array[String]] = databases(name()).map(Array(_)).toArray
  override def listNamespaces(namespace: Array[String]): Array[Array[String]] =
    if (namespace.isEmpty) listNamespaces() else Array.empty
  override def namespaceExists(namespace: Array[String]): Boolean = database(namespace, name()).isDefined

  private def collections(db: String): Seq[String] = {
    val u = uri(db)
    guarded(s"cannot list the collections of $db")(MongoPages.collections(u, db).toSeq)
  }

  override def listTables(namespace: Array[String]): Array[Identifier] =
    database(namespace, namespace.mkString(".")).toSeq
      .flatMap(db => collections(db).map(c => Identifier.of(Array(db), c))).toArray

  override def loadTable(ident: Identifier): Table = {
    val db = database(ident.namespace(), quoted(ident)).getOrElse(throw notFound(quoted(ident),
      s"name a collection as ${name()}.DATABASE.COLLECTION; no such database"))
    val named = { val u = uri(db); guarded(s"cannot list the collections of $db")(MongoPages.collectionsNamed(u, db, ident.name()).toSeq) }
    val coll = PluginCatalog.matching(ident.name(), named)
      .getOrElse(throw notFound(quoted(ident), s"no collection ${ident.name()} in ${name()}.$db"))
    val place = s"mongo plugin '${name()}', collection $db.$coll"
    guarded(s"cannot read $db.$coll") {
      val batch = new RecordBatch()
      MongoPages.plan(batch, uri(quoted(ident)), db, coll, confs.getOrElse("batchSize", "0").toInt,
        confs.getOrElse("pageDocuments", "50000").toInt, place)
      if (batch.size() == 0) EmptyTable(s"${name()}.$db.$coll")
      else {
        val own = MongoDataSource.Own.filter(_.endsWith("Pushdown")).flatMap(k => confs.get(k).map(k -> _)).toMap
        MongoDataSource.resolve(new CaseInsensitiveStringMap((own ++ Map("table" -> s"${name()}.$db.$coll",
          "paths" -> RecordPluginCatalogs.json(batch.paths()))).asJava))
      }
    }
  }
}

/**
 * A `kafka` storage plugin as a Spark catalog of its name: ``spark.sql("SELECT * FROM
 * kafka.`topic`")``, the topics its tables (no namespace, as in Drill). A table is a bounded
 * snapshot planned as drillspark.sql plans it (spark/storage/kafka.py): [[KafkaPages.plan]]
 * fixes each partition's offsets and cuts them into pages, read by the `drill` source with
 * Drill's metadata columns; Spark's filters on partition, offset and timestamp narrow the pages a
 * scan reads by drillspark.sql's rule ([[KafkaScanBuilder]]).
 * Confs: `prop.<key>` / `secret.<key>` (the consumer properties; the secret ones under a name
 * Spark's SET redacts), `pollTimeout`, `pageMessages`, `skipInvalidRecords`, and the reader's
 * options as `reader.<option>`.
 */
final class KafkaPluginCatalog extends PluginCatalog with DrillCatalog {
  @volatile private var confs: Map[String, String] = Map.empty // set under the catalog's lock (configure), read by any thread

  override protected def configure(c: Map[String, String]): Unit = confs = c

  private def props(what: => String): util.Map[String, String] = {
    current(what)
    confs.collect { case (k, v) if k.startsWith("prop.") || k.startsWith("secret.") =>
      k.substring(k.indexOf('.') + 1) -> v
    }.asJava
  }

  private def topics(what: => String): Seq[String] = {
    val p = props(what)
    guarded("cannot list the topics")(KafkaPages.topics(p).toSeq)
  }

  override def listNamespaces(): Array[Array[String]] = Array.empty
  override def listNamespaces(namespace: Array[String]): Array[Array[String]] = Array.empty
  override def namespaceExists(namespace: Array[String]): Boolean = namespace.isEmpty

  override def listTables(namespace: Array[String]): Array[Identifier] =
    if (namespace.nonEmpty) Array.empty else topics(name()).map(t => Identifier.of(Array.empty, t)).toArray

  override def loadTable(ident: Identifier): Table = {
    if (ident.namespace().nonEmpty) throw notFound(quoted(ident), s"name a topic as ${name()}.`TOPIC`")
    val topic = ident.name()
    val place = s"kafka plugin '${name()}', topic $topic"
    val p = props(quoted(ident))
    // the topic's own partitions (case-sensitive, as in Drill), not the cluster's every topic
    val snap = guarded(s"cannot read topic $topic")(KafkaPages.found(p, topic))
      .getOrElse(throw notFound(quoted(ident), s"Table '$topic' does not exist"))
    guarded(s"cannot read topic $topic") {
      val read = KafkaRead(p, snap, confs.getOrElse("pollTimeout", "200").toLong,
        confs.getOrElse("pageMessages", "50000").toInt, PluginCatalog.flag(confs, "skipInvalidRecords"), place,
        cut => guarded(s"cannot read topic $topic")(cut()))
      val whole = read.pages(Seq(KafkaPushDown.All))
      if (whole.isEmpty) EmptyTable(s"${name()}.$topic")
      else {
        val reader = confs.collect { case (k, v) if k.startsWith("reader.") => k.stripPrefix("reader.") -> v }
        val batch = new RecordBatch()
        whole.foreach(pg => batch.addPage(pg.file))
        // each page its own task, its schema found by a Spark job: messages are fetched on executors
        val options = reader ++ Map("paths" -> RecordPluginCatalogs.json(batch.paths()), "splitBytes" -> "1",
          "discoveryParallelFiles" -> "1")
        val inner = DrillDataSource.resolve(new CaseInsensitiveStringMap(options.asJava), None).inCatalog(name())
        new KafkaTopicTable(s"${name()}.$topic", inner, read, whole)
      }
    }
  }
}

/** What a scan of a topic needs to cut its pages: the consumer properties, the snapshot taken
 * when the table was loaded, the read's settings, the place errors name, and the catalog's
 * guard (a failure, a scan's too, as one paragraph naming the plugin, without its secrets). */
final case class KafkaRead(props: util.Map[String, String], snap: KafkaPages.Snapshot, pollTimeoutMs: Long,
    pageMessages: Int, skipInvalid: Boolean, place: String,
    guard: (() => Seq[KafkaPages.Page]) => Seq[KafkaPages.Page]) {
  def pages(ranges: Seq[KafkaPushDown.Allowed]): Seq[KafkaPages.Page] =
    guard(() => KafkaPages.pages(props, snap, ranges, pollTimeoutMs, pageMessages, skipInvalid, place))
}

/** A topic's snapshot, its pages as a whole and their discovered schema (`inner`), read by a
 * scan that narrows the pages by Spark's filters ([[KafkaScanBuilder]]). */
final class KafkaTopicTable(val tableName: String, val inner: DrillJsonTable, val read: KafkaRead,
    val whole: Seq[KafkaPages.Page]) extends Table with SupportsRead with SupportsMetadataColumns
  with drillspark.DrillTable {
  override def name(): String = tableName
  override def schema(): StructType = inner.schema()
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)
  override def metadataColumns(): Array[MetadataColumn] = inner.metadataColumns()
  override def newScanBuilder(o: CaseInsensitiveStringMap): ScanBuilder = {
    inner.checkReadOptions(o)
    new KafkaScanBuilder(this)
  }

  /** The snapshot's end offset of each partition (`{"0": 2, "1": 2}`, Spark's SHOW
   * TBLPROPERTIES): a client without a JVM handle (drillspark.sql on Spark Connect, whose
   * every analysis loads the table anew) pins its read to them, one snapshot per query. */
  override def properties(): util.Map[String, String] = {
    val ends = new util.TreeMap[String, java.lang.Long]()
    read.snap.end.foreach { case (id, end) => ends.put(id.toString, end) }
    util.Map.of(KafkaTopicTable.EndsProperty, RecordPluginCatalogs.Json.writeValueAsString(ends))
  }
}

object KafkaTopicTable {
  val EndsProperty = "drillspark.kafka.snapshotEnds"
}

/**
 * Spark's filters on kafkaPartitionId, kafkaMsgOffset and kafkaMsgTimestamp turned into the
 * pushed items of drillspark.sql's scan ([[KafkaPushDown.pushed]]) and narrowed to offset
 * ranges by the same rule ([[KafkaPushDown.ranges]]) over the snapshot the table was loaded
 * with: pages no range allows are not read, and a narrowed page fetches only its offsets. Every
 * filter stays above the scan (Spark checks each row), so the answer is the one without
 * push-down. The schema is the table's, discovered over the whole snapshot when it was loaded
 * (Spark settles a table's schema before it pushes filters).
 */
final class KafkaScanBuilder(table: KafkaTopicTable) extends ScanBuilder with SupportsPushDownRequiredColumns
  with SupportsPushDownFilters with SupportsPushDownAggregates {

  private var all: Array[Filter] = Array.empty
  private var used: Array[Filter] = Array.empty
  private var items = "[]"
  private var required: StructType = table.schema()

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    all = filters
    val (json, u) = KafkaPushDown.pushed(filters)
    used = u
    items = json.toString
    filters
  }

  override def pushedFilters(): Array[Filter] = used

  /** The pages to read, and the `drill` table over them: the whole snapshot's when nothing is
   * pushed, else those the ranges allow, each within one page of the whole (so what the whole
   * read's discovery found absent from a page is absent from its narrowed part). */
  private lazy val narrowed: (Seq[KafkaPages.Page], Option[DrillJsonTable]) =
    if (used.isEmpty) (table.whole, Some(table.inner))
    else {
      val pages = table.read.pages(KafkaPushDown.ranges(table.read.place, items))
      if (pages.isEmpty) (pages, None)
      else {
        val o = table.inner.options
        def within(p: KafkaPages.Page): Option[String] =
          table.whole.find(w => w.id == p.id && w.from <= p.from && p.to <= w.to).map(_.file.path)
        def remap(m: Map[String, Seq[String]]) =
          pages.flatMap(p => within(p).flatMap(m.get).map(p.file.path -> _)).toMap
        val opts = o.copy(fileNulls = remap(o.fileNulls), fileUnseen = remap(o.fileUnseen))
        (pages, Some(new DrillJsonTable(table.name(), opts, pages.map(_.file), table.inner.dataSchema,
          table.inner.partitionColumns, table.inner.catalog)))
      }
    }

  private lazy val builder: Option[DrillScanBuilder] = narrowed._2.map { t =>
    val b = new DrillScanBuilder(t)
    b.pushFilters(all)
    b
  }

  /** COUNT(*) with no filter: the `drill` reader's count of the whole snapshot's pages. */
  override def pushAggregation(aggregation: Aggregation): Boolean =
    builder.exists(_.pushAggregation(aggregation))

  override def supportCompletePushDown(aggregation: Aggregation): Boolean = false

  override def build(): Scan = {
    val (pages, _) = narrowed
    val shown = s"kafka [${table.name()}] pushed: ${if (used.isEmpty) "nothing" else items}, " +
      s"offsets: ${pages.map(p => p.to - p.from).sum} of ${table.whole.map(p => p.to - p.from).sum}, pages: " +
      pages.map(p => s"${p.id}@${p.from}-${p.to}").mkString("[", ", ", "]")
    builder match {
      case Some(b) =>
        b.pruneColumns(required)
        new KafkaScan(b.build(), shown)
      case None => new KafkaScan(EmptyTable("").newScanBuilder(CaseInsensitiveStringMap.empty()).build(), shown, Some(required))
    }
  }
}

/** A `drill` scan of a topic's pages, named in EXPLAIN with what was pushed and which offsets
 * it reads (`partition@from-to`, to exclusive). */
final class KafkaScan(scan: Scan, shown: String, schema: Option[StructType] = None) extends Scan {
  override def readSchema(): StructType = schema.getOrElse(scan.readSchema())
  override def description(): String = s"$shown; ${scan.description()}"
  override def toBatch: Batch = scan.toBatch
  override def supportedCustomMetrics(): Array[CustomMetric] = scan.supportedCustomMetrics()
}

object RecordPluginCatalogs {
  private[catalog] val Json = new ObjectMapper()
  def json(paths: Array[String]): String = Json.writeValueAsString(paths)
}

/** A source with no page of records (an empty collection or topic): no column, no row, as
 * drillspark.sql answers it. */
final case class EmptyTable(tableName: String) extends Table with SupportsRead {
  override def name(): String = tableName
  override def schema(): StructType = new StructType()
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = () => new Scan with Batch {
    override def readSchema(): StructType = new StructType()
    override def toBatch: Batch = this
    override def planInputPartitions(): Array[InputPartition] = Array.empty
    override def createReaderFactory(): PartitionReaderFactory = NoPages
  }
}

/** The reader factory of a scan with no partition: Spark builds it (and ships it with the job),
 * never asks it for a reader. */
object NoPages extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new IllegalStateException("a scan with no pages has nothing to read")
}
