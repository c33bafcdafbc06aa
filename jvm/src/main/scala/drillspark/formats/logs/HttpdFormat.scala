package drillspark.formats.logs

import java.net.{URI, URISyntaxException, URLDecoder}
import java.nio.charset.StandardCharsets
import java.time.{LocalDateTime, OffsetDateTime, ZoneOffset}
import java.time.format.{DateTimeFormatter, DateTimeParseException, TextStyle}
import java.time.temporal.{ChronoField, IsoFields}
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
private[logs] final case class HttpdLayout(spec: String, pattern: Pattern, tokens: Seq[String])

/**
 * Drill's `httpd` format (contrib/format-httpd): each line is parsed with the first
 * `logFormat` line (Apache's LogFormat strings, or the names `common` and `combined`) it fits,
 * into the columns Drill's parser gives: `connection_client_host`, `request_receive_time` (UTC)
 * and its parts (`_date`, `_hour`, `_hour__utc`, `_timezone`, ...), `request_firstline` and
 * its method, protocol and URI parts, `request_status_last`, `response_body_bytes`,
 * `request_referer` and its URI parts, `request_user-agent`, each with Drill's `_last` or
 * `_original` twin; a URI's query string also as a map `..._query_$` (or with
 * `flattenWildcards` as one column per parameter). Columns come sorted by name, maps last, as
 * Drill lists them. The tokens read are those of Apache's common and combined formats (`%h %l
 * %u %t %r %>s %b %{Referer}i %{User-Agent}i`); another token is refused naming it. A line no
 * format fits counts against `maxErrors` (Drill fails at once when it is 0).
 */
object HttpdFormat extends FormatReader {
  override val typeName = "httpd"
  override val extensions: Seq[String] = Seq("httpd")

  private val Named = Map(
    "common" -> "%h %l %u %t \"%r\" %>s %b",
    "combined" -> "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\"")

  private val TokenRegex: Map[String, String] = Map(
    "%h" -> "(\\S*)", "%l" -> "(\\S*)", "%u" -> "(\\S*)", "%t" -> "\\[([^\\]]*)\\]", "%r" -> "(.*?)",
    "%>s" -> "(\\d{3}|-)", "%b" -> "(\\d+|-)", "%{referer}i" -> "(.*?)", "%{user-agent}i" -> "(.*?)")

  private val TokenAt = Pattern.compile("%(?:>)?(?:\\{[^}]*\\})?[a-zA-Z]")

  def layouts(o: FormatOptions): Seq[HttpdLayout] = {
    val lines = o.string("logFormat", "common\ncombined").split("[\r\n]+").map(_.trim).filter(_.nonEmpty).toSeq
    if (lines.isEmpty) throw FormatErrors.badConfig(typeName, "option 'logFormat' is empty")
    lines.map { line =>
      val spec = Named.getOrElse(line.toLowerCase(Locale.ROOT), line)
      val m = TokenAt.matcher(spec)
      val regex = new StringBuilder("^")
      val tokens = mutable.ArrayBuffer.empty[String]
      var at = 0
      while (m.find()) {
        regex ++= Pattern.quote(spec.substring(at, m.start()))
        val token = m.group().toLowerCase(Locale.ROOT)
        regex ++= TokenRegex.getOrElse(token, throw FormatErrors.badConfig(typeName, s"logFormat token '${m.group()}' " +
          s"in '$spec' is not read by drillspark's httpd format (it reads ${TokenRegex.keys.toSeq.sorted.mkString(" ")})"))
        tokens += token
        at = m.end()
      }
      regex ++= Pattern.quote(spec.substring(at)) += '$'
      HttpdLayout(spec, Pattern.compile(regex.toString), tokens.toSeq)
    }
  }

  // ------------------------------------------------------------------ the columns of a token
  private val TimeParts: Seq[(String, DataType)] = Seq("date" -> DateType, "day" -> LongType, "hour" -> LongType,
    "microsecond" -> LongType, "millisecond" -> LongType, "minute" -> LongType, "month" -> LongType,
    "monthname" -> StringType, "nanosecond" -> LongType, "second" -> LongType, "time" -> TimeType(3),
    "weekofweekyear" -> LongType, "weekyear" -> LongType, "year" -> LongType)

