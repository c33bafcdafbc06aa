package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.catalyst.optimizer.{BuildRight, BuildSide}
import org.apache.spark.sql.catalyst.plans.{Cross, Inner, JoinType, LeftAnti, LeftOuter, LeftSemi}
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CoalesceExec, FilterExec, InputAdapter, ProjectExec, SortExec, SparkPlan,
  WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.{AQEShuffleReadExec, QueryStageExec}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.exchange.{ENSURE_REQUIREMENTS, ShuffleExchangeExec}
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, BroadcastNestedLoopJoinExec}
import org.apache.spark.sql.internal.SQLConf

/**
 * AQE's query-stage preparation rule (#37): a global sort whose input is known to be small, once
 * the stages below it have run, reads that input in one task instead of range-partitioning it.
 * Spark's range exchange first samples its input, a job of its own that computes the input
 * again, to find the ranges' bounds, then shuffles it; AQE then coalesces a small input's ranges
 * back into one partition. An ORDER BY over a GROUP BY (13 of TPC-H's 22 queries, most BI
 * charts) paid 50-130 ms a query for that job and stage on 2 cores. Here the exchange becomes a
 * coalesce to one partition (no shuffle: the operators between it and the stages below run in
 * that one task too), which satisfies the sort's ordering; one shuffle fewer, so AQE's cost
 * model takes the new plan.
 *
 * Known small: every path below the exchange ends in a query stage that has run, with only
 * operators between that add no rows (aggregates, filters, projections, sorts, reads of the
 * stages, a semi or anti join, a join with one broadcast row), and those stages' output
 * together is at most spark.sql.autoBroadcastJoinThreshold (10 MB), what Spark's planner takes
 * as small enough to send whole to every executor. A larger input keeps its spread over a
 * cluster's cores (one task for 10 MB costs less than the sampling job's fixed cost). Anything
 * else (another join, a scan, a stage still to run) keeps Spark's range exchange. `enabled` is
 * read per plan (a Spark conf: a session can turn it off to compare).
 */
final case class SmallSorts(enabled: () => Boolean) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = if (!enabled()) plan else plan.transformUp {
    case ShuffleExchangeExec(_: RangePartitioning, child, ENSURE_REQUIREMENTS, _, _) if small(child) =>
      CoalesceExec(1, child)
  }

  // small as Spark's planner means it: what it would broadcast whole to every executor
  // (spark.sql.autoBroadcastJoinThreshold, 10 MB; -1, no broadcasts, none small)
  private def small(p: SparkPlan): Boolean =
    bytesBelow(p).exists(_ <= SQLConf.get.getConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD))

  /** The bytes of the run stages `p` reads, when it adds no rows to them; None otherwise. */
  private def bytesBelow(p: SparkPlan): Option[BigInt] = p match {
    case s: QueryStageExec => if (s.isMaterialized) s.computeStats().map(_.sizeInBytes) else None
    case _: AQEShuffleReadExec | _: BaseAggregateExec | _: FilterExec | _: ProjectExec | _: SortExec |
         _: WholeStageCodegenExec | _: InputAdapter | _: InterruptibleRowsExec =>
      sum(p.children)
    case j: BroadcastHashJoinExec => joined(j.joinType, j.buildSide, j.left, j.right)
    case j: BroadcastNestedLoopJoinExec => joined(j.joinType, j.buildSide, j.left, j.right)
    case _ => None
  }

  private def sum(plans: Seq[SparkPlan]): Option[BigInt] =
    plans.foldLeft(Option(BigInt(0))) { (total, c) => total.flatMap(n => bytesBelow(c).map(_ + n)) }

  /** A broadcast join adds no rows when it only keeps or drops streamed rows (semi, anti), or
   * when its broadcast side is one row at most (a scalar subquery's, as a HAVING against one
   * lowers: TPC-H q11); any other join may multiply them. */
  private def joined(kind: JoinType, build: BuildSide, left: SparkPlan, right: SparkPlan): Option[BigInt] =
    (kind, build) match {
      case (LeftSemi | LeftAnti, BuildRight) => sum(Seq(left, right))
      case (Inner | Cross | LeftOuter, BuildRight) if oneRow(right) => sum(Seq(left, right))
      case _ => None
    }

  private def oneRow(p: SparkPlan): Boolean = p match {
    case s: QueryStageExec => s.isMaterialized && s.computeStats().flatMap(_.rowCount).exists(_ <= 1)
    case _ => false
  }
}
