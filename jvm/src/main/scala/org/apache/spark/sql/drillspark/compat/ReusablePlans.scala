package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.Dataset

/**
 * Whether a query's whole Dataset (its physical plan, planned once) may answer it again while
 * its inputs are unchanged (the server's kept statements, python's spark/plan_reuse.py): not when
 * its analyzed plan, subqueries included, holds an expression Spark's optimizer fixes per query
 * (the clock: `ComputeCurrentTime`; the session's user, catalog, schema: `ReplaceCurrentLike`) or
 * one that is not deterministic (a seeded random number, a row's file). Matched by class name: the
 * classes move between Spark versions, the names do not.
 */
object ReusablePlans {
  private val PerQuery = Set("CurrentTimestamp", "Now", "CurrentDate", "LocalTimestamp", "CurrentTime",
    "CurrentTimeZone", "CurrentBatchTimestamp", "CurrentUser", "CurrentDatabase", "CurrentCatalog",
    "CurrentSchema", "CurrentSessionUser")

  private def fixedPerQuery(e: Expression): Boolean =
    e.exists(x => !x.deterministic || PerQuery.contains(x.getClass.getSimpleName))

  def whole(df: Dataset[_]): Boolean =
    !df.queryExecution.analyzed.collectWithSubqueries { case p => p.expressions.exists(fixedPerQuery) }
      .contains(true)
}
