package drillspark.source

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}

/** Invalid records skipped by skipInvalidRecords (summed over tasks; shown on the scan node).
 * Spark instantiates metric classes by reflection: top level, zero-argument constructor. */
class SkippedRecordsMetric extends CustomSumMetric {
  override def name(): String = DrillMetrics.SkippedRecords
  override def description(): String = "invalid records skipped (skipInvalidRecords)"
}

/** The largest batch a reader filled, in the reader's byte accounting (max over tasks). */
class PeakBatchBytesMetric extends CustomMetric {
  override def name(): String = DrillMetrics.PeakBatchBytes
  override def description(): String = "largest batch filled by a reader (bytes)"
  override def aggregateTaskMetrics(values: Array[Long]): String =
    if (values.isEmpty) "0" else values.max.toString
}

/** Batches the readers filled (summed over tasks): with the largest batch, shows how
 * `batchRows` and `batchBytes` cut the data. */
class BatchesMetric extends CustomSumMetric {
  override def name(): String = DrillMetrics.Batches
  override def description(): String = "batches filled by the readers"
}

object DrillMetrics {
  val SkippedRecords = "skippedInvalidRecords"
  val PeakBatchBytes = "peakBatchBytes"
  val Batches = "batches"

  def supported: Array[CustomMetric] =
    Array(new SkippedRecordsMetric, new PeakBatchBytesMetric, new BatchesMetric)

  def task(name0: String, v: Long): CustomTaskMetric = new CustomTaskMetric {
    override def name(): String = name0
    override def value(): Long = v
  }
}
