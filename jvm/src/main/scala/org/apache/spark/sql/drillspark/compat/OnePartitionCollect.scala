package org.apache.spark.sql.drillspark.compat

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BaseOrdering, BindReferences, PlanExpression, RowOrdering, SortOrder,
  UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.execution.{CollectLimitExec, ColumnarRule, CommandResultExec, LocalTableScanExec, SparkPlan,
  TakeOrderedAndProjectExec, UnaryExecNode}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.util.collection.Utils

/**
 * Physical rule, the last of planning (#37): a statement whose plan ends in an ORDER BY ... LIMIT
 * (a BI chart) or a LIMIT (a tool's `LIMIT 1` probe) over one partition is collected in one job
 * whose function Spark's closure cleaner leaves alone.
 *
 * Spark's closure cleaner reads the bytecode of the class that declares a lambda and walks every
 * method in it with ASM, on each job. TakeOrderedAndProject collects through `RDD.takeOrdered`,
 * which hands it three lambdas of class RDD and one of SparkContext; a LIMIT collects through
 * `SparkPlan.executeTake`, a lambda of SparkPlan and one of SparkContext: large classes, read
 * again for every statement. Under sixteen BI clients that was about a third of the server JVM's
 * CPU (JFR; docs/performance.md, "The closure cleaner's share of a chart"). Over one partition
 * the rows are taken in that partition's task (the top rows as Spark's own one-partition
 * `doExecute` takes them, or the first rows) and collected with a function object of a named
 * class, which the cleaner skips (it cleans lambdas only), through the form of `runJob` that
 * adds no lambda of its own. Same rows, same order, one job; offsets and the projection are
 * applied on the driver as Spark's collect does. Several partitions take Spark's own collect; a
 * node with a subquery in its own expressions (which the wrapper would hide from Spark's later
 * rules), and a LIMIT of rows the driver holds (taken without a job), are left as Spark planned
 * them. Over a small input the one task runs where it is collected, without a job
 * (LocalPartitionRun, up to `localBytes`, which the rule holds for its session: localBytes below;
 * its task's projections and orderings interpreted where `interpreted`). `enabled` is read per
 * plan, `localBytes` and `interpreted` per run (Spark confs, so a session can turn them off to
 * compare).
 */
final case class OnePartitionCollect(enabled: () => Boolean, localBytes: () => Long, interpreted: () => Boolean)
  extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case t: TakeOrderedAndProjectExec if enabled() && !t.expressions.exists(_.exists(_.isInstanceOf[PlanExpression[_]])) =>
      OnePartitionTopKExec(t)
    // rows the driver holds (a local table, a command's result) are taken without any job
    case l: CollectLimitExec if enabled() && l.limit > 0 && !local(l.child) => OnePartitionLimitExec(l)
    case other => other
  }

  private def local(p: SparkPlan): Boolean = p.isInstanceOf[LocalTableScanExec] || p.isInstanceOf[CommandResultExec]
}

object OnePartitionCollect {

  /** The rule as Spark's columnar-rule hook takes it: that hook runs on every physical plan, where
   * AQE's post-planner rules run under AQE only (which leaves a plan without exchanges alone). */
  def hook(enabled: () => Boolean, localBytes: () => Long, interpreted: () => Boolean): ColumnarRule = new ColumnarRule {
    override def postColumnarTransitions: Rule[SparkPlan] = OnePartitionCollect(enabled, localBytes, interpreted)
  }

  /** The largest input `session` runs where it is collected (LocalPartitionRun), as its rule
   * reads it from `session`'s conf: 0 where the extension is not on. */
  def localBytes(session: SparkSession): Long = setting(session)(_.localBytes()).getOrElse(0L)

  /** Whether `session`'s runs where a statement is collected build their task's projections and
   * orderings interpreted (LocalPartitionRun). */
  def interpreted(session: SparkSession): Boolean = setting(session)(_.interpreted()).getOrElse(false)

  /** A setting of `session`'s rule, read under `session`'s conf (the caller's thread may have
   * no active session); None where the extension is not on. */
  private def setting[T](session: SparkSession)(read: OnePartitionCollect => T): Option[T] =
    session.sessionState.columnarRules.iterator
      .map(_.postColumnarTransitions)
      .collectFirst { case r: OnePartitionCollect => SQLConf.withExistingConf(session.sessionState.conf)(read(r)) }
}

/** Collecting one partition's rows in one job (OnePartitionCollect). */
private[compat] object OnePartitionRows {

  /** The rows of `rdd`'s one partition, an RDD over `plan`'s rows (the caller copies reused
   * rows in its task): its task run where it is collected when `plan` reads a small input
   * (LocalPartitionRun), else in one job. */
  def of(sc: SparkContext, plan: SparkPlan, rdd: RDD[InternalRow]): Array[InternalRow] =
    LocalPartitionRun.rows(plan, rdd).getOrElse(inJob(sc, rdd))

  private def inJob(sc: SparkContext, rdd: RDD[InternalRow]): Array[InternalRow] = {
    var rows = Array.empty[InternalRow]
    // the form of runJob that wraps no function in a lambda of its own (SparkContext's other
    // forms do, and the cleaner then reads SparkContext's large class)
    sc.runJob(rdd, new RowsOfPartition, Seq(0), (_: Int, part: Array[InternalRow]) => rows = part)
    rows
  }
}

