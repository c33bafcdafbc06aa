package drillspark.formats.logs

import java.net.{URI, URISyntaxException, URLDecoder}
import java.nio.charset.StandardCharsets
import java.time.{LocalDateTime, OffsetDateTime, ZoneOffset}
import java.time.format.{DateTimeFormatter, DateTimeFormatterBuilder, DateTimeParseException, TextStyle}
import java.time.temporal.{ChronoField, IsoFields}
import java.util.Locale

import scala.collection.mutable

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** One parsed line while it is filled: scalar values (Spark's internal form) and the
 * query-string / cookie maps by their column prefix (the map column is `<prefix>_$`). */
private[logs] final class HttpdLine {
  val values: mutable.HashMap[String, Any] = mutable.HashMap.empty
  val maps: mutable.HashMap[String, Seq[(String, String)]] = mutable.HashMap.empty
  /** parseUserAgent and the scan reads an agent column: run Yauaa on the agent */
  var analyzeAgents: Boolean = false
}

/**
 * What one LogFormat token gives: the regex its text matches in a line, Drill's columns for
 * it (names and types as Drill 1.22's httpd format lists them), the maps among them, and
 * how its text (never null, never `-`) fills a line. `copies` are Drill's twin columns
 * (`_last`, `_original`): the same values under another prefix, copied once filled.
 */
private[logs] final case class HttpdToken(
    text: String,
    regex: String,
    columns: Seq[(String, DataType)],
    maps: Seq[String],
    fill: (String, HttpdLine) => Unit,
    copies: Seq[(String, String)] = Nil,
    mapCopies: Seq[(String, String)] = Nil)

/**
 * Apache mod_log_config tokens (`%h`, `%>s`, `%{Referer}i`, `%{msec}t`, ...) as Drill's
 * httpd format (its httpdlog parser) names and types their fields. A token without a
 * modifier gives its field and Drill's default twin (`_last` for most, `_original` for `%r`,
 * `%s`, `%U`, `%T`); `%>x` gives only the `_last` field and `%<x` only the `_original`.
 */
private[logs] object HttpdTokens {
  /** A token's text its type cannot read (a time); the reader names the file and line. */
  final class BadValue(message: String) extends RuntimeException(message)

  private val ApachePattern = "dd/MMM/yyyy:HH:mm:ss Z"
  private val ApacheTime = DateTimeFormatter.ofPattern(ApachePattern, Locale.ENGLISH)

  private[logs] def str(s: String): UTF8String = if (s == null) null else UTF8String.fromString(s)

  private def long(s: String): Any = s.toLongOption.map(java.lang.Long.valueOf).orNull

  // the regexes of a token's text
  private val Word = "(\\S*)"
  private val Number = "(-|\\d+)"
  private val Text = "(.*?)"

  /** The prefixes a token's field is written under, by its modifier and default twin. */
  private def prefixes(base: String, modifier: String, twin: String): Seq[String] = modifier match {
    case ">" if twin.nonEmpty => Seq(s"${base}_last")
    case "<" if twin.nonEmpty => Seq(s"${base}_original")
    case _ => if (twin.isEmpty) Seq(base) else Seq(base, base + twin)
  }

  /** A token giving one value per prefix (its text as VARCHAR or BIGINT). */
  private def scalar(text: String, regex: String, base: String, t: DataType, modifier: String, twin: String): HttpdToken = {
    val names = prefixes(base, modifier, twin)
    val convert: String => Any = if (t == LongType) long else str
    HttpdToken(text, regex, names.map(_ -> t), Nil, (raw, line) => {
      val v = convert(raw)
      names.foreach(line.values(_) = v)
    })
  }

  /** A family of columns: filled under the first prefix, copied to the others. */
  private def family(text: String, regex: String, names: Seq[String], suffixes: Seq[(String, DataType)], mapSuffixes: Seq[String],
      fill: (String, String, HttpdLine) => Unit): HttpdToken = {
    val head = names.head
    HttpdToken(text, regex,
      names.flatMap(p => suffixes.map { case (s, t) => (p + s) -> t }),
      names.flatMap(p => mapSuffixes.map(p + _)),
      (raw, line) => fill(head, raw, line),
      names.tail.flatMap(p => suffixes.map { case (s, _) => (head + s) -> (p + s) }),
      names.tail.flatMap(p => mapSuffixes.map(s => (head + s) -> (p + s))))
  }

  /** The token `%<modifier>{<arg>}<letter>`, or None when Drill's parser has no field for it. */
  def of(text: String, modifier: String, arg: String, letter: Char, others: Set[String],
      stamp: Option[(String, DateTimeFormatter)], parseUserAgent: Boolean): Option[HttpdToken] = {
    val a = arg.toLowerCase(Locale.ROOT)
    def one(regex: String, base: String, t: DataType = StringType, twin: String = "_last") =
      Some(scalar(text, regex, base, t, modifier, twin))
    (letter, a) match {
      case ('a', "") => one(Word, "connection_client_ip")
      case ('a', "c") => one(Word, "connection_client_peerip")
      case ('A', "") => one(Word, "connection_server_ip")
      case ('B', "") => one("(\\d+)", "response_body_bytes", LongType)
      case ('b', "") =>
        // with %B in the format, %B's value is the `_last` one (Drill's)
        val all = Seq("response_body_bytes", "response_body_bytes_last", "response_body_bytesclf")
        val names = if (others.contains("%B")) all.filterNot(_.endsWith("_last")) else all
        Some(HttpdToken(text, Number, all.map(_ -> LongType), Nil,
          (raw, line) => { val v = long(raw); names.foreach(line.values(_) = v) }))
      case ('C', c) if c.nonEmpty => one(Text, s"request_cookies_$c", twin = "")
      case ('D', "") => one(Number, "server_process_time", LongType, "")
      case ('e', e) if e.nonEmpty => one(Text, s"server_environment_$e", twin = "")
      case ('f', "") => one(Word, "server_filename")
      case ('h', "") => one(Word, "connection_client_host")
      case ('H', "") => one(Word, "request_protocol")
      case ('i', "referer") => Some(family(text, Text, prefixes("request_referer", modifier, "_last"), uriSuffixes, Seq("_query"),
        (p, raw, line) => uri(p, raw, line)))
      case ('i', "user-agent") if parseUserAgent =>
        val url = "_" + HttpdUserAgents.column(HttpdUserAgents.UrlField)
        val suffixes = (("" -> StringType) +: HttpdUserAgents.suffixes.map(_._2 -> StringType)) ++
          uriSuffixes.tail.map { case (s, t) => (url + s) -> t }
        Some(family(text, Text, prefixes("request_user-agent", modifier, "_last"), suffixes, Seq(url + "_query"),
          (p, raw, line) => {
            line.values(p) = str(raw)
            if (line.analyzeAgents) {
              val agent = HttpdUserAgents.analyzer.parse(raw)
              HttpdUserAgents.suffixes.foreach { case (field, suffix) =>
                val value = agent.getValue(field)
                if (field == HttpdUserAgents.UrlField) uri(p + suffix, value, line) else line.values(p + suffix) = str(value)
              }
            }
          }))
      case ('i', "user-agent") => one(Text, "request_user-agent")
      case ('i', "cookie") => Some(family(text, Text, prefixes("request_cookies", modifier, "_last"), Seq("" -> StringType), Seq(""),
        (p, raw, line) => { line.values(p) = str(raw); line.maps(p) = cookies(raw) }))
      case ('i', h) if h.nonEmpty => one(Text, s"request_header_$h", twin = "")
      case ('k', "") => one(Number, "connection_keepalivecount", LongType)
      case ('l', "") => one(Word, "connection_client_logname", LongType)
      case ('L', "") => one(Word, "request_errorlogid")
      case ('m', "") => one(Word, "request_method")
      case ('n', n) if n.nonEmpty => one(Text, s"server_module__note_$n", twin = "")
      case ('o', "set-cookie") =>
        // Drill lists a set-cookie's attributes as columns it leaves empty, and maps each
        // cookie's name to its whole text
        val attributes = Seq("_$_comment" -> StringType, "_$_domain" -> StringType, "_$_expires" -> TimestampNTZType,
          "_$_path" -> StringType, "_$_value" -> StringType)
        Some(family(text, Text, prefixes("response_cookies", modifier, "_last"), ("" -> StringType) +: attributes, Seq(""),
          (p, raw, line) => { line.values(p) = str(raw); line.maps(p) = setCookies(raw) }))
      case ('o', h) if h.nonEmpty => one(Text, s"response_header_$h", twin = "")
      case ('p', "") => one(Number, "request_server_port_canonical", LongType)
      case ('p', "canonical") => one(Number, "connection_server_port_canonical", LongType)
      case ('p', "local") => one(Number, "connection_server_port", LongType)
      case ('p', "remote") => one(Number, "connection_client_port", LongType)
      case ('P', "" | "pid") => one(Number, "connection_server_child_processid", LongType)
      case ('q', "") => Some(family(text, Word, prefixes("request_querystring", modifier, "_last"), Seq("" -> StringType), Seq(""),
        (p, raw, line) => { line.values(p) = str(raw); line.maps(p) = params(raw) }))
      case ('r', "") => Some(family(text, Text, prefixes("request_firstline", modifier, "_original"), firstLineSuffixes, Seq("_uri_query"),
        (p, raw, line) => firstLine(p, raw, line)))
      case ('R', "") => one(Word, "request_handler")
      case ('s', "") => one(Word, "request_status", twin = "_original")
      case ('t', "") =>
        val (pattern, format) = stamp.getOrElse(ApachePattern -> ApacheTime)
        Some(family(text, "\\[([^\\]]*)\\]", prefixes("request_receive_time", modifier, "_last"), timeColumns(""), Nil,
          (p, raw, line) => {
            val t = try OffsetDateTime.parse(raw, format) catch {
              case e: DateTimeParseException => throw new BadValue(s"the time [$raw] does not read as $pattern (timestampFormat): ${e.getMessage}")
            }
            time(p, t, t.getOffset.getId, line.values)
          }))
      case ('t', "sec") => one(Number, "request_receive_time_sec", LongType)
      case ('t', "msec" | "usec" | "msec_frac" | "usec_frac") =>
        val unit = a.take(4)
        val frac = a.endsWith("_frac")
        val t = if (unit == "msec") TimestampNTZType else LongType
        val base = s"request_receive_time_$unit${if (frac) "__frac" else ""}"
        val begin = s"request_receive_time_begin_$unit${if (frac) "__frac" else ""}"
        val names = prefixes(base, modifier, "_last") :+ begin
        Some(HttpdToken(text, "(-|\\d+)", names.map(_ -> t), Nil, (raw, line) => {
          val v = raw.toLongOption.map(n => java.lang.Long.valueOf(if (unit == "msec") n * 1000L else n)).orNull
          names.foreach(line.values(_) = v)
        }))
      case ('T', _) => one(Number, "response_server_processing_time", LongType, "_original")
      case ('u', "") => one(Word, "connection_client_user")
      case ('U', "") => one(Word, "request_urlpath", twin = "_original")
      case ('v', "") => one(Word, "connection_server_name_canonical")
      case ('V', "") => one(Word, "connection_server_name")
      case ('X', "") => one(Word, "response_connection_status")
      case ('I', "") => one(Number, "request_bytes", LongType)
      case ('O', "") => one(Number, "response_bytes", LongType)
      case ('S', "") => one(Number, "total_bytes", LongType)
      case ('t', _) if arg.contains('%') =>
        // a strftime pattern: the text as VARCHAR and its parts (Drill gives no twin)
        strftime(arg).map { case (format, regex) =>
          val zoned = arg.contains("%z")
          HttpdToken(text, regex, timeColumns("request_receive_time", StringType), Nil, (raw, line) => {
            val t = try {
              val parsed = format.parse(raw)
              if (zoned) OffsetDateTime.from(parsed) else LocalDateTime.from(parsed).atOffset(ZoneOffset.UTC)
            } catch {
              case e: java.time.DateTimeException => throw new BadValue(s"the time [$raw] does not read as $arg: ${e.getMessage}")
            }
            time("request_receive_time", t, t.getOffset.getId, line.values, str(raw))
          })
        }
      case _ => None
    }
  }

  // ------------------------------------------------------------------ time
  private val TimeParts: Seq[(String, DataType)] = Seq("date" -> DateType, "day" -> LongType, "hour" -> LongType,
    "microsecond" -> LongType, "millisecond" -> LongType, "minute" -> LongType, "month" -> LongType,
    "monthname" -> StringType, "nanosecond" -> LongType, "second" -> LongType, "time" -> TimeType(3),
    "weekofweekyear" -> LongType, "weekyear" -> LongType, "year" -> LongType)

  /** The columns of a receive time: itself (TIMESTAMP, or the text for a strftime format),
   * `_epoch`, `_timezone` and its parts in the line's zone and in UTC (`__utc`). */
  def timeColumns(p: String, self: DataType = TimestampNTZType): Seq[(String, DataType)] =
    Seq(p -> self, s"${p}_epoch" -> TimestampNTZType, s"${p}_timezone" -> StringType) ++
      TimeParts.flatMap { case (n, t) => Seq(s"${p}_$n" -> t, s"${p}_${n}__utc" -> t) }

  def time(p: String, t: OffsetDateTime, zoneShown: String, v: mutable.Map[String, Any], self: Any = null): Unit = {
    val utc = t.withOffsetSameInstant(ZoneOffset.UTC)
    val micros = utc.toEpochSecond * 1000000L + utc.getNano / 1000000 * 1000L
    v(p) = if (self == null) micros else self
    v(s"${p}_epoch") = micros
    v(s"${p}_timezone") = str(zoneShown)
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

  /** A strftime pattern (`%{%Y-%m-%d %H:%M:%S}t`) as a java.time formatter and the regex of
   * its text; None when it uses a conversion this reader does not know. */
  def strftime(pattern: String): Option[(DateTimeFormatter, String)] = {
    val b = new DateTimeFormatterBuilder().parseCaseInsensitive()
    val regex = new StringBuilder
    var i = 0
    while (i < pattern.length) {
      val c = pattern.charAt(i)
      if (c == '%' && i + 1 < pattern.length) {
        i += 1
        pattern.charAt(i) match {
          case 'Y' => b.appendValue(ChronoField.YEAR, 4); regex ++= "\\d{4}"
          case 'm' => b.appendValue(ChronoField.MONTH_OF_YEAR, 2); regex ++= "\\d{2}"
          case 'd' => b.appendValue(ChronoField.DAY_OF_MONTH, 2); regex ++= "\\d{2}"
          case 'H' => b.appendValue(ChronoField.HOUR_OF_DAY, 2); regex ++= "\\d{2}"
          case 'M' => b.appendValue(ChronoField.MINUTE_OF_HOUR, 2); regex ++= "\\d{2}"
          case 'S' => b.appendValue(ChronoField.SECOND_OF_MINUTE, 2); regex ++= "\\d{2}"
          case 'b' | 'h' => b.appendText(ChronoField.MONTH_OF_YEAR, TextStyle.SHORT); regex ++= "[A-Za-z]{3}"
          case 'B' => b.appendText(ChronoField.MONTH_OF_YEAR, TextStyle.FULL); regex ++= "[A-Za-z]+"
          case 'a' => b.appendText(ChronoField.DAY_OF_WEEK, TextStyle.SHORT); regex ++= "[A-Za-z]{3}"
          case 'A' => b.appendText(ChronoField.DAY_OF_WEEK, TextStyle.FULL); regex ++= "[A-Za-z]+"
          case 'z' => b.appendOffset("+HHMM", "+0000"); regex ++= "[+-]\\d{4}"
          case 'T' => b.appendPattern("HH:mm:ss"); regex ++= "\\d{2}:\\d{2}:\\d{2}"
          case 'F' => b.appendPattern("yyyy-MM-dd"); regex ++= "\\d{4}-\\d{2}-\\d{2}"
          case '%' => b.appendLiteral('%'); regex ++= "%"
          case _ => return None
        }
      } else {
        b.appendLiteral(c)
        regex ++= java.util.regex.Pattern.quote(c.toString)
      }
      i += 1
    }
    Some(b.toFormatter(Locale.ENGLISH) -> s"(${regex.toString}|-)")
  }

  // ------------------------------------------------------------------ URIs, query strings, cookies
  private val uriSuffixes: Seq[(String, DataType)] = Seq("" -> StringType) ++
    Seq("host", "path", "protocol", "query", "ref", "userinfo").map(n => s"_$n" -> StringType) :+ ("_port" -> LongType)

  private val firstLineSuffixes: Seq[(String, DataType)] =
    Seq("" -> StringType, "_method" -> StringType, "_protocol" -> StringType, "_protocol_version" -> StringType) ++
      uriSuffixes.map { case (s, t) => s"_uri$s" -> t }

  private def firstLine(p: String, raw: String, line: HttpdLine): Unit = {
    val v = line.values
    val parts = raw.split(" ", -1)
    val (method, target, protocol) =
      if (parts.length >= 3) (parts.head, parts.slice(1, parts.length - 1).mkString(" "), parts.last)
      else if (parts.length == 2) (parts(0), parts(1), null)
      else (null, raw, null)
    v(p) = str(raw)
    v(s"${p}_method") = str(method)
    v(s"${p}_protocol") = str(protocol)
    v(s"${p}_protocol_version") = str(Option(protocol).filter(_.contains('/')).map(_.split('/').last).orNull)
    uri(s"${p}_uri", target, line)
  }

  /** A URI's parts: `<p>_host`, `_path`, `_port`, `_protocol`, `_query` (with `&` for `?`, as
   * Drill shows it), `_ref`, `_userinfo`, and its query parameters as the map `<p>_query`. */
  private def uri(p: String, uriText: String, line: HttpdLine): Unit = {
    val v = line.values
    v(p) = str(uriText)
    val (base, fragment) = uriText.indexOf('#') match { case -1 => (uriText, null) case i => (uriText.take(i), uriText.drop(i + 1)) }
    val (path, query) = base.indexOf('?') match { case -1 => (base, null) case i => (base.take(i), base.drop(i + 1)) }
    val parsed = try Some(new URI(path.replace(" ", "%20"))) catch { case _: URISyntaxException => None }
    v(s"${p}_protocol") = str(parsed.flatMap(u => Option(u.getScheme)).orNull)
    v(s"${p}_host") = str(parsed.flatMap(u => Option(u.getHost)).orNull)
    v(s"${p}_port") = parsed.map(_.getPort).filter(_ >= 0).map(i => java.lang.Long.valueOf(i.toLong)).orNull
    v(s"${p}_userinfo") = str(parsed.flatMap(u => Option(u.getRawUserInfo)).orNull)
    // the path percent-decoded as Drill gives it (`/a%20b` is `/a b`, `+` kept); one with a
    // malformed escape (`%zz`) is no URI and stays as written
    v(s"${p}_path") = str(parsed.flatMap(u => Option(u.getPath)).filter(_.nonEmpty).getOrElse(if (parsed.isEmpty) path else null))
    v(s"${p}_ref") = str(fragment)
    v(s"${p}_query") = str(Option(query).filter(_.nonEmpty).map("&" + _).orNull)
    line.maps(s"${p}_query") = if (query == null) Nil else params(query)
  }

  private def decode(s: String): String =
    try URLDecoder.decode(s, StandardCharsets.UTF_8) catch { case _: IllegalArgumentException => s }

  /** `a=1&b=%20c&d` as (name, decoded value) pairs; a name without `=` has the value ''.
   * `%q`'s leading `?` stays in the first name, as Drill's parser leaves it. A repeated name
   * is one pair holding its values joined in order (`q=%C3%A9&q=2` is `q` = `é2`), as Drill
   * gives it in the map and the flattened column alike. */
  private def params(query: String): Seq[(String, String)] = {
    val joined = mutable.LinkedHashMap.empty[String, java.lang.StringBuilder]
    query.split('&').iterator.filter(_.nonEmpty).foreach { kv =>
      val at = kv.indexOf('=')
      val (k, value) = if (at < 0) decode(kv) -> "" else decode(kv.take(at)) -> decode(kv.drop(at + 1))
      joined.getOrElseUpdate(k, new java.lang.StringBuilder).append(value)
    }
    joined.toSeq.map { case (k, b) => k -> b.toString }
  }

  /** A Cookie header `a=1; b=2` as its (name, value) pairs. */
  private def cookies(raw: String): Seq[(String, String)] =
    raw.split(';').toSeq.map(_.trim).filter(_.nonEmpty).map { kv =>
      val at = kv.indexOf('=')
      if (at < 0) kv -> "" else kv.take(at).trim -> kv.drop(at + 1).trim
    }

  /** A logged Set-Cookie `x=1; Path=/, y=2; Path=/a` as (name, that cookie's whole text),
   * the way Drill's map holds it; a comma starts a new cookie unless it is inside an
   * `Expires` date (`Wed, 09 Jun 2025`). */
  private def setCookies(raw: String): Seq[(String, String)] =
    raw.split(",\\s*(?=[^;,=\\s]+=)").toSeq.map(_.trim).filter(_.nonEmpty).map { c =>
      val at = c.indexOf('=')
      (if (at < 0) c else c.take(at).trim) -> c
    }
}
