package drillspark.catalog

import java.nio.file.{Files, Paths, Path => JPath}
import java.util
import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.{Identifier, Table, TableCatalog, TableChange}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.formats.Formats
import drillspark.formats.parquet.ParquetFooters
import drillspark.source.DrillDataSource
import drillspark.source.input.InputFiles

/**
 * A workspace of the dfs catalog: a root folder (None: the driver's working directory),
 * whether names may leave it (Drill's `allowAccessOutsideWorkspace`), default format. Local
 * roots follow [[WorkspacePaths]], the rule every drillspark entry point shares (absolute paths
 * inside the root are fine there); `allowAbsolute` lets a non-local root take absolute paths of
 * its file system, still inside the root.
 */
final case class Workspace(name: String, root: Option[String], allowOutside: Boolean, format: Option[String],
    allowAbsolute: Boolean = false) {

  private def isLocal(p: String): Boolean = !p.contains("://") || p.startsWith("file:")

  // a `file:` URI (`file:///a%20b`), or a `file:` path as Hadoop writes it (`file:/a b`)
  private def local(p: String): JPath = Paths.get(
    if (!p.startsWith("file:")) p
    else scala.util.Try(new java.net.URI(p).getPath).getOrElse(new Path(p).toUri.getPath))

  def refuse(table: String, why: String): Nothing = WorkspacePaths.refuse(name, table, why)

  private def localRoot: Option[String] = root match {
    case None => Some(System.getProperty("user.dir"))
    case Some(r) if isLocal(r) => Some(local(r).toAbsolutePath.normalize().toString)
    case _ => None
  }

  /**
   * The real location of a local root, below which every file of a table must really lie
   * (symlinks followed); None when names may leave the workspace, and for non-local roots.
   */
  def realRoot: Option[JPath] = if (allowOutside) None else localRoot.map(Paths.get(_))
    .filter(Files.exists(_)).map(_.toRealPath())

  /** The table path for a Drill table name, refusing names that leave the workspace root. */
  def resolve(table: String): String = localRoot match {
    case Some(r) => WorkspacePaths.resolveLocal(name, r, allowOutside, table)
    case None =>
      val r = root.get
      WorkspacePaths.checkName(name, table)
      if (WorkspacePaths.hasScheme(table)) refuse(table, "a URI names another file system")
      // a layer that decodes keys would read these as `.`, `/` and `\` (as drillspark.sql refuses them)
      if (Workspace.Encoded.findFirstIn(table).isDefined)
        refuse(table, "percent-encoded path syntax (%2e, %2f, %5c) is not allowed")
      val base = new Path(r).toUri
      val basePath = Workspace.normalize(Option(base.getPath).filter(_.nonEmpty).getOrElse("/"))
        .getOrElse(refuse(table, s"the workspace root $r is not a valid path"))
      val asked =
        if (table.startsWith("/")) {
          if (!allowOutside && !allowAbsolute) refuse(table, s"absolute paths are not allowed (the workspace root is $r)")
          table
        } else basePath.stripSuffix("/") + "/" + table
      val resolved = Workspace.normalize(asked).filter(p => allowOutside || Workspace.within(p, basePath))
        .getOrElse(refuse(table, s"the path escapes the workspace root $r"))
      new Path(base.getScheme, base.getAuthority, resolved).toString
  }
}

object Workspace {
  val Encoded: scala.util.matching.Regex = "(?i)%(2e|2f|5c)".r

  /** `/a/./b/../c` -> `/a/c` (keeping a trailing slash); None when `..` climbs above `/`. */
  def normalize(path: String): Option[String] = {
    val out = scala.collection.mutable.ArrayBuffer[String]()
    var ok = true
    path.split('/').foreach {
      case "" | "." =>
      case ".." => if (out.isEmpty) ok = false else out.remove(out.size - 1)
      case s => out += s
    }
    val tail = if (path.endsWith("/") && out.nonEmpty) "/" else ""
    if (ok) Some(out.mkString("/", "/", "") + tail) else None
  }