  private def timeColumns(p: String): Seq[(String, DataType)] =
    Seq(p -> TimestampNTZType, s"${p}_epoch" -> TimestampNTZType, s"${p}_timezone" -> StringType) ++
      TimeParts.flatMap { case (n, t) => Seq(s"${p}_$n" -> t, s"${p}_${n}__utc" -> t) }

  private def uriColumns(p: String): Seq[(String, DataType)] = Seq(p -> StringType) ++
    Seq("host", "path", "protocol", "query", "ref", "userinfo").map(n => s"${p}_$n" -> StringType) :+ (s"${p}_port" -> LongType)

  private def firstLineColumns(p: String): Seq[(String, DataType)] =
    Seq(p -> StringType, s"${p}_method" -> StringType, s"${p}_protocol" -> StringType,
      s"${p}_protocol_version" -> StringType) ++ uriColumns(s"${p}_uri")

  /** The scalar columns and the query-string maps (their prefixes) a token gives. */
  private def columnsOf(token: String): (Seq[(String, DataType)], Seq[String]) = token match {
    case "%h" => (Seq("connection_client_host", "connection_client_host_last").map(_ -> StringType), Nil)
    case "%l" => (Seq("connection_client_logname", "connection_client_logname_last").map(_ -> LongType), Nil)
    case "%u" => (Seq("connection_client_user", "connection_client_user_last").map(_ -> StringType), Nil)
    case "%t" => (timeColumns("request_receive_time") ++ timeColumns("request_receive_time_last"), Nil)
    case "%r" => (firstLineColumns("request_firstline") ++ firstLineColumns("request_firstline_original"),
      Seq("request_firstline_uri_query", "request_firstline_original_uri_query"))
    case "%>s" => (Seq("request_status_last" -> StringType), Nil)
    case "%b" => (Seq("response_body_bytes", "response_body_bytes_last", "response_body_bytesclf").map(_ -> LongType), Nil)
    case "%{referer}i" => (uriColumns("request_referer") ++ uriColumns("request_referer_last"),
      Seq("request_referer_query", "request_referer_last_query"))
    case "%{user-agent}i" => (Seq("request_user-agent", "request_user-agent_last").map(_ -> StringType), Nil)
    case other => throw new IllegalStateException(s"no columns for $other")
  }

