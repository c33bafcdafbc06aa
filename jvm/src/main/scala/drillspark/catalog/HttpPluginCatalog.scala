package drillspark.catalog

import scala.jdk.CollectionConverters._
import scala.util.Try

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.connector.catalog.{Identifier, Table}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.formats.{FormatPages, Formats}
import drillspark.records.{HttpPages, RecordBatch}
import drillspark.source.DrillDataSource

import HttpPluginCatalog.Conn

/**
 * An `http` storage plugin as a Spark catalog of its name: a connection that takes a table name
 * (`requireTail`, Drill's default) is a namespace and ``api.conn.`tail` `` its table (the tail
 * appended to the connection's URL, the same-host rule holding); a connection with
 * `requireTail: false` is the table ``api.conn``. A table is read as drillspark.sql reads it
 * (spark/storage/http.py): [[HttpPages.fetch]] asks the API when the table is loaded (a
 * bounded snapshot, as drillspark.sql's), its pages read by the `drill` reader (JSON) or the
 * text / xml format's. No WHERE parameter or LIMIT is pushed into the request here.
 *
 * Confs (written by the plugin's module, `catalog_confs`): `connections` (a JSON list of the
 * names), and for the n-th `cN.spec` (the read's request spec without its secrets: see
 * records/HttpRequest), `cN.url`, `cN.secret.password` and `cN.secret.username` (basic),
 * `cN.secret.postBody`, `cN.secret.header.<name>`, `secret.proxyUsername`,
 * `cN.error` (a connection whose config cannot be read), and the plugin's
 * `secret.proxyPassword`: Spark's SET redacts each secret by its name.
 */
final class HttpPluginCatalog extends PluginCatalog with DrillCatalog {
  @volatile private var confs: Map[String, String] = Map.empty // set under the catalog's lock (configure), read by any thread

  override protected def configure(c: Map[String, String]): Unit = confs = c

  private def connections(what: => String): Seq[Conn] = {
    current(what)
    val c = confs
    val names = Try(HttpPluginCatalog.Json.readValue(c.getOrElse("connections", "[]"), classOf[Array[String]]).toSeq)
      .getOrElse(Nil)
    names.zipWithIndex.map { case (n, i) =>
      val key = s"c$i"
      val tail = c.get(s"$key.spec").flatMap(s => Try(HttpPluginCatalog.Json.readTree(s).path("requireTail")
        .asBoolean(true)).toOption).getOrElse(true)
      Conn(n, key, tail)
    }
  }

  private def find(name: String, among: Seq[Conn]): Option[Conn] =
    PluginCatalog.matching(name, among.map(_.name)).flatMap(n => among.find(_.name == n))

  override def listNamespaces(): Array[Array[String]] =
    connections(name()).filter(_.requireTail).map(c => Array(c.name)).toArray
  override def listNamespaces(namespace: Array[String]): Array[Array[String]] =
    if (namespace.isEmpty) listNamespaces() else Array.empty
  override def namespaceExists(namespace: Array[String]): Boolean =
    namespace.length == 1 && find(namespace(0), connections(name()).filter(_.requireTail)).isDefined

  // a connection's own tables are whatever its API serves: none listed, as Drill lists none
  override def listTables(namespace: Array[String]): Array[Identifier] =
    if (namespace.nonEmpty) Array.empty
    else connections(name()).filterNot(_.requireTail).map(c => Identifier.of(Array.empty[String], c.name)).toArray

  override def loadTable(ident: Identifier): Table = {
    val what = quoted(ident)
    val all = connections(what)
    def missing(n: String) = notFound(what, s"API '$n' does not exist in HTTP storage plugin '${name()}'")
    val (conn, tail) = ident.namespace() match {
      case Array() =>
        val c = find(ident.name(), all).getOrElse(throw missing(ident.name()))
        if (c.requireTail) throw notFound(what, s"connection '${c.name}' needs a table name after it " +
          s"(requireTail): ${name()}.${c.name}.`...`")
        (c, None)
      case Array(ns) =>
        val c = find(ns, all).getOrElse(throw missing(ns))
        if (!c.requireTail) throw notFound(what, s"connection '${c.name}' takes no table name (requireTail is false)")
        (c, Some(ident.name()))
      case _ => throw notFound(what, s"name a table as ${name()}.CONNECTION or ${name()}.CONNECTION.`TAIL`")
    }
    val table = (Seq(name(), conn.name) ++ tail).mkString(".")
    confs.get(s"${conn.key}.error").foreach { e =>
      throw new PluginCatalogException(s"storage plugin '${name()}': cannot read $table: $e")
    }
    guarded(s"cannot read $table") {
      val spec = HttpPluginCatalog.Json.readTree(confs.getOrElse(s"${conn.key}.spec", "{}")).asInstanceOf[ObjectNode]
      spec.put("url", confs.getOrElse(s"${conn.key}.url", ""))
      confs.get(s"${conn.key}.secret.password").foreach(spec.put("password", _))
      confs.get(s"${conn.key}.secret.username").foreach(spec.put("username", _))
      confs.get(s"${conn.key}.secret.postBody").foreach(spec.put("postBody", _))
      val headers = spec.putObject("headers")
      val prefix = s"${conn.key}.secret.header."
      confs.toSeq.sortBy(_._1).foreach { case (k, v) => if (k.startsWith(prefix)) headers.put(k.stripPrefix(prefix), v) }
      confs.get("secret.proxyPassword").foreach { p =>
        spec.get("proxy") match { case o: ObjectNode => o.put("password", p); case _ => }
      }
      confs.get("secret.proxyUsername").foreach { u =>
        spec.get("proxy") match { case o: ObjectNode => o.put("username", u); case _ => }
      }
      tail.foreach(spec.put("tail", _))
      val reader = spec.path("reader").asText("drill")
      val options = spec.path("readerOptions").properties().asScala.map(e => e.getKey -> e.getValue.asText).toMap
      val format = reader.stripPrefix("drill-")
      val batch = new RecordBatch()
      HttpPages.fetch(batch, spec.toString, if (reader == "drill") null else FormatPages.adder(format, options.asJava))
      if (batch.size() == 0) EmptyTable(table)
      else {
        val o = new CaseInsensitiveStringMap((options + ("paths" -> RecordPluginCatalogs.json(batch.paths()))).asJava)
        if (reader == "drill") DrillDataSource.resolve(o, None).inCatalog(name())
        else Formats.byType(format).getOrElse(throw new IllegalArgumentException(s"no reader $reader")).table(o, None)
      }
    }
  }
}

object HttpPluginCatalog {
  private val Json = new ObjectMapper()

  /** A connection: its name, its confs' key (`cN`), whether it takes a table name. */
  private final case class Conn(name: String, key: String, requireTail: Boolean)
}
