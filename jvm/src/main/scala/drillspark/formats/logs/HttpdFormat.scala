package drillspark.formats.logs

import java.time.format.DateTimeFormatter
import java.util.Locale
import java.util.regex.Pattern

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-httpd")`: web server access logs as Drill's httpd format reads them. */
final class HttpdSource extends FormatSource {
  override def reader: FormatReader = HttpdFormat
}

/** One `logFormat` line compiled: the line regex and, per capturing group, its token. */
private[logs] final case class HttpdLayout(spec: String, pattern: Pattern, tokens: Seq[HttpdToken])

/**
 * Drill's `httpd` format (contrib/format-httpd): each line is parsed with the first
 * `logFormat` line (Apache's LogFormat strings, or the names `common` and `combined`) it fits,
 * into the columns Drill's parser gives for its tokens (HttpdTokens: every mod_log_config
 * token, `connection_client_host`, `request_receive_time` and its parts, `request_firstline`
 * and its URI parts, `request_header_<name>`, ..., with Drill's `_last` / `_original`
 * twins); a query string or cookie header is also a map `..._$` (or with `flattenWildcards`
 * one column per name). Columns come sorted by name, maps last, as Drill lists them. A token
 * Drill's parser has no field for is refused naming it. A line no format fits counts against
 * `maxErrors` (Drill fails at once when it is 0).
 */
object HttpdFormat extends FormatReader {
  override val typeName = "httpd"
  override val extensions: Seq[String] = Seq("httpd")

  private val Named = Map(
    "common" -> "%h %l %u %t \"%r\" %>s %b",
    "combined" -> "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\"")

  // `%`, an optional `<`/`>` modifier (status conditions `%!200,304{..}i` are skipped),
  // an optional `{argument}` and the letter
  private val TokenAt = Pattern.compile("%([<>]?)(?:!?[0-9,]+)?(?:\\{([^}]*)\\})?([a-zA-Z%])")

  def layouts(o: FormatOptions): Seq[HttpdLayout] = {
    val lines = o.string("logFormat", "common\ncombined").split("[\r\n]+").map(_.trim).filter(_.nonEmpty).toSeq
    if (lines.isEmpty) throw FormatErrors.badConfig(typeName, "option 'logFormat' is empty")
    val agents = o.bool("parseUserAgent", default = false)
    val stamp = o.get("timestampFormat").filter(_.nonEmpty).map(p => p -> DateTimeFormatter.ofPattern(p, Locale.ENGLISH))
    val compiled = lines.map { line =>
      val spec = Named.getOrElse(line.toLowerCase(Locale.ROOT), line)
      val found = mutable.ArrayBuffer.empty[java.util.regex.MatchResult]
      val m = TokenAt.matcher(spec)
      while (m.find()) found += m.toMatchResult
      val letters = found.filter(_.group(3) != "%").map(r => s"%${r.group(3)}").toSet
      val regex = new StringBuilder("^")
      val tokens = mutable.ArrayBuffer.empty[HttpdToken]
      var at = 0
      found.foreach { r =>
        regex ++= Pattern.quote(spec.substring(at, r.start()))
        if (r.group(3) == "%") regex ++= "%"
        else {
          val token = HttpdTokens.of(r.group(), r.group(1), Option(r.group(2)).getOrElse(""), r.group(3).charAt(0), letters, stamp, agents)
            .getOrElse(throw FormatErrors.badConfig(typeName, s"logFormat token '${r.group()}' in '$spec' has no field in " +
              "Drill's httpd format (Apache mod_log_config tokens: %a %A %B %b %{VAR}C %D %{VAR}e %f %h %H %{VAR}i %k %l %L %m " +
              "%{VAR}n %{VAR}o %p %{format}p %P %q %r %R %s %>s %t %{format}t %T %u %U %v %V %X %I %O %S)"))
          regex ++= token.regex
          tokens += token
        }
        at = r.end()
      }
      regex ++= Pattern.quote(spec.substring(at)) += '$'
      HttpdLayout(spec, Pattern.compile(regex.toString), tokens.toSeq)
    }
    // a column has one type: tokens that give it two (`%t`'s TIMESTAMP and a strftime
    // `%{...}t`'s text, in one line or two) are refused here, not as a cast failing in a row
    val uses = compiled.flatMap(_.tokens).flatMap(t => t.columns.map { case (c, ty) => (c, ty, t.text) })
    uses.groupBy(_._1).toSeq.sortBy(_._1).foreach { case (column, us) =>
      us.find(_._2 != us.head._2).foreach { other =>
        throw FormatErrors.badConfig(typeName, s"logFormat tokens '${us.head._3}' and '${other._3}' both give column " +
          s"'$column', one as ${us.head._2.sql} and one as ${other._2.sql}; a column has one type: keep one of them")
      }
    }
    compiled
  }

