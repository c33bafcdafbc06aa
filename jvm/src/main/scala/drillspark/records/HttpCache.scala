package drillspark.records

import java.time.ZonedDateTime
import java.time.format.DateTimeFormatter

/**
 * GET answers of plugins with Drill's `cacheResults`, kept by plugin, connection, URL and
 * request headers under HTTP's caching rules as OkHttp (Drill's client) applies them: an
 * answer fresh by `Cache-Control: max-age` or `Expires` is served without a request; a stale
 * one with an `ETag` or `Last-Modified` is asked again conditionally (a 304 keeps the body);
 * `no-store` is never kept, `no-cache` always asked again, an answer with neither freshness
 * nor a validator not kept. Drill's cache is 10 MiB on disk; this one is 10 MiB in the JVM,
 * the oldest answers going first. One per JVM, shared by every session's queries.
 */
object HttpCache {
  val MaxBytes: Long = 10L * 1024 * 1024

  final case class Kept(body: Array[Byte], headers: Seq[(String, String)], freshUntil: Long, etag: Option[String],
      modified: Option[String])

  // insertion order: the oldest first out
  private val entries = new java.util.LinkedHashMap[String, Kept]()
  private var held = 0L
  private var asked = 0L

  def get(key: String): Option[Kept] = synchronized(Option(entries.get(key)))

  def put(key: String, body: Array[Byte], headers: Seq[(String, String)]): Unit = {
    def field(name: String) = headers.collectFirst { case (k, v) if k.equalsIgnoreCase(name) => v }
    val control = field("Cache-Control").toSeq.flatMap(_.split(',')).map(_.trim).filter(_.nonEmpty).map { part =>
      val eq = part.indexOf('=')
      if (eq < 0) part.toLowerCase(java.util.Locale.ROOT) -> ""
      else part.substring(0, eq).trim.toLowerCase(java.util.Locale.ROOT) -> part.substring(eq + 1).trim.stripPrefix("\"")
        .stripSuffix("\"")
    }.toMap
    if (control.contains("no-store")) return
    val now = System.currentTimeMillis()
    val lifetime: Long =
      if (control.contains("no-cache")) 0L
      else control.get("max-age").filter(v => v.nonEmpty && v.forall(_.isDigit)) match {
        case Some(v) => scala.util.Try(v.toLong * 1000).getOrElse(Long.MaxValue / 4)
        case None => field("Expires").flatMap { e =>
            scala.util.Try(ZonedDateTime.parse(e.trim, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant.toEpochMilli).toOption
          }.map(t => math.max(0L, t - now)).getOrElse(0L)
      }
    val etag = field("ETag")
    val modified = field("Last-Modified")
    if (lifetime <= 0 && etag.isEmpty && modified.isEmpty) return // nothing would let it be used again
    synchronized {
      Option(entries.remove(key)).foreach(old => held -= old.body.length)
      entries.put(key, Kept(body, headers, now + lifetime, etag, modified))
      held += body.length
      val it = entries.values().iterator()
      while (held > MaxBytes && it.hasNext) { held -= it.next().body.length; it.remove() }
    }
  }

  /** One more request reached the network (the tests count them). */
  def sent(): Unit = synchronized(asked += 1)

  def requests(): Long = synchronized(asked)

  def clear(): Unit = synchronized { entries.clear(); held = 0 }
}
