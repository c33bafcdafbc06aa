package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.encoders.RowEncoder
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.classic.{Dataset, SparkSession}
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.internal.SQLConf

/**
 * Whether a query's whole Dataset (its physical plan, planned once) may answer it again while
 * its inputs are unchanged (the server's kept statements, python's spark/plan_reuse.py). Not when
 * its analyzed plan, subqueries included, holds an expression Spark's optimizer fixes per query
 * (the clock: `ComputeCurrentTime`; the session's user, catalog, schema: `ReplaceCurrentLike`) or
 * one that is not deterministic (a seeded random number, a row's file); and not when its physical
 * plan holds a node that keeps the outcome of its first execution (an exchange, a broadcast, a
 * subquery, AQE's stages: a run cancelled half-way would leave a failed future every later run
 * met; AQE's wrapper over a plan with none of them holds no stage). So the plans kept whole are
 * one-stage plans, as a BI tool's small charts are. Matched by class and node name: the classes
 * move between Spark versions, the names do not.
 */
object ReusablePlans {
  private val PerQuery = Set("CurrentTimestamp", "Now", "CurrentDate", "LocalTimestamp", "CurrentTime",
    "CurrentTimeZone", "CurrentBatchTimestamp", "CurrentUser", "CurrentDatabase", "CurrentCatalog",
    "CurrentSchema", "CurrentSessionUser")
  private val Stateful = Seq("Exchange", "Subquery", "QueryStage", "Broadcast")

  private def fixedPerQuery(e: Expression): Boolean =
    e.exists(x => !x.deterministic || PerQuery.contains(x.getClass.getSimpleName))

  /** The physical plan's node names, subqueries included and AQE's wrapper (a leaf) opened. */
  private def nodes(plan: SparkPlan): Seq[String] = plan.collectWithSubqueries {
    case a: AdaptiveSparkPlanExec => nodes(a.executedPlan) // its current plan: exchanges in place
    case p => Seq(p.nodeName)
  }.flatten

  /**
   * The values of the confs `names` (one per line) in `session`, joined by U+0001, U+0000 for
   * one not set: a kept plan's key holds a dozen, and a round trip for each was most of a kept
   * statement's py4j time through a busy server.
   */
  def confs(session: SparkSession, names: String): String = {
    val conf = session.sessionState.conf
    // a name neither set nor Spark's own is asked no further: `conf.getOption` finds it by
    // building (and formatting) a not-found error: about 1 % of a busy BI server JVM's CPU
    def known(n: String) = conf.contains(n) || SQLConf.containsConfigKey(n)
    names.split("\n").map(n => if (known(n)) conf.getConfString(n) else "\u0000").mkString("\u0001")
  }

  /** Whether the analyzed plan holds an expression fixed per query or not deterministic. */
  def perQuery(df: Dataset[_]): Boolean =
    df.queryExecution.analyzed.collectWithSubqueries { case p => p.expressions.exists(fixedPerQuery) }.contains(true)

  private def whole(df: Dataset[_]): Boolean =
    !perQuery(df) && !nodes(df.queryExecution.executedPlan).exists(n => Stateful.exists(n.contains))

  /**
   * A whole plan's Dataset to keep, or null when `df` is not whole: `df`'s physical plan with
   * AQE's wrapper taken off. The wrapper of a one-stage plan has nothing left to adapt (its
   * final plan is made now, with no job: there is no stage to run first), but each run holds
   * its lock from start to end, so concurrent runs of one kept plan (sixteen dashboards' same
   * chart) queued behind each other. The final plan itself runs concurrently as any plan does.
   */
  def planned(df: Dataset[_]): Dataset[Row] = {
    if (!whole(df)) return null // before the final plan: a plan with stages would run them
    val plan = df.queryExecution.executedPlan match {
      case a: AdaptiveSparkPlanExec => a.finalPhysicalPlan
      case p => p
    }
    val qe = new PlannedExecution(df.sparkSession, df.queryExecution.analyzed, plan)
    new Dataset[Row](qe, RowEncoder.encoderFor(qe.analyzed.schema))
  }

  /**
   * `df`'s answer, computed now, as a Dataset of those rows (a LocalRelation: collected again
   * with no job). For a plan whose inputs are small tables kept by their content (catalog
   * tables): while they list the same rows, a plan with nothing fixed per query answers the same.
   */
  def answered(df: Dataset[_]): Dataset[Row] = {
    val rows = df.toDF().collect().toSeq // an action of its own: its execution, its events
    val output = df.queryExecution.analyzed.output.map(_.newInstance())
    Dataset.ofRows(df.sparkSession, LocalRelation.fromExternalRows(output, rows))
  }
}

/** A query execution whose physical plan was made before (ReusablePlans.planned). */
private final class PlannedExecution(session: SparkSession, analyzed: LogicalPlan, plan: SparkPlan)
    extends QueryExecution(session, analyzed) {
  override lazy val executedPlan: SparkPlan = plan
}
