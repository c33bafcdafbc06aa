package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CoalesceExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec

/**
 * Physical rule, run after the planner's strategies and before Spark adds its exchanges: a scan
 * of drillspark's sources that reads its input in one partition (a small file, a few small
 * files packed together) is marked as one partition, so no shuffle is planned above it. Spark
 * reports a DSv2 scan's partitioning as unknown whatever its count, so a GROUP BY over a 50 kB
 * file ran two jobs and three stages (partial aggregate, shuffle, final aggregate); marked, it
 * is one job of one task. BI tools send many such statements (issue 37).
 *
 * The mark is a coalesce to one partition of the one partition: it moves no row and reports
 * `SinglePartition`, which satisfies every distribution an operator above can require. A scan
 * of several partitions is left alone, so no parallelism is lost. (In compat: it rewrites
 * physical plans, which are Spark's internals.) `enabled` is read per plan (a Spark conf, so a
 * session can turn it off to compare).
 */
final case class SinglePartitionScans(enabled: () => Boolean) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = if (enabled()) mark(plan) else plan

  private def mark(plan: SparkPlan): SparkPlan = plan match {
    case c @ CoalesceExec(1, _: BatchScanExec) => c
    case s: BatchScanExec if ours(s) && s.inputPartitions.length == 1 => CoalesceExec(1, s)
    case other => other.mapChildren(mark)
  }

  /** Scans of this extension's tables (drill, drill-text and the other formats, drill-parquet,
   * whose one-file scans are Spark's own ParquetScan over our table). */
  private def ours(s: BatchScanExec): Boolean =
    Seq(s.scan.getClass.getName, s.table.getClass.getName).exists { name =>
      name.startsWith("drillspark.") || name.startsWith("org.apache.spark.sql.drillspark.")
    }
}
