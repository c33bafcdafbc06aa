package drillspark.records

import scala.collection.mutable.ArrayBuffer

import drillspark.source.input.{HeldPages, InputFile, PageSource}

/**
 * The pages of records one scan of a record provider fetched (an HTTP API's responses, a
 * collection's documents, a topic's messages), to be read by the `drill` source like files:
 * `spark.read.format("drill").load(batch.paths())`. One reader and one typing rule for files
 * and records alike; the batch holds its pages until the source has listed them (then the
 * table does). Filled by [[HttpPages]] (the http plugin), [[MongoPages]], [[KafkaPages]].
 */
final class RecordBatch {
  private val pages = ArrayBuffer[InputFile]()

  /** Add the records of one response at `dataPath` (Drill's `a/b`; empty: the whole body, an
   * array of records, one record, or records one after another); returns how many records
   * the page holds there (an array's elements), for paginators. `place` names it in errors. */
  def add(place: String, body: Array[Byte], dataPath: String): Int = add(place, body, dataPath, Int.MaxValue)

  /** As above, only the first `keep` records of an array kept (a paginator's maxRecords). */
  def add(place: String, body: Array[Byte], dataPath: String, keep: Int): Int = {
    val (bytes, records) = DataPath.select(place, body, dataPath, keep)
    pages += HeldPages.page(place, bytes)
    records
  }

  /** Add one response as it came, for a format's reader to read whole (an HTTP answer in CSV
   * or XML: no dataPath); the format counts its records ([[drillspark.formats.FormatPages]]). */
  def addWhole(place: String, body: Array[Byte]): InputFile = {
    val page = HeldPages.page(place, body)
    pages += page
    page
  }

  /** Add a page whose records `source` fetches where the page is read (a Spark task), not
   * here; `length`: an estimate of its bytes, for packing pages into tasks. */
  def addFetched(place: String, length: Long, source: PageSource): Unit =
    pages += HeldPages.fetchedPage(place, length, source)

  /** Add a page made elsewhere (a topic's pages, [[KafkaPages.plan]]). */
  def addPage(page: InputFile): Unit = pages += page

  def paths(): Array[String] = pages.map(_.path).toArray

  def size(): Int = pages.size
}
