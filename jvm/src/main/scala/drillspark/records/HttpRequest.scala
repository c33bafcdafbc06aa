package drillspark.records

import java.nio.charset.StandardCharsets
import java.util.{Base64, Locale}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

import drillspark.source.input.DrillScanException

/**
 * One read of an `http` plugin's connection, as the plugin's Python module writes it from the
 * config (plugin_configs/http.py owns the fields and Drill's defaults): the connection's
 * fields, the table name (`tail`), the parameters a WHERE clause pushed, the LIMIT, and the
 * plugin's timeout, proxy and cacheResults. JSON keys (absent: Drill's default):
 * `plugin`, `connection`, `url`, `requireTail`, `tail`, `method`, `headers` {name: value},
 * `authType`, `username`, `password` (basic credentials, resolved), `postBody`,
 * `postParameterLocation`, `params` {name: value}, `limit`, `limitQueryParam`, `dataPath`,
 * `errorOn400`, `paginator` {Drill's fields}, `inputType`, `skipEmptyLines`, `timeout`
 * (seconds, 0: 10), `proxy` {type, host, port, username, password}, `cacheResults`, `maxBodyBytes` (the
 * largest answer read, HttpTransport.MaxBodyBytes; tests lower it).
 */
final case class HttpRequest(spec: ObjectNode) {
  private def text(key: String): Option[String] =
    Option(spec.get(key)).filter(n => !n.isNull).map(_.asText).filter(_.nonEmpty)
  private def flag(key: String, default: Boolean): Boolean =
    Option(spec.get(key)).filter(n => !n.isNull).map(_.asBoolean(default)).getOrElse(default)
  private def fields(key: String): Seq[(String, JsonNode)] =
    Option(spec.get(key)).filter(_.isObject).toSeq.flatMap(_.properties().asScala.map(e => e.getKey -> e.getValue))

  val plugin: String = text("plugin").getOrElse("")
  val connection: String = text("connection").getOrElse("")
  val method: String = text("method").getOrElse("GET").toUpperCase(Locale.ROOT)
  val inputType: String = text("inputType").getOrElse("json").toLowerCase(Locale.ROOT)
  val dataPath: String = text("dataPath").getOrElse("")
  val errorOn400: Boolean = flag("errorOn400", default = false)
  val limit: Option[Long] = Option(spec.get("limit")).filter(_.canConvertToLong).map(_.asLong).filter(_ >= 0)
  val limitParam: Option[String] = text("limitQueryParam")
  val skipEmptyLines: Boolean = flag("skipEmptyLines", default = true)
  val paginator: Option[HttpPaginator] = Option(spec.get("paginator")).filter(p => p.isObject && !p.isEmpty)
    .map(HttpPaginator(connection, _))
  private val params: Seq[(String, JsonNode)] = fields("params")

  /** Errors' name for a request of this read (page 0: no paginator). */
  def where(page: Int, url: String): String = call.where(page, url)
  def where(): String = where(0, url)

  /** The connection's URL with its URL parameters filled and the table name appended
   * (requireTail), kept on the connection's own scheme, host and port. */
  lazy val url: String = {
    val base = filled(text("url").getOrElse(throw new DrillScanException(s"connection '$connection': no url")))
    val tail = text("tail")
    val requireTail = flag("requireTail", default = true)
    if (requireTail && tail.isEmpty) throw new DrillScanException(s"http plugin '$plugin', connection " +
      s"'$connection' needs a table name after it (requireTail): $plugin.$connection.`...`")
    val u = base + (if (requireTail) tail.getOrElse("") else "")
    if (!HttpUrls.sameHost(base, u)) throw new DrillScanException(s"connection '$connection': the table name " +
      s"'${tail.getOrElse("")}' would lead away from ${HttpUrls.origin(base)} (only the configured host is contacted)")
    if (!HttpUrls.wellFormed(u)) throw new DrillScanException(
      if (!HttpUrls.wellFormed(base)) s"http plugin '$plugin', connection '$connection': its url is not a " +
        s"well-formed URL (${HttpUrls.shown(base)}); " + HttpRequest.Escape
      else s"http plugin '$plugin', connection '$connection': the table name `${tail.getOrElse("")}` does not make " +
        "a well-formed URL; " + HttpRequest.Escape + ", as in `a%20b`")
    u
  }

  /** `url` with Drill's URL parameters (`{name}`, `{name=default}`: `urlParams`, their names, found
   * by plugin_configs/http.py in the path and query alone) filled, each by the WHERE clause's value
   * (`urlValues`, names in any case) else the default its `{name=default}` writes, encoded as one
   * path segment (a value cannot add a `/`, `?` or `#`); one with neither is Drill's error, and so
   * is a value '', '.' or '..' in the path (it would change the path: `/orgs//repos`,
   * `/orgs/../repos`), refused before anything is asked. */
  private def filled(url: String): String = {
    val declared = Option(spec.get("urlParams")).exists(n => n.isArray && !n.isEmpty)
    if (!declared) url
    else {
      val values = fields("urlValues")
      // where the query starts (a `?` in a parameter's default is none)
      val bare = HttpRequest.UrlParameter.replaceAllIn(url, m => "_" * m.matched.length)
      val query = bare.indexOf('?') match { case -1 => url.length case i => i }
      HttpRequest.UrlParameter.replaceAllIn(url, m => {
        val name = m.group(1)
        val value = values.find(_._1.equalsIgnoreCase(name)).map(v => HttpRequest.asText(v._2))
          .orElse(Option(m.group(2))).getOrElse(throw new DrillScanException(s"http plugin '$plugin', connection " +
            s"'$connection': API Query with URL Parameters must be populated: give $name in the WHERE clause " +
            s"of a drillspark.sql query ($name = '...') or a default in the connection's url ({$name=...})"))
        if (m.start < query && (value.isEmpty || value == "." || value == ".."))
          throw new DrillScanException(s"http plugin '$plugin', connection '$connection': URL parameter " +
            s"$name cannot be '$value' (in the url's path an empty value, . or .. would change the path, " +
            s"as /a//b or /a/../b); nothing was requested")
        scala.util.matching.Regex.quoteReplacement(HttpUrls.encode(value).replace("+", "%20"))
      })
    }
  }

  /** The parameters for the query string, and the body of a POST with its content type, as
   * Drill 1.22 sends them (by `postParameterLocation`): QUERY_STRING: parameters in the URL,
   * `postBody`'s lines as a form (`a=1` and `b=2` as a=1&b=2); POST_BODY: the parameters after
   * those lines in the form; JSON_BODY: one object of both, values as text; XML_BODY:
   * `<request><p>v</p>...</request>` of the parameters alone. A GET sends none. */
  lazy val (query: Seq[(String, String)], body: Option[Array[Byte]], contentType: Option[String]) = {
    val inUrl = params.map { case (k, v) => k -> HttpRequest.inQuery(v) }
    if (method != "POST") (inUrl, None, None)
    else {
      val lines = text("postBody").toSeq.flatMap(_.split("\r\n|\r|\n")).map(_.trim).filter(_.nonEmpty)
      val values = params.map { case (k, v) => k -> HttpRequest.asText(v) }
      val form = "application/x-www-form-urlencoded"
      text("postParameterLocation").getOrElse("QUERY_STRING").toUpperCase(Locale.ROOT) match {
        case "POST_BODY" =>
          val all = lines ++ (if (values.nonEmpty) Seq(HttpUrls.urlencode(values)) else Nil)
          (Nil, Some(bytes(all.mkString("&"))), Some(form))
        case "JSON_BODY" =>
          val o = HttpRequest.Json.createObjectNode()
          lines.foreach { ln => val eq = ln.indexOf('='); if (eq < 0) o.put(ln, "") else o.put(ln.substring(0, eq), ln.substring(eq + 1)) }
          values.foreach { case (k, v) => o.put(k, v) }
          (Nil, Some(bytes(HttpRequest.Json.writeValueAsString(o))), Some("application/json"))
        case "XML_BODY" =>
          val inner = values.map { case (k, v) => s"<$k>${HttpRequest.xmlEscape(v)}</$k>" }.mkString
          (Nil, Some(bytes(s"<request>$inner</request>")), Some("application/xml"))
        case _ => (inUrl, Some(bytes(lines.mkString("&"))), Some(form))
      }
    }
  }

  private def bytes(s: String) = s.getBytes(StandardCharsets.UTF_8)

  /** The connection's headers, its basic credentials and the body's content type included. */
  private lazy val headers: Seq[(String, String)] = {
    val configured = fields("headers").map { case (k, v) => k -> v.asText }
    configured.foreach { case (k, v) =>
      if (k.isEmpty || !k.forall(ch => ch > ' ' && ch < 127 && !"()<>@,;:\\\"/[]?={}".contains(ch)))
        throw new DrillScanException(s"http plugin '$plugin', connection '$connection': '$k' is not a valid " +
          "HTTP header name")
      if (v.exists(ch => (ch < ' ' && ch != '\t') || ch == 127)) throw new DrillScanException(s"http plugin " +
        s"'$plugin', connection '$connection': the value of header '$k' holds a line break or another control " +
        "character, which a header may not")
    }
    val auth = if (text("authType").exists(_.equalsIgnoreCase("basic"))) {
      val user = text("username").getOrElse(throw new DrillScanException(s"http plugin '$plugin', connection " +
        s"'$connection': authType basic needs credentialsProvider.credentials.username and password"))
      val token = Base64.getEncoder.encodeToString(bytes(s"$user:${text("password").getOrElse("")}"))
      Seq("Authorization" -> s"Basic $token")
    } else Nil
    val kept = configured.filterNot { case (k, _) => auth.nonEmpty && k.equalsIgnoreCase("Authorization") } ++ auth
    val typed = contentType.filterNot(_ => kept.exists(_._1.equalsIgnoreCase("Content-Type"))).map("Content-Type" -> _)
    kept ++ typed
  }

  /** The plugin's proxy: none for `proxyType` direct (Drill's default) or no host; an error
   * for a type other than http. */
  private lazy val proxy: Option[HttpProxy] = Option(spec.get("proxy")).filter(_.isObject).flatMap { p =>
    def t(k: String) = Option(p.get(k)).filter(n => !n.isNull).map(_.asText.trim).filter(_.nonEmpty)
    val kind = t("type").getOrElse("direct").toLowerCase(Locale.ROOT)
    val host = t("host")
    if (kind == "direct" || host.isEmpty) None
    else if (kind != "http") throw new DrillScanException(
      s"http plugin '$plugin': proxyType '$kind' is not supported here (direct or http)")
    else Some(HttpProxy(host.get, t("port").flatMap(_.toIntOption).filter(_ > 0).getOrElse(80), t("username"),
      t("password")))
  }

  lazy val call: HttpCall = {
    val timeout = Option(spec.get("timeout")).filter(_.isNumber).map(_.asDouble).filter(_ > 0).getOrElse(10.0)
    val maxBody = Option(spec.get("maxBodyBytes")).filter(_.canConvertToLong).map(_.asLong).filter(_ > 0)
      .getOrElse(HttpTransport.MaxBodyBytes)
    HttpCall(plugin, connection, method, headers, body, timeout, errorOn400, proxy, flag("cacheResults", default = false),
      url, maxBody)
  }
}

object HttpRequest {
  private[records] val Json = new ObjectMapper()
  private val Escape = "a space, |, \", {, }, ^, ` or a % not starting an escape is written %XX"
  // a URL parameter: {name} or {name=default}, a name of ASCII letters, digits and _ (Drill's \w+);
  // the same text as plugin_configs/http.py's _URL_PARAMETER (a test compares the two)
  private val UrlParameter = """\{ *([A-Za-z0-9_]+) *(?:=([^{}]*))?\}""".r

  def parse(spec: String): HttpRequest = Json.readTree(spec) match {
    case o: ObjectNode => HttpRequest(o)
    case _ => throw new IllegalArgumentException("an http request spec is a JSON object")
  }

  /** A value as Drill's request text: true / false, a number as written. */
  def asText(v: JsonNode): String = if (v.isNull) "None" else v.asText

  /** A pushed value in the query string, as Python's urlencode wrote it (the requests pinned
   * against Drill's were made so): a boolean True / False. */
  def inQuery(v: JsonNode): String = if (v.isBoolean) (if (v.asBoolean) "True" else "False") else asText(v)

  def xmlEscape(s: String): String = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
}