  def within(path: String, root: String): Boolean = {
    val r = root.stripSuffix("/")
    r.isEmpty || path == r || path.startsWith(r + "/")
  }
}

/**
 * Drill's `dfs` storage plugin as a Spark catalog: ``SELECT * FROM dfs.`data/x.json` `` and
 * ``dfs.tmp.`x/` `` in plain Spark SQL. Confs (prefix spark.sql.catalog.<name>.):
 * `workspace.default` (alias `root`: the default workspace's root; unset = driver's working
 * directory), `workspace.<ws>` = root folder, `workspace.<ws>.format`,
 * `workspace.<ws>.allowAccessOutsideWorkspace`, `workspace.<ws>.allowAbsolute` (non-local roots), `option.<opt>` = a default option of the drill source
 * (e.g. option.typeConflict=variant), `<format type>.<option>` = an option of a format of
 * drillspark.formats (e.g. excel.sheetName=Totals; docs/formats.md). With `connection` set the
 * catalog is a `file` storage plugin's (drillspark.session(storage=...) registers one per plugin):
 * its configured workspaces and `default` (the connection's root, confined) alone, no `root`
 * or `tmp`. See docs/scan.md.
 */
class DfsCatalog extends TableCatalog with DrillCatalog {
  // the name the catalog was registered under (spark.sql.catalog.<name>: Drill's `dfs`, or any
  // `file` plugin's name), set by initialize before Spark asks anything of it
  private var catalogName: String = _
  private var workspaces: Map[String, Workspace] = Map.empty
  private var defaultWs: Workspace = Workspace(DfsCatalog.Default, None, allowOutside = true, None)
  private var sourceOptions: Map[String, String] = Map.empty
  // every conf of the catalog (keys lower-cased): `<format type>.<option>` configures a format
  private var catalogOptions: Map[String, String] = Map.empty

  override def name(): String = catalogName

  // the confs the catalog was set up with: a plugin registered again from Python (its config
  // changed) changes them, and Spark keeps a loaded catalog, so loadTable takes them again
  private var taken: Map[String, String] = Map.empty

