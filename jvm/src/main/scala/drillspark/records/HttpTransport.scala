package drillspark.records

import java.io.{IOException, InputStream}
import java.net.{ConnectException, HttpURLConnection, InetSocketAddress, Proxy, SocketTimeoutException, URI,
  UnknownHostException}
import java.nio.charset.StandardCharsets
import java.util.Base64

import drillspark.source.input.DrillScanException

/** The plugin's proxy (Drill's `proxyType` http, `proxyHost`, `proxyPort`, credentials). */
final case class HttpProxy(host: String, port: Int, user: Option[String], password: Option[String])

/** One answer: its body and header fields in the order served. */
final case class HttpAnswer(body: Array[Byte], headers: Seq[(String, String)]) {
  /** The first field named `name` (any case, as HTTP names them). */
  def header(name: String): Option[String] = headers.collectFirst { case (k, v) if k.equalsIgnoreCase(name) => v }
}

/** What one request of a connection carries; `where` names it in errors (plugin, connection,
 * page, method and URL, a URL's password masked). */
final case class HttpCall(plugin: String, connection: String, method: String, headers: Seq[(String, String)],
    body: Option[Array[Byte]], timeoutSeconds: Double, errorOn400: Boolean, proxy: Option[HttpProxy],
    cached: Boolean, origin: String, maxBodyBytes: Long = HttpTransport.MaxBodyBytes) {
  def where(page: Int, url: String): String = {
    val at = if (page > 0) s", page $page" else ""
    s"http plugin '$plugin', connection '$connection'$at ($method ${HttpUrls.shown(url)})"
  }
}

/**
 * The http plugin's way out (java.net's HttpURLConnection, no other client): no proxy from the
 * JVM's or the environment's settings (only the plugin's), redirects followed only on the host
 * they started from, a 4xx answer None (Drill's: no rows) unless `errorOn400`, a 407 the proxy's
 * refusal, other failures an error naming the call without its credentials; GET answers kept
 * by [[HttpCache]] when the plugin caches.
 */
object HttpTransport {
  private val MaxRedirects = 10 // as Python's urllib, which read the APIs before
  /** The largest answer read (a larger one is an error, never cut): 512 MiB. */
  val MaxBodyBytes: Long = 512L * 1024 * 1024
  /** What is read of a 4xx / 5xx answer's body (to let the connection be reused), then dropped. */
  private val ErrorBodyBytes = 4096

  def fetch(call: HttpCall, url: String, page: Int): Option[HttpAnswer] = {
    val where = call.where(page, url)
    if (!url.regionMatches(true, 0, "http://", 0, 7) && !url.regionMatches(true, 0, "https://", 0, 8))
      throw failed("not an http:// or https:// URL", where)
    if (!HttpUrls.wellFormed(url)) throw failed("not a well-formed URL", where)
    // the JDK's CONNECT (https through a proxy) carries no Proxy-Authorization unless a JVM-wide
    // setting changes; one set on the request would go inside the tunnel, to the API
    if (call.proxy.exists(_.user.isDefined) && !url.regionMatches(true, 0, "http:", 0, 5)) throw new DrillScanException(s"http plugin '${call.plugin}', connection " +
      s"'${call.connection}': an https connection through a proxy with credentials (proxyUsername) is not " +
      s"supported; use a proxy without credentials or an http:// URL ($where)")
    val key = (Seq(call.plugin, call.connection, url) ++ call.headers.sortBy(_._1).map { case (k, v) => s"$k: $v" })
      .mkString("\u0000")
    val useCache = call.cached && call.method == "GET"
    val kept = if (useCache) HttpCache.get(key) else None
    if (kept.exists(_.freshUntil > System.currentTimeMillis())) return kept.map(k => HttpAnswer(k.body, k.headers))
    val conditional = kept.toSeq.flatMap(k => k.etag.map("If-None-Match" -> _) ++ k.modified.map("If-Modified-Since" -> _))
    HttpCache.sent()
    val (code, reason, answer) =
      try send(call, url, call.headers ++ conditional, where)
      catch {
        case e: DrillScanException => throw e
        case _: SocketTimeoutException =>
          throw new DrillScanException(s"HTTP request timed out after ${seconds(call.timeoutSeconds)} s, $where")
        case e: UnknownHostException => throw failed(s"unknown host ${scrubbed(e, url)}", where)
        case e: ConnectException => throw failed(scrubbed(e, url), where)
        case e: IOException => throw failed(scrubbed(e, url), where)
        case _: IllegalArgumentException => throw failed("not a well-formed URL or request", where)
      }
    if (code == 304 && kept.isDefined) {
      val k = kept.get
      HttpCache.put(key, k.body, merged(k.headers, answer.headers))
      return Some(HttpAnswer(k.body, k.headers))
    }
    if (code == 407) throw new DrillScanException("HTTP request failed: the proxy refused the plugin's proxy " +
      s"credentials (407 Proxy Authentication Required), $where")
    if (code >= 400 && code < 500 && !call.errorOn400) return None
    // past here a 3xx is a redirect not followed (no Location, or too many) or a 304 not asked for
    if (code >= 300 || code < 200) throw failed(s"response code $code ($reason)", where)
    if (useCache) HttpCache.put(key, answer.body, answer.headers)
    Some(answer)
  }