  private val Wildcard = "_$"

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val tokens = layouts(options).flatMap(_.tokens)
    val scalars = tokens.flatMap(_.columns).groupBy(_._1).map(_._2.head).toSeq.sortBy(_._1)
    val maps = tokens.flatMap(_.maps).distinct.sorted
    // the parameter names of every query string, for the maps' members (or flattened columns)
    val params = mutable.LinkedHashMap.empty[String, mutable.LinkedHashSet[String]]
    maps.foreach(m => params(m) = mutable.LinkedHashSet.empty)
    files.foreach(f => lines(f, options, conf, params.keySet.toSet).foreach(_.maps.foreach { case (m, kv) =>
      params.get(m).foreach(_ ++= kv.map(_._1))
    }))
    val mapColumns = maps.map(m => StructField(m + Wildcard, StructType(params(m).toSeq.map(StructField(_, StringType)))))
    // Drill flattens every map but the Set-Cookie twin's
    val flat = if (options.bool("flattenWildcards", default = false))
      maps.filter(_ != "response_cookies_last").sortBy(m => (!m.startsWith("request_firstline_uri"), m))
        .flatMap(m => params(m).toSeq.map(k => StructField(s"${m}_$k", StringType)))
      else Nil
    StructType(scalars.map { case (n, t) => StructField(n, t) } ++ mapColumns ++ flat)
  }

  /** One parsed line: its scalar values (Spark's internal form) and its query-string maps. */
  private final case class Parsed(values: collection.Map[String, Any], maps: collection.Map[String, Seq[(String, String)]])

  private def lines(file: InputFile, o: FormatOptions, conf: Configuration, mapNames: Set[String],
      analyzeAgents: Boolean = false): Iterator[Parsed] = {
    val formats = layouts(o)
    val maxErrors = o.int("maxErrors", 0)
    var errors = 0
    var last = formats.head // a log's lines mostly fit one format: try the last one that fitted first
    LineInput.lines(this, file, conf).filter(_.text.trim.nonEmpty).flatMap { line =>
      (Iterator(last) ++ formats.iterator.filter(_ ne last)).map(l => l -> l.pattern.matcher(line.text))
        .find(_._2.matches()) match {
        case Some((layout, m)) =>
          last = layout
          val parsed = new HttpdLine
          parsed.analyzeAgents = analyzeAgents
          try layout.tokens.zipWithIndex.foreach { case (token, i) =>
            val raw = m.group(i + 1)
            if (raw != null && raw.nonEmpty && raw != "-") {
              token.fill(raw, parsed)
              token.copies.foreach { case (from, to) => parsed.values(to) = parsed.values.getOrElse(from, null) }
              token.mapCopies.foreach { case (from, to) => parsed.maps.get(from).foreach(parsed.maps(to) = _) }
            }
          } catch {
            case e: HttpdTokens.BadValue => throw FormatErrors.badData(typeName, file.path, s"line ${line.number}", e.getMessage)
          }
          Some(Parsed(parsed.values, parsed.maps.filter(kv => mapNames(kv._1))))
        case None =>
          errors += 1
          if (errors > maxErrors) throw FormatErrors.badData(typeName, file.path, s"line ${line.number}",
            s"the line fits no logFormat (${formats.map(_.spec).mkString(" | ")}; maxErrors $maxErrors): " +
              (if (line.text.length > 200) line.text.take(200) + "..." else line.text))
          Some(Unmatched) // within maxErrors Drill gives the line as a row of nulls
      }
    }
  }

  private val Unmatched = Parsed(Map.empty, Map.empty)

  private def str(s: String): UTF8String = HttpdTokens.str(s)

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val flat = options.bool("flattenWildcards", default = false)
    val mapNames = schema.fieldNames.filter(_.endsWith(Wildcard)).map(_.dropRight(Wildcard.length)).toSet ++
      layouts(options).flatMap(_.tokens).flatMap(_.maps)
    // Yauaa runs only when the scan reads one of its columns (Spark prunes the others)
    val agentColumns = HttpdUserAgents.suffixes.map(_._2).toSet
    val analyze = options.bool("parseUserAgent", default = false) && schema.fieldNames.exists(n =>
      n.startsWith("request_user-agent_") && agentColumns.exists(s => n.endsWith(s) || n.contains(s + "_")))
    lines(file, options, conf, mapNames, analyze).map { parsed =>
      new GenericInternalRow(schema.fields.map[Any] { f =>
        f.dataType match {
          case st: StructType if f.name.endsWith(Wildcard) =>
            // flattened, Drill's maps stay empty: their members are columns of their own
            val kv = if (flat) Map.empty[String, String] else parsed.maps.getOrElse(f.name.dropRight(Wildcard.length), Nil).toMap
            new GenericInternalRow(st.fieldNames.map[Any](k => str(kv.get(k).orNull)))
          case _ => parsed.values.get(f.name) match {
            case Some(value) => value
            case None => flattened(f.name, parsed)
          }
        }
      })
    }
  }

  /** A `flattenWildcards` column `<map>_<param>`: the parameter of the longest map name it starts with. */
  private def flattened(name: String, parsed: Parsed): Any =
    parsed.maps.keys.filter(m => name.startsWith(m + "_")).toSeq.sortBy(-_.length).headOption
      .flatMap(m => parsed.maps(m).find(_._1 == name.drop(m.length + 1)).map(kv => str(kv._2))).orNull
}
