package drillspark.formats

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession

import drillspark.records.{HttpPageAdder, RecordBatch}

/**
 * Pages of records in a file format (an HTTP API's CSV or XML answers): each is added to a
 * [[RecordBatch]] whole and read by the format's one reader, here to count its rows (a
 * paginator stops at a short page) and later by `spark.read.format("drill-<type>")` over the
 * batch's paths. The http plugin's read ([[drillspark.records.HttpPages]]) adds them through
 * [[adder]].
 */
object FormatPages {
  /** Add `body` to `batch` as a page of format `typeName` read with `options` (Drill's names);
   * returns its rows. A page the reader cannot read fails naming `place`. */
  def add(batch: RecordBatch, typeName: String, place: String, body: Array[Byte],
      options: java.util.Map[String, String]): Int = {
    val reader = Formats.byType(typeName).getOrElse(throw FormatErrors.badConfig(typeName, "no such format")).reader
    val page = batch.addWhole(place, body)
    val o = FormatOptions(typeName, options.asScala.toMap)
    val conf = SparkSession.active.sparkContext.hadoopConfiguration
    val rows = reader.read(page, o, reader.schema(Seq(page), o, conf), conf)
    try rows.size finally rows match { case c: AutoCloseable => c.close(); case _ => }
  }

  /** The http read's way to add a CSV or XML answer (`typeName` text or xml): whole, every row
   * kept (a maxRecords cut of such a page is the caller's). */
  def adder(typeName: String, options: java.util.Map[String, String]): HttpPageAdder = new PageAdder(typeName,
    options.asScala.toMap)

  private final class PageAdder(typeName: String, options: Map[String, String]) extends HttpPageAdder {
    override def add(batch: RecordBatch, place: String, body: Array[Byte], keep: Long): Long =
      FormatPages.add(batch, typeName, place, body, options.asJava).toLong
  }
}
