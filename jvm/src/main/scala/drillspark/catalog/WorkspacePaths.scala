package drillspark.catalog

import java.io.{FileNotFoundException, IOException}
import java.nio.channels.FileChannel
import java.nio.file.{FileSystems, Files, LinkOption, NoSuchFileException, Path => JPath, Paths, StandardOpenOption}
import java.text.Normalizer

import scala.jdk.CollectionConverters._
import scala.util.Using

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import drillspark.functions.{DrillErrors, DrillFunctions}

/**
 * Drill's workspace confinement: the one rule every entry point uses (the `dfs` catalog,
 * `drillspark.sql`, CTAS, the plan's file engines through `drill_workspace_path`). A table
 * name must stay below its workspace's root unless the workspace allows access outside it
 * (Drill's `allowAccessOutsideWorkspace`): `..` that climbs out, absolute paths elsewhere,
 * URI schemes inside a name, symlinks whose target lies outside the root, and characters
 * that only look like `.`, `/`, `\` or `:` are refused, naming the workspace. See docs/security.md.
 */
object WorkspacePaths {

  def refuse(workspace: String, table: String, why: String): Nothing =
    throw DrillErrors.runtime(s"drill: table `$table` is refused in workspace '$workspace': $why")

  private val Scheme = "^[A-Za-z][A-Za-z0-9+.-]*:".r
  private val Separators = "./\\:"
  // look-alikes NFKC leaves alone: slashes, backslashes, dots and colons of other scripts
  private val LookAlikes: Map[Int, String] = Map(
    0x2215 -> "/", 0x2044 -> "/", 0x29F8 -> "/", 0x2571 -> "/", 0x1735 -> "/", 0x3033 -> "/",
    0x2216 -> "\\", 0x29F5 -> "\\", 0x29F9 -> "\\", 0x2572 -> "\\",
    0x3002 -> ".", 0x0589 -> ".", 0x06D4 -> ".", 0x0701 -> ".", 0xA4F8 -> ".", 0x2E3C -> ".",
    0x2236 -> ":", 0x0589 -> ":", 0xA789 -> ":", 0x02D0 -> ":", 0x05C3 -> ":", 0xFE13 -> ":")

  def hasScheme(table: String): Boolean = Scheme.findFirstIn(table).isDefined

  /**
   * Names no workspace accepts: empty, control characters, U+FFFD (what undecodable bytes such
   * as overlong UTF-8 become), unpaired surrogates, and look-alikes of path syntax (a
   * fullwidth `．`, a division slash `∕`, ...: characters whose compatibility form contains
   * `.`, `/`, `\` or `:`), which some layer could fold into the real thing.
   */
  def checkName(workspace: String, table: String): Unit = {
    if (table.trim.isEmpty) refuse(workspace, table, "empty path")
    table.codePoints().forEach { cp =>
      if (Character.isISOControl(cp)) refuse(workspace, table, f"control character U+$cp%04X in the name")
      if (cp == 0xFFFD) refuse(workspace, table, "the name has undecodable bytes (U+FFFD)")
      if (cp >= 0xD800 && cp <= 0xDFFF) refuse(workspace, table, "the name has an unpaired surrogate")
      if (cp > 0x7F) {
        val folded = LookAlikes.getOrElse(cp,
          Normalizer.normalize(new String(Character.toChars(cp)), Normalizer.Form.NFKC))
        if (folded.exists(Separators.contains(_)))
          refuse(workspace, table, f"U+$cp%04X looks like '$folded' (look-alikes of path syntax are not allowed)")
      }
    }
  }

  /**
   * The local path of `table` in a workspace rooted at the local folder `root`. With
   * `allowOutside` the name is taken as it is (absolute, relative to the root, or a URI).
   * Otherwise the result, after `..` and symlinks, must lie below the root: the deepest part
   * of the path that exists is resolved for real, and when the table is a folder (or a glob's
   * folder) every entry under it is too.
   */
  def resolveLocal(workspace: String, root: String, allowOutside: Boolean, table: String): String =
    resolve(workspace, root, allowOutside, table, entries = true)

