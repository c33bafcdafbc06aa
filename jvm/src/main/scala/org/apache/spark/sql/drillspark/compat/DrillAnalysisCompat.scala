package org.apache.spark.sql.drillspark.compat

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{AnalysisContext, UnresolvedRelation}
import org.apache.spark.sql.catalyst.plans.logical.{CTERelationRef, LogicalPlan, WithCTE}
import org.apache.spark.sql.classic.{SparkSession => ClassicSession}
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.DrillTable
import drillspark.catalog.DrillCatalog

/**
 * The Spark-internal pieces the missing-column rule needs: finding DSv2 relations over a
 * [[DrillTable]] (through CTE references), the outer query of a subquery being analysed, and resolving a relation of
 * one of drillspark's own catalogs (`dfs`) or a temp view over Drill data before Spark's
 * ResolveReferences runs.
 */
object DrillAnalysisCompat {

  /** The DSv2 tables `plan` reads, each with the read options given to it. */
  def v2Reads(plan: LogicalPlan): Seq[(Table, CaseInsensitiveStringMap)] =
    plan.collect { case r: DataSourceV2Relation => (r.table, r.options) }

  /** True when `plan` reads a relation whose DSv2 table is a DrillTable. */
  def readsDrillTable(plan: LogicalPlan): Boolean = drillReader(plan)(plan)

  /**
   * A test for sub-plans of `root`: does this one read a DrillTable, looking down to its
   * relations and through references to `root`'s CTEs (a CTE reference is a leaf whose
   * definition sits elsewhere in the plan).
   */
  def drillReader(root: LogicalPlan): LogicalPlan => Boolean = {
    val ctes: Map[Long, LogicalPlan] = root.collect { case w: WithCTE => w.cteDefs.map(d => d.id -> d.child) }
      .flatten.toMap
    def reads(plan: LogicalPlan, seen: Set[Long]): Boolean = plan.exists {
      case r: DataSourceV2Relation => r.table.isInstanceOf[DrillTable]
      case ref: CTERelationRef if !seen(ref.cteId) => ctes.get(ref.cteId).exists(reads(_, seen + ref.cteId))
      case _ => false
    }
    plan => reads(plan, Set.empty)
  }

  /** Output column names of the enclosing query while a subquery is analysed. */
  def outerNames: Seq[String] =
    AnalysisContext.get.outerPlan.toSeq.flatMap(p => safeOutputNames(p))

  def safeOutputNames(plan: LogicalPlan): Seq[String] =
    try plan.output.map(_.name) catch { case NonFatal(_) => Nil }

  /**
   * Resolves `catalog.table` relations of drillspark's own catalogs now, the way Spark's
   * ResolveRelations will, so nested fields under them can be checked before Spark's
   * ResolveReferences raises FIELD_NOT_FOUND. Any other relation is left as it is.
   */
  def resolveDrillCatalogRelations(session: SparkSession, plan: LogicalPlan): LogicalPlan = {
    val classic = session match {
      case c: ClassicSession => c
      case _ => return plan
    }
    def isDrillCatalog(name: String): Boolean =
      try {
        val manager = classic.sessionState.catalogManager
        manager.isCatalogRegistered(name) &&
          manager.catalog(name).isInstanceOf[DrillCatalog]
      } catch { case NonFatal(_) => false }

    // a temp view (local or global) over a `drill` DataFrame or a dfs table: its plan is
    // already analysed, so Spark's ResolveRelations only substitutes it
    def isTempView(u: UnresolvedRelation): Boolean =
      try classic.sessionState.catalog.isTempView(u.multipartIdentifier)
      catch { case NonFatal(_) => false }

    plan.resolveOperatorsUp {
      case u: UnresolvedRelation if (u.multipartIdentifier.size >= 2 && isDrillCatalog(u.multipartIdentifier.head)) ||
          isTempView(u) =>
        val resolved = classic.sessionState.analyzer.ResolveRelations(u)
        if (readsDrillTable(resolved)) resolved else u
    }
  }
}
