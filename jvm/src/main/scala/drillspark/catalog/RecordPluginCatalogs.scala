package drillspark.catalog

import java.util

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.connector.catalog.{Identifier, SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan, ScanBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.records.{KafkaPages, MongoDataSource, MongoPages, RecordBatch}
import drillspark.source.DrillDataSource

/**
 * A `mongo` storage plugin as a Spark catalog of its name: ``spark.table("mongo.db.coll")``,
 * its databases the namespaces, their collections the tables. A table is planned as
 * drillspark.sql plans it (spark/storage/mongo.py): [[MongoPages.plan]] cuts the collection
 * into pages, read by the `drill-mongo` source with its push-downs. Confs (written by the
 * plugin's module, `catalog_confs`): `url` (the connection URI: Spark's SET redacts a conf of
 * that name), `batchSize`, `pageDocuments`, and the source's push-down flags.
 */
final class MongoPluginCatalog extends PluginCatalog with DrillCatalog {
  private var confs: Map[String, String] = Map.empty

  override protected def configure(c: Map[String, String]): Unit = confs = c

  private def uri(what: => String): String = { current(what); confs.getOrElse("url", "") }

  private def databases(what: => String): Seq[String] = {
    val u = uri(what)
    guarded("cannot list the databases")(MongoPages.databases(u).toSeq)
  }

  private def database(ns: Array[String], what: => String): Option[String] =
    if (ns.length != 1) None else PluginCatalog.matching(ns(0), databases(what))

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
    val coll = PluginCatalog.matching(ident.name(), collections(db))
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
 * Drill's metadata columns; Spark filters the rows (no offset push-down through this door).
 * Confs: `prop.<key>` / `secret.<key>` (the consumer properties; the secret ones under a name
 * Spark's SET redacts), `pollTimeout`, `pageMessages`, `skipInvalidRecords`, and the reader's
 * options as `reader.<option>`.
 */
final class KafkaPluginCatalog extends PluginCatalog with DrillCatalog {
  private var confs: Map[String, String] = Map.empty

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
    if (!topics(quoted(ident)).contains(topic)) throw notFound(quoted(ident), s"Table '$topic' does not exist")
    val place = s"kafka plugin '${name()}', topic $topic"
    guarded(s"cannot read topic $topic") {
      val batch = new RecordBatch()
      KafkaPages.plan(batch, props(quoted(ident)), topic, confs.getOrElse("pollTimeout", "200").toLong,
        confs.getOrElse("pageMessages", "50000").toInt, PluginCatalog.flag(confs, "skipInvalidRecords"), place, "")
      if (batch.size() == 0) EmptyTable(s"${name()}.$topic")
      else {
        val reader = confs.collect { case (k, v) if k.startsWith("reader.") => k.stripPrefix("reader.") -> v }
        // each page its own task, its schema found by a Spark job: messages are fetched on executors
        val options = reader ++ Map("paths" -> RecordPluginCatalogs.json(batch.paths()), "splitBytes" -> "1",
          "discoveryParallelFiles" -> "1")
        DrillDataSource.resolve(new CaseInsensitiveStringMap(options.asJava), None).inCatalog(name())
      }
    }
  }
}

object RecordPluginCatalogs {
  private val Json = new ObjectMapper()
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
    // no partition: Spark builds the factory, never asks it for a reader
    override def createReaderFactory(): PartitionReaderFactory = (_: InputPartition) =>
      throw new IllegalStateException(s"$tableName has no pages to read")
  }
}
