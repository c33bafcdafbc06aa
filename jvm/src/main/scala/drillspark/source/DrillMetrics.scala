package drillspark.source

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}

/** Invalid records skipped by skipInvalidRecords (summed over tasks; shown on the scan node).
 * Spark instantiates metric classes by reflection: top level, zero-argument constructor. */
class SkippedRecordsMetric extends CustomSumMetric {
  override def name(): String = DrillMetrics.SkippedRecords
  override def description(): String = "invalid records skipped (skipInvalidRecords)"
}

object DrillMetrics {
  val SkippedRecords = "skippedInvalidRecords"

  def supported: Array[CustomMetric] = Array(new SkippedRecordsMetric)

  def task(name0: String, v: Long): CustomTaskMetric = new CustomTaskMetric {
    override def name(): String = name0
    override def value(): Long = v
  }
}
