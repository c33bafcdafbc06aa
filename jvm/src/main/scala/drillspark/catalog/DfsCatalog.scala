package drillspark.catalog

import java.nio.file.{Files, Paths, Path => JPath}
import java.util
import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{Identifier, Table, TableCatalog, TableChange}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.source.{DrillDataSource, InputFiles}

/**
 * A workspace of the dfs catalog: a root folder (None: the driver's working directory, with
 * absolute paths taken as they are), whether absolute table paths are allowed, default format.
 */
final case class Workspace(name: String, root: Option[String], allowAbsolute: Boolean, format: Option[String]) {

  private def isLocal(p: String): Boolean = !p.contains("://") || p.startsWith("file:")

  private def local(p: String): JPath = Paths.get(if (p.startsWith("file:")) new java.net.URI(p).getPath else p)

  /** The table path for a Drill table name, refusing names that leave the workspace root. */
  def resolve(table: String): String = {
    val refuse = (why: String) => throw new IllegalArgumentException(
      s"drill: table `$table` is refused in workspace '$name': $why")
    if (table.trim.isEmpty) refuse("empty path")
    root match {
      case None =>
        if (table.contains("://")) table
        else Paths.get(System.getProperty("user.dir")).resolve(table).normalize().toString
      case Some(r) if isLocal(r) =>
        val rootPath = local(r).toAbsolutePath.normalize()
        val asked = Paths.get(table)
        if (table.contains("://")) refuse("a URI names another file system")
        val candidate =
          if (asked.isAbsolute) {
            if (!allowAbsolute) refuse(s"absolute paths are not allowed (the workspace root is $rootPath)")
            asked.normalize()
          } else rootPath.resolve(asked).normalize()
        if (!candidate.startsWith(rootPath)) refuse(s"the path escapes the workspace root $rootPath")
        // symlinks: the real location must stay below the real root too
        if (Files.exists(candidate) && Files.exists(rootPath)) {
          val real = candidate.toRealPath()
          val realRoot = rootPath.toRealPath()
          if (!real.startsWith(realRoot)) refuse(s"it links to $real, outside the workspace root $realRoot")
        }
        candidate.toString
      case Some(r) =>
        if (table.contains("://") || table.startsWith("/") && !allowAbsolute)
          refuse("absolute paths are not allowed in this workspace")
        val base = new java.net.URI(if (r.endsWith("/")) r else r + "/")
        val resolved = base.resolve(table.stripPrefix("/")).normalize()
        if (!resolved.toString.startsWith(base.toString)) refuse(s"the path escapes the workspace root $r")
        resolved.toString
    }
  }
}

/**
 * Drill's `dfs` storage plugin as a Spark catalog: ``SELECT * FROM dfs.`data/x.json` `` and
 * ``dfs.tmp.`x/` `` in plain Spark SQL. Confs (prefix spark.sql.catalog.<name>.):
 * `root` (default workspace root; unset = driver's working directory), `workspace.<ws>` = root
 * folder, `workspace.<ws>.format`, `workspace.<ws>.allowAbsolute`, `option.<opt>` = a default
 * option of the drill source (e.g. option.typeConflict=variant).
 */
class DfsCatalog extends TableCatalog {
  private var catalogName: String = "dfs"
  private var workspaces: Map[String, Workspace] = Map.empty
  private var defaultWs: Workspace = Workspace("default", None, allowAbsolute = true, None)
  private var sourceOptions: Map[String, String] = Map.empty

  override def name(): String = catalogName

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    val opts = options.asCaseSensitiveMap().asScala.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }.toMap
    def flag(k: String, d: Boolean) = opts.get(k).map(_.trim.equalsIgnoreCase("true")).getOrElse(d)
    defaultWs = Workspace("default", opts.get("root"), allowAbsolute = flag("root.allowabsolute", opts.get("root").isEmpty),
      opts.get("format"))
    val builtIn = Map(
      "root" -> Workspace("root", Some("/"), allowAbsolute = true, None),
      "tmp" -> Workspace("tmp", Some(System.getProperty("java.io.tmpdir")), allowAbsolute = false, None))
    val names = opts.keys.collect { case k if k.startsWith("workspace.") => k.stripPrefix("workspace.").split('.').head }.toSet
    val configured = names.map { ws =>
      ws -> Workspace(ws, opts.get(s"workspace.$ws").orElse(builtIn.get(ws).flatMap(_.root)),
        allowAbsolute = flag(s"workspace.$ws.allowabsolute", builtIn.get(ws).exists(_.allowAbsolute)),
        opts.get(s"workspace.$ws.format"))
    }.toMap
    workspaces = builtIn ++ configured
    sourceOptions = opts.collect { case (k, v) if k.startsWith("option.") => k.stripPrefix("option.") -> v }
  }

  private def workspace(ns: Array[String]): Workspace = ns.toSeq match {
    case Seq() => defaultWs
    case Seq(w) => workspaces.getOrElse(w.toLowerCase(Locale.ROOT), throw new IllegalArgumentException(
      s"drill: no workspace '$w' in catalog $catalogName (known: ${workspaces.keys.toSeq.sorted.mkString(", ")}); " +
        s"define one with spark.sql.catalog.$catalogName.workspace.$w=<root folder>"))
    case _ => throw new IllegalArgumentException(
      s"drill: ${ns.mkString(".")} is not a workspace of catalog $catalogName (use $catalogName.<workspace>.`path`)")
  }

  override def loadTable(ident: Identifier): Table = {
    val ws = workspace(ident.namespace())
    val path = ws.resolve(ident.name())
    val fmt = {
      val ext = InputFiles.formatOf(path.stripSuffix("/"))
      if (ext.isEmpty || path.endsWith("/") || !ext.forall(_.isLetterOrDigit)) ws.format.getOrElse("json") else ext
    }
    if (fmt != "json" && !Files.isDirectory(Paths.get(path)))
      throw new IllegalArgumentException(
        s"drill: table `${ident.name()}`: format '$fmt' is not readable yet (json only; csv/tsv/psv/txt and " +
          "parquet arrive with the storage engines)")
    DrillDataSource.resolve(new CaseInsensitiveStringMap((sourceOptions + ("path" -> path)).asJava), None)
  }

  override def listTables(namespace: Array[String]): Array[Identifier] = Array.empty

  private def readOnly(what: String): Nothing =
    throw new UnsupportedOperationException(s"drill: the $catalogName catalog is read-only ($what)")

  override def createTable(ident: Identifier, schema: StructType, partitions: Array[org.apache.spark.sql.connector.expressions.Transform],
      properties: util.Map[String, String]): Table = readOnly("CREATE TABLE")
  override def alterTable(ident: Identifier, changes: TableChange*): Table = readOnly("ALTER TABLE")
  override def dropTable(ident: Identifier): Boolean = readOnly("DROP TABLE")
  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit = readOnly("RENAME TABLE")
}
