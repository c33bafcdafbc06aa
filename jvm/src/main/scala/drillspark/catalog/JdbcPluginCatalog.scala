package drillspark.catalog

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.{Identifier, SupportsNamespaces, Table, TableCatalog}
import org.apache.spark.sql.drillspark.compat.JdbcCatalogs
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A `jdbc` storage plugin as a Spark catalog of its name: ``spark.sql("SELECT * FROM
 * pg.public.orders")``. Spark's own JDBC table catalog serves it (the reader drillspark.sql's
 * jdbc scans use too, with its push-downs), given the Spark JDBC options the plugin's module
 * writes (spark/storage/jdbc.py `catalog_confs`); what this class adds is Drill's naming (a
 * schema matched in any case, `caseInsensitiveTableNames`), following a changed or deleted
 * plugin, and errors without its secrets. Read-only: CTAS into a `writable` plugin is
 * drillspark.sql's. Confs `drill.*` are this class's own, the others
 * Spark's JDBC options.
 */
final class JdbcPluginCatalog extends PluginCatalog {
  // set by configure (under the catalog's lock, PluginCatalog.current) and read under it
  private var options: Map[String, String] = Map.empty
  @volatile private var caseInsensitive = false
  private var inner: TableCatalog with SupportsNamespaces = null

  override protected def configure(confs: Map[String, String]): Unit = {
    options = confs.filter { case (k, _) => !k.startsWith("drill.") }
    caseInsensitive = PluginCatalog.flag(confs, "drill.caseInsensitiveTableNames")
    inner = null // built at first use: Spark's checks the driver and URL there
  }

  private def database(what: => String): TableCatalog with SupportsNamespaces = {
    current(what)
    // checked, built and read under the lock configure runs under: another thread's change of
    // the confs cannot clear `inner` between (it was read twice, and could be null)
    synchronized {
      if (inner == null) guarded("cannot start its JDBC catalog") {
        val c = JdbcCatalogs.create()
        c.initialize(name(), new CaseInsensitiveStringMap(options.asJava))
        inner = c
      }
      inner
    }
  }

  /** The database's spelling of a Drill schema name (as given, else in another case). */
  private def schema(db: TableCatalog with SupportsNamespaces, ns: Array[String]): Array[String] =
    if (ns.length != 1 || db.namespaceExists(ns)) ns
    else PluginCatalog.matching(ns(0), db.listNamespaces().toSeq.flatMap(_.headOption)).map(Array(_)).getOrElse(ns)

  override def loadTable(ident: Identifier): Table = {
    val db = database(quoted(ident))
    guarded(s"cannot read ${quoted(ident)}") {
      val names = ident.name() +: (if (caseInsensitive && ident.name().toLowerCase(Locale.ROOT) != ident.name())
        Seq(ident.name().toLowerCase(Locale.ROOT)) else Nil)
      val spaces = (ident.namespace() +: Seq(schema(db, ident.namespace()))).distinct
      val tries = for (ns <- spaces; n <- names) yield Identifier.of(ns, n)
      def attempt(rest: Seq[Identifier], first: Option[NoSuchTableException]): Table = rest match {
        case Seq() => throw first.get
        case id +: more =>
          try db.loadTable(id)
          catch { case e: NoSuchTableException => attempt(more, first.orElse(Some(e))) }
      }
      attempt(tries, None)
    }
  }

  override def listTables(namespace: Array[String]): Array[Identifier] = {
    val db = database(namespace.mkString("."))
    guarded(s"cannot list the tables of ${(name() +: namespace).mkString(".")}")(db.listTables(schema(db, namespace)))
  }

  override def listNamespaces(): Array[Array[String]] = {
    val db = database(name())
    guarded("cannot list its schemas")(db.listNamespaces())
  }

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] = {
    val db = database(name())
    guarded("cannot list its schemas")(db.listNamespaces(schema(db, namespace)))
  }

  override def namespaceExists(namespace: Array[String]): Boolean = {
    val db = database(name())
    guarded("cannot list its schemas")(db.namespaceExists(schema(db, namespace)))
  }
}
