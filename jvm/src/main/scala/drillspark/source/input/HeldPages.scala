package drillspark.source.input

import java.io.{ByteArrayInputStream, InputStream}
import java.lang.ref.{SoftReference, WeakReference}
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * Records that come from no file (an HTTP response, a batch of documents, messages): each page
 * is read by the `drill` reader like a file whose path is `records:N PLACE` (PLACE names where
 * the records came from, so every error names it). The bytes travel inside the page's
 * [[InputFile]] (to executors too, which hold them again when they deserialize it); this map
 * only lets [[JsonInput.open]] find them by path, and holds them weakly: a page lives as long
 * as a table or split that reads it.
 *
 * A page may instead carry a [[PageSource]] (a range of a Kafka partition): its bytes are
 * fetched where the page is first read (discovery's or a reader's task, on an executor), not
 * by the driver, and kept softly by path so that the read after discovery in the same JVM
 * does not fetch them again. Such a page is never cut into byte ranges ([[isFetched]]).
 */
object HeldPages {
  val Prefix = "records:"
  private val serial = new AtomicLong()
  private val held = new ConcurrentHashMap[String, WeakReference[Array[Byte]]]()
  private val sources = new ConcurrentHashMap[String, WeakReference[InputFile]]()
  private val fetched = new ConcurrentHashMap[String, SoftReference[Array[Byte]]]()

  def isPage(path: String): Boolean = path.startsWith(Prefix)

  /** A path as errors name it: a page's PLACE (`http plugin 'api', connection 'c' ...`), any
   * other path as it is. */
  def shown(path: String): String =
    if (!isPage(path)) path else path.indexOf(' ') match { case -1 => path; case at => path.substring(at + 1) }

  /** True for a page whose bytes are fetched where it is read ([[PageSource]]). */
  def isFetched(f: InputFile): Boolean = f.source != null

  /** A new page whose bytes `source` fetches when it is read; `length`: an estimate (> 0), for
   * packing pages into tasks as files are. */
  def fetchedPage(place: String, length: Long, source: PageSource): InputFile = {
    val f = InputFile(s"$Prefix${serial.incrementAndGet()} $place", math.max(1L, length), 0L, Nil, "", null, source)
    holdSource(f)
    f
  }

  def holdSource(f: InputFile): Unit = {
    sources.values().removeIf(_.get == null)
    fetched.values().removeIf(_.get == null)
    sources.put(f.path, new WeakReference(f))
  }

  /** A new page of records from `place`, held while the returned file is reachable. */
  def page(place: String, bytes: Array[Byte]): InputFile = {
    val path = s"$Prefix${serial.incrementAndGet()} $place"
    hold(path, bytes)
    InputFile(path, bytes.length, 0L, Nil, path, bytes)
  }

  def hold(path: String, bytes: Array[Byte]): Unit = {
    held.values().removeIf(_.get == null)
    held.put(path, new WeakReference(bytes))
  }

  /** The file of a held page (the `drill` source's listing of a page path). */
  def inputFile(path: String): InputFile = {
    val ref = sources.get(path)
    val f = if (ref == null) null else ref.get
    if (f != null) return f
    val b = bytes(path)
    InputFile(path, b.length, 0L, Nil, path, b)
  }

  private def bytes(path: String): Array[Byte] = {
    val ref = held.get(path)
    val b = if (ref == null) fetch(path) else ref.get
    if (b == null) throw new DrillScanException(s"drill: $path: these records are no longer held (a page " +
      "is read by the query that fetched it; run the query again to fetch them again)")
    b
  }

  /** The bytes of a fetched page: kept ones, else fetched now; null when it is not held. */
  private def fetch(path: String): Array[Byte] = {
    val kept = fetched.get(path)
    val b = if (kept == null) null else kept.get
    if (b != null) return b
    val ref = sources.get(path)
    val f = if (ref == null) null else ref.get
    if (f == null) return null
    val got = f.source.fetch()
    fetched.put(path, new SoftReference(got))
    got
  }

  def open(path: String, start: Long): InputStream = {
    val b = bytes(path)
    val from = math.min(b.length.toLong, math.max(0L, start)).toInt
    new ByteArrayInputStream(b, from, b.length - from)
  }
}
