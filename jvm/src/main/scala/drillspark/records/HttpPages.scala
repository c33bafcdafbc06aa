package drillspark.records

import java.util.Locale

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode

import drillspark.source.input.DrillScanException

/** A connection's `paginator` (Drill's fields), checked: OFFSET and PAGE need a pageSize,
 * INDEX an indexParam or nextPageParam, HEADER_INDEX the header to follow. */
final case class HttpPaginator(connection: String, node: JsonNode) {
  private def text(key: String): Option[String] =
    Option(node.get(key)).filter(n => !n.isNull).map(_.asText).filter(_.nonEmpty)
  private def number(key: String): Long = Option(node.get(key)).filter(_.canConvertToLong).map(_.asLong).getOrElse(0L)

  val method: String = text("method").getOrElse("").toUpperCase(Locale.ROOT).replace('-', '_')
  val pageSize: Long = number("pageSize")
  val maxRecords: Long = number("maxRecords")
  def param(key: String, default: String): String = text(key).getOrElse(default)
  def field(key: String): String = text(key).getOrElse("")

  private val where = s"connection '$connection': the $method paginator"
  if ((method == "OFFSET" || method == "PAGE") && pageSize <= 0)
    throw new DrillScanException(s"$where needs a pageSize above 0")
  if (method == "INDEX" && field("nextPageParam").isEmpty && field("indexParam").isEmpty)
    throw new DrillScanException(s"$where needs indexParam (with hasMoreParam) or nextPageParam")
  if (method == "HEADER_INDEX" && field("nextPageParam").isEmpty)
    throw new DrillScanException(s"$where needs nextPageParam (the response header to follow)")
}

/** How one answer becomes a page of the batch: its records counted. JSON's is [[HttpPages.Json]];
 * a CSV or XML answer's is its format reader's (formats.FormatPages.adder). */
trait HttpPageAdder {
  /** Add `body` to `batch` as a page named `place`, at most `keep` records of it; the records
   * the answer held. */
  def add(batch: RecordBatch, place: String, body: Array[Byte], keep: Long): Long
}

/**
 * The `http` plugin's read, the one owner of it for both doors (drillspark.sql through
 * spark/storage/http.py, Spark's catalog through catalog/HttpPluginCatalog): the connection's
 * pages fetched as its paginator goes (Drill 1.22's requests, in its order), each added to a
 * [[RecordBatch]] for the `drill` reader (JSON, at `dataPath`) or a format's reader (CSV, XML).
 * OFFSET asks `offset=0&limit=N`, then `offset=N`, ...; PAGE `page=1&per_page=N`, ...; a page
 * with fewer than pageSize records ends them. INDEX reads the answer's top-level fields
 * (`hasMoreParam` with `indexParam`, asked back as a parameter, or `nextPageParam`, the next
 * page's URL); HEADER_INDEX a response header (a Link header's rel="next" or a plain URL).
 * Every paginator stops at `maxRecords` (an API serving more is cut there) and at a pushed
 * LIMIT; one that asks a page again or passes [[MaxPages]] is an error. A next page on another
 * host is refused before it is asked.
 */
object HttpPages {
  val MaxPages = 10000 // a paginator that has not ended by then never will

  /** JSON answers: the records at the read's `dataPath`. */
  final case class Json(dataPath: String) extends HttpPageAdder {
    override def add(batch: RecordBatch, place: String, body: Array[Byte], keep: Long): Long =
      batch.add(place, body, dataPath, keep.min(Int.MaxValue).toInt).toLong
  }

  /** The first URL the read `spec` asks (before its parameters), or the refusal of a table
   * name leading to another host: drillspark.sql's check when a statement names the table. */
  def url(spec: String): String = HttpRequest.parse(spec).url

