package drillspark.catalog

import java.util

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{NoSuchNamespaceException, NoSuchTableException}
import org.apache.spark.sql.connector.catalog.{Identifier, NamespaceChange, SupportsNamespaces, Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * What the catalogs of storage plugins share (a `jdbc`, `mongo` or `kafka` plugin as a Spark
 * catalog of its name, registered from Python by spark/storage/plugin_catalogs.py, whose
 * plugin modules write the confs `spark.sql.catalog.<name>.*`): the confs are read again at
 * each call, since Spark keeps a catalog it loaded while the plugin may change (the server's
 * REST API) or go (its confs unset: its tables are then not found); the plugin's secrets
 * (confs Spark's `SET` redacts, a URL's password) are cut out of every error; and the catalog
 * is read-only unless the subclass says otherwise.
 */
abstract class PluginCatalog extends TableCatalog with SupportsNamespaces {
  @volatile private var catalogName: String = ""
  // Spark calls one catalog from several threads (the server's sessions): the confs taken and
  // the subclass's state `configure` sets change together under this object's lock
  @volatile private var taken: Map[String, String] = Map.empty

  override def name(): String = catalogName

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = synchronized {
    catalogName = name
    taken = options.asCaseSensitiveMap().asScala.toMap
    configure(taken)
  }

  /** Take the plugin's confs (again, after a change). Must not reach the plugin's server.
   * Called under this object's lock. */
  protected def configure(confs: Map[String, String]): Unit

  /** The plugin's confs now: configured again when they changed; `what` not found when the
   * plugin was deleted or disabled (Python unset its confs). */
  protected def current(what: => String): Map[String, String] = {
    val prefix = s"spark.sql.catalog.$catalogName."
    val now = scala.util.Try(SparkSession.active.conf.getAll.collect {
      case (k, v) if k.startsWith(prefix) => k.stripPrefix(prefix) -> v
    }).getOrElse(taken)
    if (now.isEmpty) throw notFound(what, s"storage plugin '$catalogName' was deleted or disabled")
    // the plugin's type changed (its catalog class with it): Spark keeps this loaded catalog
    // under the name and never loads the new class, so say so (not "not found", which Spark's
    // analyzer would word as its own) instead of misreading the new type's confs
    val cls = scala.util.Try(SparkSession.active.conf.getOption(s"spark.sql.catalog.$catalogName")).toOption.flatten
    if (cls.exists(_ != getClass.getName)) throw new PluginCatalogException(s"storage plugin " +
      s"'$catalogName' changed its type; Spark keeps the catalog it loaded, so a new Spark " +
      s"session reads it (cannot read $what)")
    synchronized { if (now != taken) { taken = now; configure(now) } }
    now
  }

  protected def notFound(what: String, why: String): NoSuchTableException =
    new NoSuchTableException("TABLE_OR_VIEW_NOT_FOUND", Map("relationName" -> s"$what ($why)",
      "searchPath" -> s"[`$catalogName`]"), None)

  protected def quoted(ident: Identifier): String =
    (catalogName +: ident.namespace() :+ ident.name()).map(p => s"`${p.replace("`", "``")}`").mkString(".")

  /** `body`, a failure (other than a name not found) as one paragraph naming the plugin, what
   * was being done, the failure and its first cause that says more (a driver's "password
   * authentication failed" under Spark's "Couldn't connect"), without the plugin's secrets. */
  protected def guarded[T](doing: => String)(body: => T): T =
    try body
    catch {
      case e: NoSuchTableException => throw e
      case e: NoSuchNamespaceException => throw e
      case e: PluginCatalogException => throw e // said already, by a guard inside this one
      case NonFatal(e) =>
        val found = PluginCatalog.secrets(taken)
        def line(t: Throwable) = String.valueOf(t.getMessage).linesIterator.find(_.trim.nonEmpty)
          .getOrElse(t.getClass.getSimpleName)
        val chain = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).take(10).toSeq
        val causes = chain.map(line).distinct
        val text = causes.take(1) ++ causes.drop(1).lastOption.map(c => s"(cause: $c)")
        throw new PluginCatalogException(
          PluginCatalog.scrub(s"storage plugin '$catalogName': $doing: ${text.mkString(" ")}", found))
    }

  private def readOnly(what: String): Nothing = throw new UnsupportedOperationException(
    s"drill: the catalog of storage plugin '$catalogName' is read-only ($what)")

  override def createTable(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): Table = readOnly("CREATE TABLE")
  override def alterTable(ident: Identifier, changes: TableChange*): Table = readOnly("ALTER TABLE")
  override def dropTable(ident: Identifier): Boolean = readOnly("DROP TABLE")
  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit = readOnly("RENAME TABLE")
  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit =
    readOnly("CREATE NAMESPACE")
  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit = readOnly("ALTER NAMESPACE")
  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean = readOnly("DROP NAMESPACE")
  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] =
    if (namespaceExists(namespace)) new util.HashMap[String, String]()
    else throw new NoSuchNamespaceException(catalogName +: namespace) // Spark's own error
}

/** A storage plugin's catalog failed to list or load (its server down, a refused login). */
final class PluginCatalogException(message: String) extends RuntimeException(message)

object PluginCatalog {
  // the confs whose values Spark's SET redacts by name (spark.redaction.regex's default; a
  // `url` is redacted by spark.sql.redaction.options.regex, whose default is (?i)url)
  private val SecretKey = "(?i)secret|password|token|access[.]?key".r
  private val UrlPassword = "://[^/:@\\s]+:([^@/\\s]+)@".r
  private val PasswordParam = "(?i)password=([^&;\\s]+)".r

  /** The texts of `confs` that must never be shown: values of secret confs, a URL's password
   * (as written and URL-decoded: `p%40ss` is `p@ss` in a driver's message), a quoted
   * `password="..."` (a JAAS config's) also without its quotes. */
  def secrets(confs: Map[String, String]): Seq[String] = confs.toSeq.flatMap { case (k, v) =>
    val whole = if (SecretKey.findFirstIn(k).isDefined) Seq(v) else Nil
    val passwords = (UrlPassword.findAllMatchIn(v) ++ PasswordParam.findAllMatchIn(v)).map(_.group(1)).toSeq
    whole ++ passwords.flatMap(forms)
  }.filter(_.length >= 2).distinct.sortBy(-_.length)

  /** A password as written, without the quotes around it, and URL-decoded. */
  private def forms(p: String): Seq[String] = {
    val bare = if (p.length >= 2 && (p.head == '"' || p.head == '\'') && p.last == p.head) p.substring(1, p.length - 1) else p
    val decoded = scala.util.Try(java.net.URLDecoder.decode(bare, java.nio.charset.StandardCharsets.UTF_8)).toOption
    (Seq(p, bare) ++ decoded).distinct
  }

  def scrub(text: String, secrets: Seq[String]): String = secrets.foldLeft(text)((t, s) => t.replace(s, "*****"))

  def flag(confs: Map[String, String], key: String): Boolean =
    confs.get(key).exists(_.trim.equalsIgnoreCase("true"))

  /** `name` among `names`: as spelt, else the one differing only in case (Drill's rule for
   * schema names). */
  def matching(name: String, names: Seq[String]): Option[String] =
    names.find(_ == name).orElse(names.find(_.equalsIgnoreCase(name)))
}
