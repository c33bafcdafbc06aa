package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.catalyst.optimizer.BuildLeft
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.read.SupportsReportStatistics
import org.apache.spark.sql.execution.{CoalesceExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.execution.exchange.Exchange
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, ShuffledHashJoinExec}
import org.apache.spark.sql.internal.SQLConf

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
 *
 * A join of two such sides runs in their one partition only when Spark knows both are small
 * (each at most spark.sql.maxSinglePartitionBytes, from the size the scans report,
 * drillspark.source.input.ScanSize); else it shuffles both. The planner then makes such a join
 * a broadcast (both are under spark.sql.autoBroadcastJoinThreshold too), which costs a job and
 * a copy of the small side: here it becomes the same hash join done in that one partition,
 * Spark's shuffled hash join with the same build side (it supports every join type and side
 * the broadcast one does; a null-aware anti join, NOT IN, stays a broadcast). A side of several
 * partitions, or of no known size, keeps the broadcast, so a large scan joined with a small
 * file is not shuffled.
 */
final case class SinglePartitionScans(enabled: () => Boolean) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = if (enabled()) joinInPlace(mark(plan)) else plan

  private def mark(plan: SparkPlan): SparkPlan = plan match {
    case c @ CoalesceExec(1, _: BatchScanExec) => c
    case s: BatchScanExec if ours(s) && s.inputPartitions.length == 1 => CoalesceExec(1, s)
    case other => other.mapChildren(mark)
  }

  private def joinInPlace(plan: SparkPlan): SparkPlan = plan.transformUp {
    case j: BroadcastHashJoinExec if !j.isNullAwareAntiJoin && single(j.left) && single(j.right) =>
      ShuffledHashJoinExec(j.leftKeys, j.rightKeys, j.joinType, j.buildSide, j.condition, j.left, j.right)
  }

  /** One partition that Spark's EnsureRequirements leaves in place for a join (its own test),
   * of a known size at most spark.sql.maxSinglePartitionBytes: a side of no known size keeps
   * the broadcast. */
  private def single(p: SparkPlan): Boolean = onePartition(p) &&
    sizeOf(p).exists(_ <= SQLConf.get.getConf(SQLConf.MAX_SINGLE_PARTITION_BYTES))

  /**
   * A join side's size: its logical plan's statistics, or, for the mark itself (a side that is
   * the bare scan, as a LEFT JOIN's preserved side), the size the scan reports. The mark has no
   * logical link on purpose: with the scan's, Spark's RemoveRedundantProjects takes it for a
   * node that makes unsafe rows and drops the projection that converts a row-based scan's rows
   * (an ORDER BY over one CSV file then failed: GenericInternalRow cannot be cast to UnsafeRow).
   */
  private def sizeOf(p: SparkPlan): Option[BigInt] = p match {
    case CoalesceExec(1, s: BatchScanExec) => s.scan match {
      case r: SupportsReportStatistics =>
        val n = r.estimateStatistics().sizeInBytes()
        if (n.isPresent) Some(BigInt(n.getAsLong)) else None
      case _ => None
    }
    case _ => p.logicalLink.map(_.stats.sizeInBytes)
  }

  /**
   * Whether `p` is one partition with no exchange to come between it and the marked scans. This
   * rule runs before EnsureRequirements, when a plan's outputPartitioning is not settled yet: a
   * shuffled join whose sides differ in partition count (a marked scan and a scan of several
   * partitions: TPC-H q05, q08, q09, q10) throws when asked, as PartitioningCollection requires
   * one count, until exchanges make the sides agree. So it is read from the plan's shape, and a
   * node's outputPartitioning is asked only once every path below it is known to be one
   * partition: a marked scan; a broadcast hash join's streamed side; both sides of a hash join
   * made here; an operator of one child (one partition satisfies every distribution but a
   * broadcast, so none gets an exchange) that keeps the count at one. An exchange, a coalesce
   * to more, a union, a leaf: not known.
   */
  private def onePartition(p: SparkPlan): Boolean = p match {
    case CoalesceExec(1, _) => true
    case _: Exchange | _: CoalesceExec => false
    case j: BroadcastHashJoinExec => onePartition(if (j.buildSide == BuildLeft) j.right else j.left)
    case j: ShuffledHashJoinExec => onePartition(j.left) && onePartition(j.right)
    case u: UnaryExecNode => onePartition(u.child) && u.outputPartitioning.numPartitions == 1
    case _ => false
  }

  /** Scans of this extension's tables (drill, drill-text and the other formats, drill-parquet,
   * whose one-file scans are Spark's own ParquetScan over our table). */
  private def ours(s: BatchScanExec): Boolean =
    Seq(s.scan.getClass.getName, s.table.getClass.getName).exists { name =>
      name.startsWith("drillspark.") || name.startsWith("org.apache.spark.sql.drillspark.")
    }
}