/** A task's rows as an array: a named class, not a lambda, so Spark's closure cleaner leaves
 * it alone (OnePartitionCollect). */
private final class RowsOfPartition
  extends ((TaskContext, Iterator[InternalRow]) => Array[InternalRow]) with Serializable {
  override def apply(task: TaskContext, rows: Iterator[InternalRow]): Array[InternalRow] = rows.toArray
}

/**
 * What the two wrappers share: Spark's node `inner` plans and runs the rows (EXPLAIN shows it
 * after the wrapper's name); over one partition the wrapper's `collectOne` is the collect, one
 * job through [[OnePartitionRows]], else Spark's own.
 */
sealed trait OnePartitionCollectExec extends UnaryExecNode {

  def inner: SparkPlan

  /** The answer when the child is one partition (inside `executeQuery`). */
  protected def collectOne(rows: RDD[InternalRow]): Array[InternalRow]

  /** This wrapper around `plan`, a copy of `inner` with a new child or canonicalized. */
  protected def around(plan: SparkPlan): OnePartitionCollectExec

  override def child: SparkPlan = inner.children.head

  override def output: Seq[Attribute] = inner.output

  override def outputPartitioning: Partitioning = SinglePartition

  override def outputOrdering: Seq[SortOrder] = inner.outputOrdering

  override protected def doExecute(): RDD[InternalRow] = inner.execute()

  // a partitioning of no known count (a DSv2 scan's own) over scans of one input partition each
  // (a LIMIT probe of one small file) is counted from the child's RDD
  override def executeCollect(): Array[InternalRow] = child.outputPartitioning.numPartitions match {
    case 1 => executeQuery(collectOne(child.execute()))
    case 0 if child.collectLeaves().forall(onePartitionScan) => executeQuery {
      val rows = child.execute()
      if (rows.partitions.length == 1) collectOne(rows) else inner.executeCollect()
    }
    case _ => inner.executeCollect()
  }

  private def onePartitionScan(p: SparkPlan): Boolean = p match {
    case s: BatchScanExec => s.inputPartitions.length == 1
    case _ => false
  }

  override def simpleString(maxFields: Int): String = s"$nodeName ${inner.simpleString(maxFields)}"

  override protected def doCanonicalize(): SparkPlan = around(inner.canonicalized)

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan =
    around(inner.withNewChildren(Seq(newChild)))
}

/** `top`, collected over one partition without `RDD.takeOrdered` (OnePartitionCollect). */
final case class OnePartitionTopKExec(top: TakeOrderedAndProjectExec) extends OnePartitionCollectExec {

  override def inner: SparkPlan = top

  override protected def around(plan: SparkPlan): OnePartitionCollectExec =
    OnePartitionTopKExec(plan.asInstanceOf[TakeOrderedAndProjectExec])

  override protected def collectOne(partition: RDD[InternalRow]): Array[InternalRow] = {
    val rows = OnePartitionRows.of(sparkContext, child, firstRows(partition))
    val kept = if (top.offset > 0) rows.drop(top.offset) else rows
    if (top.projectList == child.output) kept
    else {
      val project = UnsafeProjection.create(top.projectList, child.output)
      project.initialize(0)
      kept.map(r => project(r).copy())
    }
  }

  /** The partition's first `limit` rows by the sort order, in that order (copied: a reader's
   * row is reused). Locals only in the task's function, so the plan itself is not shipped. */
  private def firstRows(rows: RDD[InternalRow]): RDD[InternalRow] = {
    val limit = top.limit
    val order = new TaskOrdering(BindReferences.bindReferences(top.sortOrder, child.output))
    rows.mapPartitionsInternal(part => Utils.takeOrdered(part.map(_.copy()), limit)(order))
  }
}

/** `limit`, collected over one partition without `SparkPlan.executeTake` (OnePartitionCollect). */
final case class OnePartitionLimitExec(limit: CollectLimitExec) extends OnePartitionCollectExec {

  override def inner: SparkPlan = limit

  override protected def around(plan: SparkPlan): OnePartitionCollectExec =
    OnePartitionLimitExec(plan.asInstanceOf[CollectLimitExec])

  override protected def collectOne(partition: RDD[InternalRow]): Array[InternalRow] = {
    val n = limit.limit // a local: the task's function ships no plan
    val rows = OnePartitionRows.of(sparkContext, child, partition.mapPartitionsInternal(_.take(n).map(_.copy())))
    if (limit.offset > 0) rows.drop(limit.offset) else rows
  }
}

/** `bound`'s ordering, made in the task that orders the rows, as that task's SQL conf says
 * (generated code, or interpreted in a run where it is collected: LocalPartitionRun). Spark's
 * LazilyGeneratedOrdering also generates its code where it is made, on the driver, and again
 * in each task that reads it back: a chart paid twice for code that takes longer to build than
 * its few rows take to sort (#37). */
private final class TaskOrdering(bound: Seq[SortOrder]) extends Ordering[InternalRow] {
  @transient private var made: BaseOrdering = _ // a task's copy is used by that task's thread only

  override def compare(a: InternalRow, b: InternalRow): Int = {
    if (made == null) made = RowOrdering.createObject(bound)
    made.compare(a, b)
  }
}