  /**
   * The folder (or file) `table` names in a workspace, for a listing (SHOW FILES,
   * INFORMATION_SCHEMA.FILES): the rule of [[resolveLocal]] for the name and for the path itself
   * (after `..` and symlinks it must lie below the root), but not for what lies under it, which
   * a listing checks entry by entry (a symlink entry is asked by its own name: one that leads out
   * is shown as the link itself, never its target). An empty name is the root.
   */
  def resolveListing(workspace: String, root: String, allowOutside: Boolean, table: String): String =
    if (table.isEmpty) Paths.get(root).toAbsolutePath.normalize().toString
    else resolve(workspace, root, allowOutside, table, entries = false)

  private def resolve(workspace: String, root: String, allowOutside: Boolean, table: String,
                      entries: Boolean): String = {
    checkName(workspace, table)
    val rootPath = Paths.get(root).toAbsolutePath.normalize()
    if (allowOutside) {
      if (hasScheme(table)) return table
      return rootPath.resolve(table).normalize().toString
    }
    if (hasScheme(table)) refuse(workspace, table, "a URI scheme inside a table name names another file system")
    val asked = Paths.get(table)
    val candidate = rootPath.resolve(asked).normalize()
    if (!candidate.startsWith(rootPath)) refuse(workspace, table,
      if (asked.isAbsolute) s"absolute paths outside the workspace root $rootPath are not allowed"
      else s"the path escapes the workspace root $rootPath")
    confineLinks(workspace, table, rootPath, candidate, entries)
    candidate.toString
  }

  /** A local path from a plain path, a `file:` URI (`file:///a%20b`) or a `file:` path as Hadoop
   * writes it (`file:/a b`). */
  def localPath(p: String): JPath = Paths.get(
    if (!p.startsWith("file:")) p
    else scala.util.Try(new java.net.URI(p).getPath).toOption.filter(_ != null)
      .getOrElse(new org.apache.hadoop.fs.Path(p).toUri.getPath))

  /**
   * The real location of the local file `file` (symlinks followed), which must lie below the
   * real root of the workspace `workspace` rooted at `root`, else an error naming the workspace.
   * Asked for every file a confined table lists, and again where each file is opened ([[open]]):
   * a file swapped for a symlink after the query was planned is refused there.
   */
  def confineFile(workspace: String, root: String, file: String): JPath = {
    val realRoot =
      try localPath(root).toRealPath()
      catch { case _: NoSuchFileException => throw DrillErrors.runtime(
        s"drill: the root $root of workspace '$workspace' does not exist") }
    val local = localPath(file)
    val real =
      try local.toRealPath()
      catch { case _: NoSuchFileException => throw new FileNotFoundException(s"File $file does not exist") }
    if (!real.startsWith(realRoot)) throw DrillErrors.runtime(
      s"drill: file $local is refused in workspace '$workspace': it leads to $real, outside the workspace root " +
        s"$realRoot (symlinks may not lead out of a workspace)")
    real
  }

  /**
   * Open a local file of a confined workspace for reading: its real path is checked by
   * [[confineFile]] and opened without following a final symlink; once open, the real path
   * must still be itself (no folder on it became a link in between). A folder swapped for a
   * link and back between those two system calls is the race left (Java has no `openat2`).
   */
  def open(workspace: String, root: String, file: String): FileChannel = {
    val real = confineFile(workspace, root, file)
    val ch =
      try FileChannel.open(real, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)
      catch {
        case _: NoSuchFileException => throw new FileNotFoundException(s"File $file does not exist")
        case e: IOException if Files.isSymbolicLink(real) => throw DrillErrors.runtime(
          s"drill: file $file is refused in workspace '$workspace': it became a symlink while it was opened (${e.getMessage})")
      }
    val still = try real.toRealPath() catch { case e: IOException => ch.close(); throw e }
    if (still != real) {
      ch.close()
      throw DrillErrors.runtime(s"drill: file $file is refused in workspace '$workspace': its path changed to " +
        s"$still while it was opened")
    }
    ch
  }

