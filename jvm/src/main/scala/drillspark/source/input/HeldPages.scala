package drillspark.source.input

import java.io.{ByteArrayInputStream, InputStream}
import java.lang.ref.WeakReference
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * Records that come from no file (an HTTP response, a batch of documents, messages): each page
 * is read by the `drill` reader like a file whose path is `records:N PLACE` (PLACE names where
 * the records came from, so every error names it). The bytes travel inside the page's
 * [[InputFile]] (to executors too, which hold them again when they deserialize it); this map
 * only lets [[JsonInput.open]] find them by path, and holds them weakly: a page lives as long
 * as a table or split that reads it.
 */
object HeldPages {
  val Prefix = "records:"
  private val serial = new AtomicLong()
  private val held = new ConcurrentHashMap[String, WeakReference[Array[Byte]]]()

  def isPage(path: String): Boolean = path.startsWith(Prefix)

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
    val b = bytes(path)
    InputFile(path, b.length, 0L, Nil, path, b)
  }

  private def bytes(path: String): Array[Byte] = {
    val ref = held.get(path)
    val b = if (ref == null) null else ref.get
    if (b == null) throw new DrillScanException(s"drill: $path: these records are no longer held (a page " +
      "is read by the query that fetched it; run the query again to fetch them again)")
    b
  }

  def open(path: String, start: Long): InputStream = {
    val b = bytes(path)
    val from = math.min(b.length.toLong, math.max(0L, start)).toInt
    new ByteArrayInputStream(b, from, b.length - from)
  }
}
