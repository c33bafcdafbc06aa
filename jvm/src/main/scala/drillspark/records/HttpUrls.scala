package drillspark.records

import java.nio.charset.StandardCharsets

/** URLs as the http plugin handles them, by Python's rules (urllib.parse), which the plugin's
 * requests were pinned with: the one same-host rule, query strings, joins. */
object HttpUrls {
  /** (scheme in lower case, netloc as written) as urlsplit gives them. */
  private def split(url: String): (String, String, String) = {
    val colon = url.indexOf(':')
    val hasScheme = colon > 0 && url.substring(0, colon).forall(ch => ch.isLetterOrDigit || "+-.".contains(ch)) &&
      url.charAt(0).isLetter
    val scheme = if (hasScheme) url.substring(0, colon).toLowerCase(java.util.Locale.ROOT) else ""
    val rest = if (hasScheme) url.substring(colon + 1) else url
    if (!rest.startsWith("//")) return (scheme, "", rest)
    val after = rest.substring(2)
    val end = after.indexWhere(ch => ch == '/' || ch == '?' || ch == '#')
    if (end < 0) (scheme, after, "") else (scheme, after.substring(0, end), after.substring(end))
  }

  def netloc(url: String): String = split(url)._2

  /** Whether `other` is on `url`'s scheme, host and port: the one rule by which only a
   * configured host is contacted (table names, next pages, redirects). */
  def sameHost(url: String, other: String): Boolean = {
    val (a, b) = (split(url), split(other))
    a._1 == b._1 && a._2 == b._2
  }

  /** The scheme and host of `url` as messages show them. */
  def origin(url: String): String = { val (s, n, _) = split(url); shown(s"$s://$n") }

  /** `url` as messages show it: a password in its user part masked. */
  def shown(url: String): String = {
    val n = netloc(url)
    val at = n.lastIndexOf('@')
    if (at < 0) url
    else {
      val user = n.substring(0, at)
      val colon = user.indexOf(':')
      if (colon < 0) url else url.replace(s"${user.substring(colon)}@", ":*****@")
    }
  }

  def query(url: String): String = {
    val rest = split(url)._3
    val q = rest.indexOf('?')
    if (q < 0) "" else rest.substring(q + 1).takeWhile(_ != '#')
  }

  /** Python's quote_plus: letters, digits and `_.-~` kept, a space `+`, the rest %XX of UTF-8. */
  def encode(s: String): String = {
    val out = new StringBuilder
    s.getBytes(StandardCharsets.UTF_8).foreach { b =>
      val ch = (b & 0xff).toChar
      if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || "_.-~".contains(ch))
        out += ch
      else if (ch == ' ') out += '+'
      else out ++= f"%%${b & 0xff}%02X"
    }
    out.toString
  }

  /** Python's unquote_plus; a malformed escape stays as written. */
  def decode(s: String): String =
    try java.net.URLDecoder.decode(s, StandardCharsets.UTF_8)
    catch { case _: IllegalArgumentException => s.replace('+', ' ') }

  def urlencode(params: Seq[(String, String)]): String =
    params.map { case (k, v) => s"${encode(k)}=${encode(v)}" }.mkString("&")

  /** `url` with `params` added to its query string. */
  def withQuery(url: String, params: Seq[(String, String)]): String =
    if (params.isEmpty) url else url + (if (query(url).nonEmpty) "&" else "?") + urlencode(params)

  /** `url` with query parameter `name` set to `value` (replaced if there), the query written
   * again as urlencode writes it. */
  def withParam(url: String, name: String, value: String): String = {
    val (s, n, rest) = split(url)
    val hash = rest.indexOf('#')
    val (pathQuery, fragment) = if (hash < 0) (rest, "") else (rest.substring(0, hash), rest.substring(hash))
    val q = pathQuery.indexOf('?')
    val (path, query) = if (q < 0) (pathQuery, "") else (pathQuery.substring(0, q), pathQuery.substring(q + 1))
    val pairs = query.split("[&;]").filter(_.nonEmpty).map { p =>
      val eq = p.indexOf('=')
      if (eq < 0) (decode(p), "") else (decode(p.substring(0, eq)), decode(p.substring(eq + 1)))
    }.filter(_._1 != name).toSeq :+ (name -> value)
    val head = if (s.nonEmpty) s"$s:" else ""
    val auth = if (n.nonEmpty || url.contains("//")) s"//$n" else ""
    s"$head$auth$path?${urlencode(pairs)}$fragment"
  }

  private val Reference = "^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\\?([^#]*))?(#(.*))?$".r

  /** The parts of a URI reference (RFC 3986 appendix B): scheme, authority, path, query,
   * fragment, an absent one None (an empty one Some("")). */
  private def parts(u: String): (Option[String], Option[String], String, Option[String], Option[String]) =
    u match {
      case Reference(_, scheme, _, authority, path, _, query, _, fragment) =>
        (Option(scheme), Option(authority), Option(path).getOrElse(""), Option(query), Option(fragment))
      case _ => (None, None, u, None, None)
    }

  /** RFC 3986 section 5.2.4's remove_dot_segments. */
  private[records] def removeDots(path: String): String = {
    var in = path
    val out = new StringBuilder
    while (in.nonEmpty) {
      if (in.startsWith("../")) in = in.substring(3)
      else if (in.startsWith("./")) in = in.substring(2)
      else if (in.startsWith("/./")) in = in.substring(2)
      else if (in == "/.") in = "/"
      else if (in.startsWith("/../") || in == "/..") {
        in = "/" + in.substring(if (in == "/..") 3 else 4)
        val last = out.lastIndexOf("/")
        out.setLength(if (last < 0) 0 else last)
      } else if (in == "." || in == "..") in = ""
      else {
        val next = in.indexOf('/', if (in.startsWith("/")) 1 else 0)
        val seg = if (next < 0) in else in.substring(0, next)
        out ++= seg
        in = in.substring(seg.length)
      }
    }
    out.toString
  }

  /** `found` (a next page's or a redirect's URL) resolved against `url` by RFC 3986 section 5.2
   * (as Python's urljoin, which read the APIs before): `?page=2` keeps the path, `""` is the
   * base without its fragment, dot segments removed (never above the root). */
  def join(url: String, found: String): String = {
    val (bs, ba, bp, bq, _) = parts(url)
    val (rs, ra, rp, rq, rf) = parts(found.trim)
    val (s, a, p, q) =
      if (rs.isDefined) (rs, ra, removeDots(rp), rq)
      else if (ra.isDefined) (bs, ra, removeDots(rp), rq)
      else if (rp.isEmpty) (bs, ba, bp, rq.orElse(bq))
      else if (rp.startsWith("/")) (bs, ba, removeDots(rp), rq)
      else {
        val merged = if (ba.isDefined && bp.isEmpty) "/" + rp else bp.substring(0, bp.lastIndexOf('/') + 1) + rp
        (bs, ba, removeDots(merged), rq)
      }
    s.fold("")(_ + ":") + a.fold("")("//" + _) + p + q.fold("")("?" + _) + rf.fold("")("#" + _)
  }

  /** Whether `url` is a URL java.net takes (RFC 2396's characters: no space, `|`, `"`, `{`,
   * `^`, `` ` ``, malformed `%` escape, ...); never its text in a message. */
  def wellFormed(url: String): Boolean =
    try { new java.net.URI(url); true }
    catch { case _: java.net.URISyntaxException => false }
}
