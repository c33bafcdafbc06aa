package org.apache.spark.sql.drillspark.compat

import org.apache.spark.{InterruptibleIterator, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.joins.BroadcastNestedLoopJoinExec

/**
 * Physical rule: the streamed side of a broadcast nested-loop join reaches the join through an
 * iterator that checks at every row whether the task was cancelled.
 *
 * A task stops on cancel only where it checks its kill flag: Spark checks it when a scan's
 * iterator is asked for its next row, or, for a columnar scan (drillspark's readers), its next
 * batch. The generated code of a nested-loop join runs the whole build side for each streamed
 * row, so one batch of a few thousand rows can be hours of work: a cancelled job's task then
 * kept computing (a non-equi self join of a 1 MB file, once the scans report their size and
 * the join is broadcast; tests/foundation/test_cancel.py). Read through this node, the join's
 * generated code asks for its input row by row (the node is not part of whole-stage code),
 * and each row checks the flag: one row's loop over the build side is the most a cancel waits.
 * It moves and changes no row and keeps the child's partitioning and ordering, so the plan's
 * other requirements are untouched; what it costs is one fused stage split in two, next to a
 * join whose work grows with the product of its sides. (In compat: Spark's physical plans.)
 */
object InterruptibleNestedLoops extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = plan.transformUp {
    case j: BroadcastNestedLoopJoinExec => j.buildSide match {
      case BuildRight if !j.left.isInstanceOf[InterruptibleRowsExec] =>
        j.withNewChildren(Seq(InterruptibleRowsExec(j.left), j.right))
      case BuildLeft if !j.right.isInstanceOf[InterruptibleRowsExec] =>
        j.withNewChildren(Seq(j.left, InterruptibleRowsExec(j.right)))
      case _ => j
    }
  }
}

/** The child's rows, each `hasNext` checking the task's kill flag (InterruptibleNestedLoops). */
final case class InterruptibleRowsExec(child: SparkPlan) extends UnaryExecNode {

  override def output: Seq[Attribute] = child.output

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override protected def doExecute(): RDD[InternalRow] =
    child.execute().mapPartitionsInternal(rows => new InterruptibleIterator(TaskContext.get(), rows))

  override protected def withNewChildInternal(newChild: SparkPlan): InterruptibleRowsExec =
    copy(child = newChild)
}
