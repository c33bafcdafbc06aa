package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SortExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.ObjectHashAggregateExec

import drillspark.BoundedAggregateState

/**
 * Physical plan (#37): Spark's object hash aggregate holds every group's state in memory until
 * a task meets `spark.sql.objectHashAggregate.sortBased.fallbackThreshold` groups, with no
 * memory accounting, and only then sorts (and can spill). drillspark sessions raise that
 * threshold to 65,536 for its MIN / MAX / ANY_VALUE of a VARCHAR, whose state is one text a
 * group; a COLLECT_LIST or MEDIAN keeps all its group's rows, so under that threshold one
 * 750 MB CSV's COLLECT_LIST over 50,000 groups held its whole input in the heap (out of memory
 * once, else a third slower than sorting). So a grouped object hash aggregate with any typed
 * state that is not a [[BoundedAggregateState]] runs as Spark's sort aggregate, over its input
 * sorted by its groups (Spark's sort: it spills under Spark's memory manager), at any group
 * count.
 * Spark's columnar-rule hook, as it runs on every plan (the exchanges are in place, so the
 * sort is added here where the input is not already in the groups' order).
 */
object BoundedHashAggregates extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = plan.transformUp {
    case agg: ObjectHashAggregateExec if agg.groupingExpressions.nonEmpty && !agg.isStreaming && growing(agg) =>
      val sorted = agg.toSortAggregate
      val order = sorted.requiredChildOrdering.head // the sort aggregate's own: its groups ascending
      val child = if (SortOrder.orderingSatisfies(agg.child.outputOrdering, order)) agg.child
        else SortExec(order, global = false, agg.child)
      sorted.withNewChildren(Seq(child))
  }

  /** Whether a state of the aggregate may grow with its group's rows. */
  private def growing(agg: ObjectHashAggregateExec): Boolean = agg.aggregateExpressions.exists { e =>
    e.aggregateFunction match {
      case f: TypedImperativeAggregate[_] => !f.isInstanceOf[BoundedAggregateState]
      case _ => false
    }
  }

  /** The rule as Spark's columnar-rule hook takes it. */
  val hook: ColumnarRule = new ColumnarRule {
    override def preColumnarTransitions: Rule[SparkPlan] = BoundedHashAggregates
  }
}