  /** Fetch the pages of the read `spec` (an [[HttpRequest]]'s JSON) into `batch`, each added by
   * `adder` (null: JSON at the spec's dataPath); the records the API served. */
  def fetch(batch: RecordBatch, spec: String, adder: HttpPageAdder): Long = {
    val r = HttpRequest.parse(spec)
    val add = Option(adder).getOrElse(Json(r.dataPath))
    val p = r.paginator
    val method = p.map(_.method).getOrElse("")
    val limitParam = r.limitParam.filter(_ => r.limit.isDefined)
    def limited(u: String) = limitParam.fold(u)(HttpUrls.withParam(u, _, r.limit.get.toString))
    val first = limited(HttpUrls.withQuery(r.url, r.query))
    val maxRecords = p.map(_.maxRecords).getOrElse(0L)
    val cap = r.limit.fold(maxRecords)(l => if (maxRecords > 0) maxRecords.min(l) else l)
    var page = 0
    var offset, total = 0L
    var url: Option[String] = Some(first)
    val asked = scala.collection.mutable.Set[String]()
    while (url.isDefined) {
      page += 1
      p.filter(q => q.method == "OFFSET" || q.method == "PAGE").foreach { q =>
        url = Some(limited(if (q.method == "OFFSET") {
          val size = if (q.maxRecords > 0) q.pageSize.min(q.maxRecords - total) else q.pageSize
          HttpUrls.withQuery(first, Seq(q.param("offsetParam", "offset") -> offset.toString,
            q.param("limitParam", "limit") -> size.toString))
        } else HttpUrls.withQuery(first, Seq(q.param("pageParam", "page") -> page.toString,
          q.param("pageSizeParam", "per_page") -> q.pageSize.toString))))
      }
      val at = url.get
      if (!asked.add(at)) throw new DrillScanException(s"${r.where(page, at)}: the $method paginator asks for a " +
        s"page it asked before (it would never end; $total records so far)")
      val number = if (p.isDefined) page else 0
      HttpTransport.fetch(r.call, at, number) match {
        case None => url = None
        case Some(answer) =>
          val place = r.where(number, at)
          val data = if (r.inputType == "csv" && r.skipEmptyLines) withoutBlankLines(answer.body) else answer.body
          val keep = if (maxRecords > 0) maxRecords - total else Long.MaxValue
          val records =
            try add.add(batch, place, data, keep)
            catch {
              case e: DrillScanException => throw e
              case NonFatal(e) => throw new DrillScanException(firstLine(e), e)
            }
          total += records
          url =
            if (p.isEmpty || records == 0 || (cap > 0 && total >= cap)) None
            else if (page >= MaxPages) throw new DrillScanException(s"${r.where()}: the paginator had not ended " +
              s"after $MaxPages pages ($total records); set paginator.maxRecords")
            else p.get.method match {
              case "OFFSET" | "PAGE" =>
                offset += p.get.pageSize
                if (records < p.get.pageSize) None else url
              case "INDEX" => indexNext(r, p.get, answer, first, at, page)
              case _ =>
                val name = p.get.field("nextPageParam")
                sameHost(r, at, answer.header(name).flatMap(headerNext), page, s"header $name")
            }
      }
    }
    total
  }

  private def firstLine(e: Throwable): String =
    String.valueOf(e.getMessage).linesIterator.find(_.trim.nonEmpty).getOrElse(e.getClass.getSimpleName)

  /** CSV's `skipEmptyLines` (Drill's default): lines of nothing but white space dropped. */
  def withoutBlankLines(body: Array[Byte]): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream(body.length)
    var start = 0
    var wrote = false
    def line(from: Int, to: Int): Unit =
      if ((from until to).exists(i => !Character.isWhitespace(body(i).toChar))) {
        if (wrote) out.write('\n')
        out.write(body, from, to - from)
        wrote = true
      }
    var i = 0
    while (i < body.length) {
      if (body(i) == '\n') { line(start, i); start = i + 1 }
      i += 1
    }
    line(start, body.length)
    out.toByteArray
  }

  /** INDEX: the next page from the answer's fields, None when it says there is none. */
  private def indexNext(r: HttpRequest, p: HttpPaginator, answer: HttpAnswer, first: String, url: String,
      page: Int): Option[String] = {
    val (more, index, next) = (p.field("hasMoreParam"), p.field("indexParam"), p.field("nextPageParam"))
    val top = scala.util.Try(HttpRequest.Json.readTree(answer.body)).toOption.filter(n => n != null && n.isObject)
    def member(name: String): Option[JsonNode] =
      if (name.isEmpty) None else top.flatMap(t => Option(t.get(name))).filter(n => !n.isNull)
    val goesOn = member(more).exists(v => (v.isBoolean && v.asBoolean) || (v.isTextual && (v.asText == "true" ||
      v.asText == "True")) || (v.isIntegralNumber && v.asLong == 1))
    if (more.nonEmpty && !goesOn) None
    else if (next.nonEmpty) sameHost(r, url, member(next).map(_.asText), page, s"field $next")
    else member(index).map(HttpRequest.asText).filter(_.nonEmpty).map(HttpUrls.withParam(first, index, _))
  }

  /** A next page's URL from the API (a relative one resolved), on the configured host. */
  private def sameHost(r: HttpRequest, url: String, found: Option[String], page: Int, what: String): Option[String] =
    found.map(_.trim).filter(_.nonEmpty).map { f =>
      val next = HttpUrls.join(url, f)
      if (!HttpUrls.sameHost(r.url, next)) throw new DrillScanException(s"${r.where(page, url)}: the next page's " +
        s"URL ($what) leads to another host (${HttpUrls.origin(next)}); only the configured host is contacted")
      next
    }

  private val Link = "<([^>]*)>([^,<]*)".r
  private val Rel = "rel\\s*=\\s*\"?([^\";]+)\"?".r

  /** The next page's URL in a response header: a Link header's `rel="next"` entry (or, with
   * no rel at all, its first URL), else the header's value itself. */
  def headerNext(value: String): Option[String] = {
    if (value == null || value.trim.isEmpty) return None
    val links = Link.findAllMatchIn(value).map(m => (m.group(1), m.group(2))).toSeq
    if (links.isEmpty) return Some(value.trim)
    links.collectFirst {
      case (u, params) if Rel.findAllMatchIn(params).exists(_.group(1).toLowerCase(Locale.ROOT).split("\\s+").contains("next")) =>
        u.trim
    }.orElse(if (links.exists(_._2.contains("rel"))) None else Some(links.head._1.trim))
  }
}