  private def confs(name: String): Map[String, String] = {
    val prefix = s"spark.sql.catalog.$name."
    SparkSession.active.conf.getAll.collect { case (k, v) if k.startsWith(prefix) => k.stripPrefix(prefix) -> v }
  }

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    taken = options.asCaseSensitiveMap().asScala.toMap
    val opts = options.asCaseSensitiveMap().asScala.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }.toMap
    def flag(k: String): Option[Boolean] = opts.get(k).map(_.trim.equalsIgnoreCase("true"))
    // the default workspace: workspace.default.*, or the older spellings root / root.allowAbsolute / format
    def either(k: String, older: String): Option[String] = (opts.get(s"workspace.default$k"), opts.get(older)) match {
      case (Some(a), Some(b)) if a != b => throw new IllegalArgumentException(
        s"drill: catalog $name sets both spark.sql.catalog.$name.workspace.default$k=$a and " +
          s"spark.sql.catalog.$name.$older=$b (the same setting); keep one")
      case (a, b) => a.orElse(b)
    }
    // a `file` plugin's catalog: its default workspace is its connection's root, confined
    val connection = opts.get("connection").map(_.trim).filter(_.nonEmpty)
    val defaultRoot = either("", "root").orElse(connection)
    defaultWs = Workspace(DfsCatalog.Default, defaultRoot,
      allowOutside = either(".allowaccessoutsideworkspace", "root.allowaccessoutsideworkspace")
        .map(_.trim.equalsIgnoreCase("true")).getOrElse(defaultRoot.isEmpty),
      either(".format", "format"),
      allowAbsolute = either(".allowabsolute", "root.allowabsolute").exists(_.trim.equalsIgnoreCase("true")))
    // `root` is the working directory, names may leave it (Drill's root is `/`): the same
    // meaning as drillspark.sql's dfs.root when no workspace is configured (docs/security.md)
    val builtIn = if (connection.isDefined) Map.empty[String, Workspace] else Map(
      "root" -> Workspace("root", None, allowOutside = true, None),
      "tmp" -> Workspace("tmp", Some(System.getProperty("java.io.tmpdir")), allowOutside = false, None))
    val names = opts.keys.collect { case k if k.startsWith("workspace.") => k.stripPrefix("workspace.").split('.').head }
      .toSet - DfsCatalog.Default
    val configured = names.map { ws =>
      ws -> Workspace(ws, opts.get(s"workspace.$ws").orElse(builtIn.get(ws).flatMap(_.root)),
        allowOutside = flag(s"workspace.$ws.allowaccessoutsideworkspace")
          .getOrElse(builtIn.get(ws).exists(_.allowOutside) && !opts.contains(s"workspace.$ws")),
        opts.get(s"workspace.$ws.format"),
        allowAbsolute = flag(s"workspace.$ws.allowabsolute").getOrElse(false))
    }.toMap
    workspaces = builtIn ++ configured + (DfsCatalog.Default -> defaultWs)
    sourceOptions = opts.collect { case (k, v) if k.startsWith("option.") => k.stripPrefix("option.") -> v }
    catalogOptions = opts
  }

  private def workspace(ns: Array[String]): Workspace = ns.toSeq match {
    case Seq() => defaultWs
    case Seq(w) => workspaces.getOrElse(w.toLowerCase(Locale.ROOT), throw new IllegalArgumentException(
      s"drill: no workspace '$w' in catalog $catalogName (known: ${workspaces.keys.toSeq.sorted.mkString(", ")}); " +
        s"define one with spark.sql.catalog.$catalogName.workspace.$w=<root folder>"))
    case _ => throw new IllegalArgumentException(
      s"drill: ${ns.mkString(".")} is not a workspace of catalog $catalogName (use $catalogName.<workspace>.`path`)")
  }

  private def quoted(ident: Identifier): String =
    (catalogName +: ident.namespace() :+ ident.name()).map(p => s"`${p.replace("`", "``")}`").mkString(".")

  override def loadTable(ident: Identifier): Table = {
    val now = scala.util.Try(confs(catalogName)).getOrElse(taken)
    // a plugin's catalog whose plugin was deleted or disabled (`dfs` too): Python unset its
    // confs, its class among them, and Spark keeps the loaded catalog, which must not answer
    // any more (nor fall back to the built-in workspaces)
    val registered = scala.util.Try(SparkSession.active.conf.getOption(s"spark.sql.catalog.$catalogName"))
      .toOption.forall(_.isDefined)
    if (!registered || (taken.contains("connection") && !now.contains("connection"))) throw new NoSuchTableException(
      "TABLE_OR_VIEW_NOT_FOUND", Map("relationName" -> (s"${quoted(ident)} (storage plugin " +
        s"'$catalogName' was deleted or disabled)"), "searchPath" -> s"[`$catalogName`]"), None)
    if (now != taken) initialize(catalogName, new CaseInsensitiveStringMap(now.asJava))
    val ws = workspace(ident.namespace())
    val table = ident.name()
    val path = ws.resolve(table)
    val conf = SparkSession.active.sparkContext.hadoopConfiguration
    val exists =
      try InputFiles.exists(conf, path)
      catch { case NonFatal(e) => throw new IllegalArgumentException(
        s"drill: table `$table` of workspace '${ws.name}' ($path) cannot be listed: ${e.getMessage}", e) }
    if (!exists) throw new NoSuchTableException("TABLE_OR_VIEW_NOT_FOUND",
      Map("relationName" -> s"${quoted(ident)} (no file or folder matches $path)",
        "searchPath" -> s"[`$catalogName`.`${ws.name}`]"), None)
    val (fmt, everyFile) = format(ws, table, path, conf)
    // a confined workspace: the source checks every file it lists, and again where it opens it
    val confined = ws.realRoot.map(r => Map("workspace" -> ws.name, "workspaceRoot" -> r.toString)).getOrElse(Map.empty)
    if (fmt == DfsCatalog.Parquet) return parquet(ident, ws, path, everyFile, conf)
    if (fmt != "json") {
      // a format of drillspark.formats (avro, excel, ...): its source, by Drill's type or extension
      // (csv, tsv, psv, tbl, csvh, txt: the text format, each with its bootstrap config's options)
      val source = Formats.byType(fmt).orElse(Formats.byExtension(fmt)).getOrElse(
        throw new IllegalArgumentException(s"drill: table `$table`: format '$fmt' is not readable yet by the " +
          s"$catalogName catalog (it reads json, parquet and ${Formats.typeNames.mkString(", ")})"))
      val prefix = source.reader.typeName.toLowerCase(Locale.ROOT) + "."
      // a folder read by the workspace's format (its files have no extension of a format):
      // every file of it, as Drill reads them, not only the format's extensions (none)
      val every = if (everyFile) Map("extensions" -> "[]") else Map.empty[String, String]
      val options = catalogOptions.collect { case (k, v) if k.startsWith(prefix) => k.stripPrefix(prefix) -> v } +
        ("path" -> path) ++ confined ++ every
      return source.table(new CaseInsensitiveStringMap(options.asJava), None)
    }
    val options = sourceOptions + ("path" -> path) + ("format" -> fmt) ++ confined
    DrillDataSource.resolve(new CaseInsensitiveStringMap(options.asJava), None).inCatalog(catalogName)
  }

  /** The extension's format for a file (or a glob naming one), a folder's by its first data
   * file's (as Drill), else the workspace default, else json; and whether it is a folder's
   * by default (then each of its files is read by it, whatever its name). */
  private def format(ws: Workspace, table: String, path: String, conf: Configuration): (String, Boolean) = {
    val p = new Path(path)
    val isDir = !table.exists("*?[{".contains(_)) && p.getFileSystem(conf).getFileStatus(p).isDirectory
    def known(e: String): Boolean = e == "json" || e == DfsCatalog.Parquet || Formats.byExtension(e).isDefined
    val ext =
      if (!isDir) InputFiles.formatOf(path.stripSuffix("/"))
      else InputFiles.list(conf, Seq(path))._1.headOption.map(f => InputFiles.formatOf(f.path)).filter(known).getOrElse("")
    if (ext.isEmpty || !ext.forall(_.isLetterOrDigit) || (isDir && !known(ext)))
      (ws.format.map(_.toLowerCase(Locale.ROOT)).getOrElse("json"), isDir)
    else (ext, false)
  }

  /**
   * A Parquet table: its files as drillspark lists them (hidden ones left out; in a folder,
   * those named `.parquet` unless the folder is read by the workspace's format), each checked
   * against a confined workspace's real root, read by Spark's Parquet source with Drill's types,
   * with Drill's implicit columns (dirN, filename, filepath, fqn, suffix).
   */
  private def parquet(ident: Identifier, ws: Workspace, path: String, everyFile: Boolean,
      conf: Configuration): Table = {
    val named = new Path(path).toUri.getPath.stripSuffix("/")
    val files = InputFiles.list(conf, Seq(path))._1.filter { f =>
      everyFile || new Path(f.path).toUri.getPath == named || f.path.toLowerCase(Locale.ROOT).endsWith(".parquet")
    }
    ws.realRoot.foreach(r => files.foreach(f => WorkspacePaths.confineFile(ws.name, r.toString, f.path)))
    if (files.isEmpty) throw new NoSuchTableException("TABLE_OR_VIEW_NOT_FOUND",
      Map("relationName" -> s"${quoted(ident)} (no Parquet file in $path)",
        "searchPath" -> s"[`$catalogName`.`${ws.name}`]"), None)
    ParquetFooters.table(quoted(ident), files.map(_.path), conf, listed = files)
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

object DfsCatalog {
  /** Drill's name for the workspace used when a table name has none. */
  val Default = "default"
  val Parquet = "parquet"
}
