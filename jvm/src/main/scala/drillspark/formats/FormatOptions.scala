package drillspark.formats

import java.util.Locale

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A format's read options under Drill's names (any case: `sheetName`, `allTextMode`, ...), as
 * the Python format module or a `spark.read.format(...).option(...)` call gives them, plus the
 * table's paths and drillspark's own keys ([[FormatOptions.PathColumn]], the workspace ones).
 * Getters refuse a value of the wrong kind in Drill's words, naming the format and option.
 */
final case class FormatOptions(typeName: String, values: Map[String, String]) {
  private val lower = values.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }

  def get(name: String): Option[String] = lower.get(name.toLowerCase(Locale.ROOT))

  def string(name: String, default: String): String = get(name).getOrElse(default)

  def int(name: String, default: Int): Int = get(name).map(_.trim).filter(_.nonEmpty) match {
    case None => default
    case Some(v) => v.toIntOption.getOrElse(bad(name, v, "an integer"))
  }

  def long(name: String, default: Long): Long = get(name).map(_.trim).filter(_.nonEmpty) match {
    case None => default
    case Some(v) => v.toLongOption.getOrElse(bad(name, v, "an integer"))
  }

  def bool(name: String, default: Boolean): Boolean = get(name).map(_.trim.toLowerCase(Locale.ROOT)) match {
    case None | Some("") => default
    case Some("true") => true
    case Some("false") => false
    case Some(v) => bad(name, v, "true or false")
  }

  private def bad(name: String, value: String, what: String): Nothing = throw new IllegalArgumentException(
    s"$typeName format: option '$name' must be $what, not '$value'")

  /** The table's paths: `path`, or `paths` (a JSON array, as Spark passes several). */
  def paths: Seq[String] = {
    val many = get("paths").toSeq.flatMap(js => FormatOptions.Json.readValue(js, classOf[Array[String]]).toSeq)
    (get("path").toSeq ++ many).filter(_.nonEmpty)
  }

  /** Whether rows carry their file's URI in [[FormatOptions.PathColumn]] (the Python door adds
   * dirN and the implicit file columns from it) instead of the dirN columns. */
  def pathColumn: Boolean = bool(FormatOptions.PathColumn, default = false)

  /** Whether rows carry the dirN columns beside [[FormatOptions.PathColumn]] (the Python door
   * asks for them on a folder of another file system, which it does not list itself). */
  def dirColumns: Boolean = bool("dirColumns", default = false)

  /** The config's `extensions` (a JSON list, as the Python door passes it, or `a,b`). */
  def extensions: Option[Seq[String]] = get("extensions").map(_.trim).filter(_.nonEmpty).map { v =>
    if (v.startsWith("[")) FormatOptions.Json.readValue(v, classOf[Array[String]]).toSeq
    else v.split(',').map(_.trim).filter(_.nonEmpty).toSeq
  }

  def workspaceRoot: Option[String] = get("workspaceRoot").filter(_.nonEmpty)
  def workspace: Option[String] = get("workspace").filter(_.nonEmpty)
}

object FormatOptions {
  private val Json = new ObjectMapper()

  /** The column (and option) naming each row's file, read by drillspark's Python readers. */
  val PathColumn = "$file"

  def apply(typeName: String, options: CaseInsensitiveStringMap): FormatOptions =
    FormatOptions(typeName, options.asCaseSensitiveMap().asScala.toMap)
}