  private def failed(why: String, where: String) = new DrillScanException(s"HTTP request failed: $why, $where")

  /** An I/O error's message without the URL it may quote (a password in its user part). */
  private def scrubbed(e: Throwable, url: String): String = {
    val m = String.valueOf(e.getMessage)
    val user = HttpUrls.netloc(url).lastIndexOf('@')
    if (user < 0) m else m.replace(HttpUrls.netloc(url).substring(0, user + 1), "")
  }

  private def seconds(s: Double): String = if (s == s.floor && !s.isInfinite) s.toLong.toString else s.toString

  /** A later source's fields replace an earlier one's of the same name (a 304's over the kept). */
  private def merged(old: Seq[(String, String)], fresh: Seq[(String, String)]): Seq[(String, String)] =
    old.filterNot { case (k, _) => fresh.exists(_._1.equalsIgnoreCase(k)) } ++ fresh

  /** The status, reason and answer of `url`, redirects on the same host followed. */
  private def send(call: HttpCall, first: String, headers: Seq[(String, String)],
      where: String): (Int, String, HttpAnswer) = {
    var url = first
    var method = call.method
    var body = call.body
    var hops = 0
    while (true) {
      val c = open(call, url)
      try {
        val ms = math.max(1L, (call.timeoutSeconds * 1000).toLong).min(Int.MaxValue).toInt
        c.setConnectTimeout(ms)
        c.setReadTimeout(ms)
        c.setInstanceFollowRedirects(false)
        // useCaches false would add Cache-Control / Pragma: no-cache; no JVM-wide cache, none used
        c.setUseCaches(java.net.ResponseCache.getDefault == null)
        c.setRequestMethod(method)
        // the JDK's default Accept (text/html, image/gif, ...) replaced by a neutral one
        if (!headers.exists(_._1.equalsIgnoreCase("Accept"))) c.setRequestProperty("Accept", "*/*")
        headers.foreach { case (k, v) => c.setRequestProperty(k, v) }
        call.proxy.filter(_ => url.regionMatches(true, 0, "http:", 0, 5)).foreach { p =>
          p.user.foreach { u =>
            val token = Base64.getEncoder.encodeToString(s"$u:${p.password.getOrElse("")}".getBytes(StandardCharsets.UTF_8))
            c.setRequestProperty("Proxy-Authorization", s"Basic $token")
          }
        }
        body.foreach { b =>
          c.setDoOutput(true)
          c.setFixedLengthStreamingMode(b.length)
          val out = c.getOutputStream
          try out.write(b) finally out.close()
        }
        val code = c.getResponseCode
        val reason = Option(c.getResponseMessage).getOrElse("")
        val fields = Iterator.from(1).map(i => (c.getHeaderFieldKey(i), c.getHeaderField(i)))
          .takeWhile(_._2 != null).collect { case (k, v) if k != null => k -> v }.toSeq
        val location = if (Set(301, 302, 303, 307, 308)(code)) fields.collectFirst {
          case (k, v) if k.equalsIgnoreCase("Location") => v
        } else None
        location match {
          case Some(to) if hops < MaxRedirects =>
            val next = HttpUrls.join(url, to)
            if (!HttpUrls.sameHost(url, next)) throw failed(
              s"redirect to another host (${HttpUrls.netloc(next)}) refused", where)
            hops += 1
            url = next
            if (code == 303 || ((code == 301 || code == 302) && method == "POST")) { method = "GET"; body = None }
          case _ =>
            val data =
              if (code >= 400) { skip(c.getErrorStream, ErrorBodyBytes); Array.emptyByteArray }
              else if (code >= 300 || code < 200) Array.emptyByteArray
              else {
                if (c.getContentLengthLong > call.maxBodyBytes) throw tooLarge(call, where)
                readAll(c.getInputStream, call.maxBodyBytes).getOrElse(throw tooLarge(call, where))
              }
            return (code, reason, HttpAnswer(data, fields))
        }
      } finally c.disconnect()
    }
    throw new IllegalStateException("unreachable")
  }

  private def open(call: HttpCall, url: String): HttpURLConnection = {
    val u = URI.create(url).toURL
    val proxy = call.proxy.map(p => new Proxy(Proxy.Type.HTTP, new InetSocketAddress(p.host, p.port)))
      .getOrElse(Proxy.NO_PROXY)
    u.openConnection(proxy) match {
      case h: HttpURLConnection => h
      case _ => throw new IllegalArgumentException("not an http:// or https:// URL")
    }
  }

  private def tooLarge(call: HttpCall, where: String) = new DrillScanException(s"HTTP response too large: more " +
    s"than ${call.maxBodyBytes} bytes (the http plugin's limit of one answer; it is not cut), $where")

  /** At most `max` bytes of an error answer read and dropped. */
  private def skip(in: InputStream, max: Int): Unit =
    if (in != null) try { in.readNBytes(max); () } catch { case _: IOException => () } finally in.close()

  /** The whole body, None when it holds more than `max` bytes. */
  private def readAll(in: InputStream, max: Long): Option[Array[Byte]] =
    if (in == null) Some(Array.emptyByteArray)
    else try {
      val data = in.readNBytes(max.min(Int.MaxValue - 8L).toInt)
      if (data.length.toLong == max.min(Int.MaxValue - 8L) && in.read() >= 0) None else Some(data)
    } finally in.close()
}
