package org.apache.spark.sql.drillspark.compat

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, EqualNullSafe, EqualTo, Expression,
  GreaterThan, GreaterThanOrEqual, In, InSet, IsNotNull, LessThan, LessThanOrEqual, Not, Or, PredicateHelper,
  SortOrder}
import org.apache.spark.sql.catalyst.optimizer.BuildLeft
import org.apache.spark.sql.catalyst.plans.{Cross, Inner, JoinType, LeftAnti, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{BinaryExecNode, FilterExec, LeafExecNode, SortExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{QueryStageExec, ShuffleQueryStageExec}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.exchange.{ENSURE_REQUIREMENTS, REBALANCE_PARTITIONS_BY_COL, ShuffleExchangeExec}
import org.apache.spark.sql.execution.joins.{BaseJoinExec, BroadcastHashJoinExec, ShuffledHashJoinExec,
  SortMergeJoinExec}
import org.apache.spark.sql.internal.SQLConf

/**
 * AQE's query-stage preparation rule (#37): of a shuffled join's two inputs, the one likely
 * small runs first, so AQE can make the join a broadcast join before the other is shuffled.
 *
 * Spark plans a join of a filtered table (TPC-H q05's orders of one year, joined to customer)
 * with a large one (lineitem) as a sort-merge join: without statistics, a filter keeps its
 * input's size and an inner join's size is the product of its inputs'. AQE learns the filtered
 * side's true size (2 MB) when its stage has run and turns the join into a broadcast join, but
 * it started both sides' stages at once, so the large side had already been shuffled (108 MB
 * of lineitem for q05 at SF 1, half its run time), to be read back locally. Drill's planner
 * estimates the filtered side's rows and broadcasts it from the start.
 *
 * Here the large side's exchange waits (AfterStage) for the small side's stage: AQE makes an
 * exchange a stage only when every stage below it has run. When the small side has run, AQE
 * plans again with its true size: a broadcast join when it is at most
 * spark.sql.adaptive.autoBroadcastJoinThreshold, else the shuffled join as before, the large side
 * now shuffled after the small one (what is lost: the two sides' stages no longer overlap).
 *
 * Likely small: a side estimated at most 16 times the broadcast threshold and at most half the
 * other, by a Drill-like guess on Spark's scan sizes (Calcite's selectivities for a filter, a
 * join the larger of its inputs, as a join on a key of one side keeps; a grouping a tenth of
 * its input, a semi-join 15 % of its left side, as Calcite guesses). The guess only orders
 * the two stages; what AQE then plans rests on the sizes measured. Only where the small side
 * may be a broadcast join's build side (an outer join streams its preserved side), and only
 * with exchange reuse on: the small side's stage is then one stage, run once, whichever of its
 * two places AQE reaches first. `enabled` is read per plan.
 */
final case class BuildSideFirst(enabled: () => Boolean) extends Rule[SparkPlan] with PredicateHelper {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!enabled() || !conf.exchangeReuseEnabled || threshold <= 0) plan
    else plan.transformUp {
      case j: SortMergeJoinExec => reorder(j, j.joinType, j.left, j.right)
      case j: ShuffledHashJoinExec => reorder(j, j.joinType, j.left, j.right)
    }

  private def threshold: Long =
    conf.getConf(SQLConf.ADAPTIVE_AUTO_BROADCASTJOIN_THRESHOLD)
      .getOrElse(conf.getConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD))

  private def reorder(join: SparkPlan, kind: JoinType, left: SparkPlan, right: SparkPlan): SparkPlan = {
    def first(small: SparkPlan, other: SparkPlan): Option[SparkPlan] =
      (smallInput(small), exchangeOf(other)) match {
        case (Some((run, est)), Some(e)) if likelySmall(est, estimate(e.child)) => Some(run)
        case _ => None
      }
    lazy val leftFirst = if (buildsLeft(kind)) first(left, right) else None
    lazy val rightFirst = if (buildsRight(kind)) first(right, left) else None
    leftFirst.map(run => join.withNewChildren(Seq(left, waitFor(right, run))))
      .orElse(rightFirst.map(run => join.withNewChildren(Seq(waitFor(left, run), right))))
      .getOrElse(join)
  }

  /** What the join input must run first, and the guess at its size: its shuffle still to run
   * (its exchange, or its stage AQE is running: each time a stage ends AQE plans again, and
   * this rule sees the plan again). A stage that has run is not: AQE plans the join with its
   * size. An input without a shuffle of its own (partitioned by an aggregate or a join below
   * it, as TPC-H q18's orders by their semi-join) runs first whole, every shuffle inside it:
   * once they have run AQE may broadcast that join, and the input then has its own exchange.
   * Whole, not the shuffles alone: AQE maps a stage that has run to its logical node through
   * the first plan node it meets that carries that node, and a final aggregate above its
   * shuffle carries the aggregate's, so the wait names that aggregate too. */
  private def smallInput(side: SparkPlan): Option[(SparkPlan, BigInt)] = side match {
    case SortExec(_, false, child, _) => smallInput(child)
    case s: ShuffleQueryStageExec if !s.isMaterialized => Some((s, estimate(s.plan)))
    case _ =>
      exchangeOf(side).map(e => (e, estimate(e.child)))
        .orElse(if (side.exists(toRun)) Some((side, estimate(side))) else None)
  }

  private def toRun(p: SparkPlan): Boolean = p match {
    case s: ShuffleQueryStageExec => !s.isMaterialized
    case _: ShuffleExchangeExec => true
    case _ => false
  }

  private def likelySmall(small: BigInt, other: BigInt): Boolean =
    small <= BigInt(threshold) * 16 && small * 2 <= other

  // the join types a broadcast join can build on that side (Spark's JoinSelection)
  private def buildsLeft(kind: JoinType): Boolean = kind match {
    case Inner | Cross | RightOuter => true
    case _ => false
  }

  private def buildsRight(kind: JoinType): Boolean = kind match {
    case Inner | Cross | LeftOuter | LeftSemi | LeftAnti => true
    case _ => false
  }

  /** The join input's own shuffle, still to run (a sort-merge join sorts above it): the
   * planner's, or the translator's rebalance of a HAVING's groups, placed so AQE measures them. */
  private def exchangeOf(side: SparkPlan): Option[ShuffleExchangeExec] = side match {
    case SortExec(_, false, child, _) => exchangeOf(child)
    case e @ ShuffleExchangeExec(_, _, ENSURE_REQUIREMENTS | REBALANCE_PARTITIONS_BY_COL, _, _) => Some(e)
    case _ => None
  }

  /** `side` with its exchange's input made to wait for `first`'s stages. */
  private def waitFor(side: SparkPlan, first: SparkPlan): SparkPlan = side match {
    case s: SortExec => s.withNewChildren(Seq(waitFor(s.child, first)))
    case e: ShuffleExchangeExec => e.withNewChildren(Seq(AfterStage(e.child, first)))
    case other => other
  }

  /** A guess at `p`'s output bytes from what Spark knows before running it. */
  private def estimate(p: SparkPlan): BigInt = p match {
    case s: QueryStageExec if s.isMaterialized => s.computeStats().map(_.sizeInBytes).getOrElse(known(s))
    case _: LeafExecNode => known(p)
    case f: FilterExec => scaled(estimate(f.child), selectivity(f.condition))
    // a grouping's final step: a tenth of its input, Calcite's guess at the groups
    case a: BaseAggregateExec if a.groupingExpressions.nonEmpty && a.requiredChildDistributionExpressions.isDefined =>
      estimate(a.child) / 10
    // a semi-join keeps the share of its left rows an equality keeps, an anti join the rest
    case j: BaseJoinExec if j.joinType == LeftSemi => scaled(estimate(j.left), Equality)
    case j: BaseJoinExec if j.joinType == LeftAnti => scaled(estimate(j.left), 1 - Equality)
    // a broadcast join's output is its streamed rows' (its build side is keys, as in a star
    // schema's dimension), a shuffled join's the larger input's
    case j: BroadcastHashJoinExec => estimate(j.buildSide match { case BuildLeft => j.right; case _ => j.left })
    case j: BaseJoinExec => estimate(j.left).max(estimate(j.right))
    case _ => p.children.map(estimate).sum
  }

  private def scaled(bytes: BigInt, share: BigDecimal): BigInt = (BigDecimal(bytes) * share).toBigInt

  // Calcite's selectivity of an equality
  private val Equality = BigDecimal("0.15")

  /** Calcite's guesses, which Drill's planner uses: an equality keeps 15 % of the rows, a
   * comparison half, anything else a quarter; the conditions of an AND together. Spark's own
   * null checks, inferred from the other conditions, keep all. */
  private def selectivity(condition: Expression): BigDecimal =
    splitConjunctivePredicates(condition).map(guess).product

  private def guess(e: Expression): BigDecimal = e match {
    case _: IsNotNull => 1
    case _: EqualTo | _: EqualNullSafe => Equality
    case In(_, list) => (Equality * list.size).min(BigDecimal("0.5"))
    case InSet(_, set) => (Equality * set.size).min(BigDecimal("0.5"))
    case _: LessThan | _: LessThanOrEqual | _: GreaterThan | _: GreaterThanOrEqual => BigDecimal("0.5")
    case Not(inner) => 1 - guess(inner)
    case Or(l, r) => (guess(l) + guess(r)).min(1)
    case And(l, r) => guess(l) * guess(r)
    case _ => BigDecimal("0.25")
  }

  // Spark's own estimate of a leaf (a scan: its files' size scaled to the columns read)
  private def known(p: SparkPlan): BigInt =
    p.logicalLink.map(_.stats.sizeInBytes).getOrElse(BigInt(Long.MaxValue))
}

/**
 * `child`, run once the query stages of `first` have run (BuildSideFirst). AQE makes an
 * exchange above this node a stage only when every stage below it, `first`'s too, has run.
 * `first` is never executed here: it is the other join input's own exchange (or its running
 * stage), or that whole input when it has no exchange of its own, whose stages AQE shares
 * between their two places (exchange reuse). Once they have run, AQE's plans have no
 * AfterStage for them (BuildSideFirst leaves a join with a run input to AQE).
 */
final case class AfterStage(child: SparkPlan, first: SparkPlan) extends BinaryExecNode {
  override def left: SparkPlan = child
  override def right: SparkPlan = first
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override protected def doExecute(): RDD[InternalRow] = child.execute()
  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan): AfterStage =
    copy(child = newLeft, first = newRight)
}