  /**
   * Symlinks may not lead out of the workspace: the existing part of the path, and every entry
   * under a folder the table names (for a glob: every entry the glob matches, and what lies
   * under it) unless `entries` is false (a listing: the path itself only).
   */
  private def confineLinks(workspace: String, table: String, rootPath: JPath, candidate: JPath,
                           entries: Boolean): Unit = {
    if (!Files.exists(rootPath)) return
    val realRoot = rootPath.toRealPath()
    if (realRoot.getNameCount == 0) return  // the file system root: nothing lies outside it
    val rel = rootPath.relativize(candidate).iterator().asScala.map(_.toString).toSeq
    val plain = rel.takeWhile(s => !s.exists("*?[{".contains(_)))
    val fixed = plain.foldLeft(rootPath)(_ resolve _)
    val glob = if (plain.size < rel.size)
      Some(FileSystems.getDefault.getPathMatcher("glob:" + candidate.toString)) else None
    val depth = rel.size - plain.size

    def matched(e: JPath): Boolean = glob.forall { m =>
      var p = e
      var hit = false
      while (!hit && p != null && p.startsWith(fixed) && p != fixed) { hit = m.matches(p); p = p.getParent }
      hit
    }
    val seen = scala.collection.mutable.Set[JPath]()
    def check(e: JPath, level: Int): Unit = if (Files.exists(e)) {  // a dangling link reads nothing
      val real = e.toRealPath()
      val hit = matched(e)
      if (hit && !real.startsWith(realRoot))
        refuse(workspace, table, s"$e links to $real, outside the workspace root $realRoot")
      if (Files.isDirectory(real) && (hit || level < depth) && seen.add(real))
        Using.resource(Files.list(e))(_.iterator().asScala.toList).foreach(check(_, level + 1))
    }

    // the deepest existing ancestor (a CTAS target does not exist yet) must really be inside
    var existing = fixed
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) existing = existing.getParent
    if (existing == null || !Files.exists(existing)) return
    val real = existing.toRealPath()
    if (!real.startsWith(realRoot))
      refuse(workspace, table, s"$existing links to $real, outside the workspace root $realRoot")
    if (entries && existing == fixed && Files.isDirectory(real)) {
      seen += real
      Using.resource(Files.list(fixed))(_.iterator().asScala.toList).foreach(check(_, 1))
    }
  }
}

/**
 * `drill_workspace_path(workspace, root, allow_outside, table)`: the path `table` resolves to
 * in the workspace, or an error naming the workspace when it would leave it. Python's entry
 * points (drillspark.sql, CTAS, the plan's file engines) ask this instead of re-implementing
 * the rule.
 */
case class DrillWorkspacePath(children: Seq[Expression]) extends Expression with CodegenFallback {
  override def dataType: DataType = StringType
  override def nullable: Boolean = false
  // folded on the driver (no job) when the arguments are constants: callers ask it per query
  override def foldable: Boolean = children.forall(_.foldable)
  override def prettyName: String = DrillWorkspacePath.Name

  override def eval(input: InternalRow): Any = {
    val values = children.map(_.eval(input))
    val Seq(ws, root, outside, table) = values.take(4)
    if (ws == null || root == null || table == null) throw DrillErrors.runtime(
      s"${DrillWorkspacePath.Name}: workspace, root and table must not be NULL")
    val allow = outside != null && outside.toString.equalsIgnoreCase("true")
    val listing = values.lift(4).exists(v => v != null && v.toString.equalsIgnoreCase("true"))
    UTF8String.fromString(
      if (listing) WorkspacePaths.resolveListing(ws.toString, root.toString, allow, table.toString)
      else WorkspacePaths.resolveLocal(ws.toString, root.toString, allow, table.toString))
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): Expression =
    copy(children = newChildren)
}

object DrillWorkspacePath {
  val Name = "drill_workspace_path"

  val description: DrillFunctions.Description = DrillFunctions.describe(Name, classOf[DrillWorkspacePath].getName,
    "_FUNC_(workspace, root, allow_outside, table[, listing]) - Drill's workspace rule: the local path a " +
      "table name resolves to in the workspace rooted at `root`; unless `allow_outside` (Drill's " +
      "allowAccessOutsideWorkspace), an error naming the workspace when the name leaves the root " +
      "(`..`, an absolute path elsewhere, a URI scheme, a symlink pointing out, a look-alike of `.` or `/`). " +
      "With `listing` true, the folder a listing names (SHOW FILES): the path itself is checked, not " +
      "the entries under it, and an empty name is the root.",
    examples = """
    Examples:
      > SELECT _FUNC_('data', '/srv/data', false, 'x/y.json');
       /srv/data/x/y.json
  """) { args =>
    DrillFunctions.arity(Name, args, 4, 5)
    DrillWorkspacePath(args.map(Cast(_, StringType)))
  }
}