  private val Wildcard = "_$"

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val tokens = layouts(options).flatMap(_.tokens).distinct
    val scalars = tokens.flatMap(t => columnsOf(t)._1).distinct.sortBy(_._1)
    val maps = tokens.flatMap(t => columnsOf(t)._2).distinct.sorted
    // the parameter names of every query string, for the maps' members (or flattened columns)
    val params = mutable.LinkedHashMap.empty[String, mutable.LinkedHashSet[String]]
    maps.foreach(m => params(m) = mutable.LinkedHashSet.empty)
    files.foreach(f => lines(f, options, conf, params.keySet.toSet).foreach(_.maps.foreach { case (m, kv) =>
      params.get(m).foreach(_ ++= kv.map(_._1))
    }))
    val mapColumns = maps.map(m => StructField(m + Wildcard, StructType(params(m).toSeq.map(StructField(_, StringType)))))
    val flat = if (options.bool("flattenWildcards", default = false))
      maps.sortBy(m => (!m.startsWith("request_firstline_uri"), m)).flatMap(m => params(m).toSeq.map(k => StructField(s"${m}_$k", StringType)))
      else Nil
    StructType(scalars.map { case (n, t) => StructField(n, t) } ++ mapColumns ++ flat)
  }

  /** One parsed line: its scalar values (Spark's internal form) and its query-string maps. */
  private final case class Parsed(values: Map[String, Any], maps: Map[String, Seq[(String, String)]])

  private def lines(file: InputFile, o: FormatOptions, conf: Configuration, mapNames: Set[String]): Iterator[Parsed] = {
    val formats = layouts(o)
    val maxErrors = o.int("maxErrors", 0)
    val stampFormat = o.get("timestampFormat").filter(_.nonEmpty).map(p => p -> DateTimeFormatter.ofPattern(p, Locale.ENGLISH))
    var errors = 0
    var last = formats.head // a log's lines mostly fit one format: try the last one that fitted first
    LineInput.lines(this, file, conf).filter(_.text.trim.nonEmpty).flatMap { line =>
      (Iterator(last) ++ formats.iterator.filter(_ ne last)).map(l => l -> l.pattern.matcher(line.text))
        .find(_._2.matches()) match {
        case Some((layout, m)) =>
          last = layout
          val values = mutable.HashMap.empty[String, Any]
          val maps = mutable.HashMap.empty[String, Seq[(String, String)]]
          layout.tokens.zipWithIndex.foreach { case (token, i) =>
            fill(token, Option(m.group(i + 1)).filter(v => v.nonEmpty && v != "-").orNull, values, maps, stampFormat, file, line)
          }
          Some(Parsed(values.toMap, maps.filter(kv => mapNames(kv._1)).toMap))
        case None =>
          errors += 1
          if (errors > maxErrors) throw FormatErrors.badData(typeName, file.path, s"line ${line.number}",
            s"the line fits no logFormat (${formats.map(_.spec).mkString(" | ")}; maxErrors $maxErrors): " +
              (if (line.text.length > 200) line.text.take(200) + "..." else line.text))
          None
      }
    }
  }

  private def str(s: String): UTF8String = if (s == null) null else UTF8String.fromString(s)

  private def fill(token: String, raw: String, v: mutable.Map[String, Any], maps: mutable.Map[String, Seq[(String, String)]],
      stampFormat: Option[(String, DateTimeFormatter)], file: InputFile, line: NumberedLine): Unit = token match {
    case "%h" => Seq("connection_client_host", "connection_client_host_last").foreach(v(_) = str(raw))
    case "%l" => Seq("connection_client_logname", "connection_client_logname_last").foreach(v(_) = raw match {
      case null => null
      case s => s.toLongOption.map(java.lang.Long.valueOf).orNull
    })
    case "%u" => Seq("connection_client_user", "connection_client_user_last").foreach(v(_) = str(raw))
    case "%t" => if (raw != null) {
      val t = try stampFormat.fold(OffsetDateTime.parse(raw, ApacheTime))(f => OffsetDateTime.parse(raw, f._2))
      catch {
        case e: DateTimeParseException => throw FormatErrors.badData(typeName, file.path, s"line ${line.number}",
          s"the time [$raw] does not read as ${stampFormat.fold("dd/MMM/yyyy:HH:mm:ss Z")(_._1)} (timestampFormat): ${e.getMessage}")
      }
      time("request_receive_time", t, v)
      twin("request_receive_time", "request_receive_time_last", v)
    }
    case "%r" => if (raw != null) {
      val parts = raw.split(" ", -1)
      val (method, target, protocol) =
        if (parts.length >= 3) (parts.head, parts.slice(1, parts.length - 1).mkString(" "), parts.last)
        else if (parts.length == 2) (parts(0), parts(1), null)
        else (null, raw, null)
      val p = "request_firstline"
      v(p) = str(raw)
      v(s"${p}_method") = str(method)
      v(s"${p}_protocol") = str(protocol)
      v(s"${p}_protocol_version") = str(Option(protocol).filter(_.contains('/')).map(_.split('/').last).orNull)
      uri(s"${p}_uri", target, v, maps)
      twin(p, "request_firstline_original", v)
      maps.get("request_firstline_uri_query").foreach(maps("request_firstline_original_uri_query") = _)
    }
    case "%>s" => v("request_status_last") = str(raw)
    case "%b" => Seq("response_body_bytes", "response_body_bytes_last", "response_body_bytesclf").foreach(v(_) =
      Option(raw).flatMap(_.toLongOption).map(java.lang.Long.valueOf).orNull)
    case "%{referer}i" =>
      uri("request_referer", raw, v, maps)
      twin("request_referer", "request_referer_last", v)
      maps.get("request_referer_query").foreach(maps("request_referer_last_query") = _)
    case "%{user-agent}i" => Seq("request_user-agent", "request_user-agent_last").foreach(v(_) = str(raw))
    case _ =>
  }

  /** Drill's twin columns (`_last`, `_original`) hold the same values: copied, not computed again. */
  private def twin(from: String, to: String, v: mutable.Map[String, Any]): Unit =
    v.keys.filter(k => k == from || k.startsWith(from + "_")).toSeq.foreach { k =>
      val name = to + k.substring(from.length)
      if (!v.contains(name)) v(name) = v(k)
    }

  private val ApacheTime = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ENGLISH)

  private def time(p: String, t: OffsetDateTime, v: mutable.Map[String, Any]): Unit = {
    val utc = t.withOffsetSameInstant(ZoneOffset.UTC)
    val micros = utc.toEpochSecond * 1000000L + utc.getNano / 1000000 * 1000L
    v(p) = micros
    v(s"${p}_epoch") = micros
    v(s"${p}_timezone") = str(t.getOffset.getId)
    Seq("" -> t.toLocalDateTime, "__utc" -> utc.toLocalDateTime).foreach { case (suffix, l) =>
      def put(n: String, value: Any): Unit = v(s"${p}_$n$suffix") = value
      put("date", l.toLocalDate.toEpochDay.toInt)
      put("day", l.getDayOfMonth.toLong)
      put("hour", l.getHour.toLong)
      put("minute", l.getMinute.toLong)
      put("second", l.getSecond.toLong)
      put("millisecond", (l.getNano / 1000000).toLong)
      put("microsecond", (l.getNano / 1000 % 1000).toLong)
      put("nanosecond", (l.getNano % 1000).toLong)
      put("month", l.getMonthValue.toLong)
      put("monthname", str(l.getMonth.getDisplayName(TextStyle.FULL, Locale.ENGLISH)))
      put("year", l.getYear.toLong)
      put("weekofweekyear", l.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR).toLong)
      put("weekyear", l.get(IsoFields.WEEK_BASED_YEAR).toLong)
      put("time", timeOfDay(l))
    }
  }

  private def timeOfDay(l: LocalDateTime): Long = {
    val n = l.toLocalTime.getLong(ChronoField.NANO_OF_DAY)
    n - n % 1000000L
  }

  /** A URI's parts: `<p>_host`, `_path`, `_port`, `_protocol`, `_query` (with `&` for `?`, as
   * Drill shows it), `_ref`, `_userinfo`, and its query parameters as the map `<p>_query`. */
  private def uri(p: String, uriText: String, v: mutable.Map[String, Any], maps: mutable.Map[String, Seq[(String, String)]]): Unit = {
    v(p) = str(uriText)
    if (uriText != null) {
      val (base, fragment) = uriText.indexOf('#') match { case -1 => (uriText, null) case i => (uriText.take(i), uriText.drop(i + 1)) }
      val (path, query) = base.indexOf('?') match { case -1 => (base, null) case i => (base.take(i), base.drop(i + 1)) }
      val parsed = try Some(new URI(path.replace(" ", "%20"))) catch { case _: URISyntaxException => None }
      v(s"${p}_protocol") = str(parsed.flatMap(u => Option(u.getScheme)).orNull)
      v(s"${p}_host") = str(parsed.flatMap(u => Option(u.getHost)).orNull)
      v(s"${p}_port") = parsed.map(_.getPort).filter(_ >= 0).map(i => java.lang.Long.valueOf(i.toLong)).orNull
      v(s"${p}_userinfo") = str(parsed.flatMap(u => Option(u.getRawUserInfo)).orNull)
      v(s"${p}_path") = str(parsed.flatMap(u => Option(u.getRawPath)).filter(_.nonEmpty).getOrElse(if (parsed.isEmpty) path else null))
      v(s"${p}_ref") = str(fragment)
      v(s"${p}_query") = str(Option(query).filter(_.nonEmpty).map("&" + _).orNull)
      val params = Option(query).toSeq.flatMap(_.split('&')).filter(_.nonEmpty).map { kv =>
        val at = kv.indexOf('=')
        def decode(s: String) = try URLDecoder.decode(s, StandardCharsets.UTF_8) catch { case _: IllegalArgumentException => s }
        if (at < 0) decode(kv) -> "" else decode(kv.take(at)) -> decode(kv.drop(at + 1))
      }
      maps(s"${p}_query") = params
    }
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val flat = options.bool("flattenWildcards", default = false)
    val mapNames = schema.fieldNames.filter(_.endsWith(Wildcard)).map(_.dropRight(Wildcard.length)).toSet ++
      layouts(options).flatMap(_.tokens).flatMap(t => columnsOf(t)._2)
    lines(file, options, conf, mapNames).map { parsed =>
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
