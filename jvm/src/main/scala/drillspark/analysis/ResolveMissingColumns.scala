package drillspark.analysis

import java.util.Locale

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAlias, UnresolvedAttribute, UnresolvedExtractValue}
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, Literal, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.drillspark.compat.{DrillAnalysisCompat, DrillConfCompat}
import org.apache.spark.sql.types.{DataType, IntegerType, MetadataBuilder, StringType}
import org.apache.spark.unsafe.types.UTF8String

import drillspark.functions.DrillConf

/**
 * Drill's missing columns: in a plan that reads a [[drillspark.DrillTable]], a column or
 * nested field that does not exist is a typed NULL (nullable VARCHAR, as Drill's JSON reader;
 * `spark.drillspark.missingColumns.type=int` gives Drill's classic nullable INT) instead of
 * Spark's UNRESOLVED_COLUMN / FIELD_NOT_FOUND. Only operators whose input reads a Drill
 * table are changed (other branches, CTEs and subqueries of the same query are not).
 * The query carries a warning naming what was missing: each NULL is a [[MissingColumn]]
 * (`drill_missing(path)` in the analyzed plan, so EXPLAIN EXTENDED shows it), a missing column
 * in a select list also has `drill.missing` metadata naming the path, and the driver log gets
 * a warning line. Plans without a
 * Drill table are returned untouched; `spark.drillspark.missingColumns.enabled=false` turns
 * the rule off.
 *
 * It runs in two places. `early` (hint phase, before Spark resolves columns): nested paths,
 * which Spark's ResolveReferences would reject at once, under relations that are already
 * resolved (DataFrames) or belong to drillspark's `dfs` catalog. Otherwise (end of each
 * resolution round): top-level columns nothing else in the query could resolve.
 */
case class ResolveMissingColumns(session: SparkSession, early: Boolean) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!DrillConf.flag(DrillConf.MissingColumnsEnabled, default = true)) return plan
    val withRelations = if (early) DrillAnalysisCompat.resolveDrillCatalogRelations(session, plan) else plan
    val readsDrill = DrillAnalysisCompat.drillReader(withRelations)
    if (!readsDrill(withRelations)) return plan

    // Only operators over Drill data: a UNION branch, CTE or subquery over any other relation
    // keeps Spark's own errors even when another part of the query reads a Drill table.
    val missing = mutable.LinkedHashSet.empty[String]
    val result = withRelations.resolveOperatorsUp {
      case q: LogicalPlan if q.children.nonEmpty && !q.resolved && q.expressions.exists(hasCandidate) &&
          q.children.exists(readsDrill) =>
        fillMissing(q, missing)
    }
    if (missing.nonEmpty) {
      logWarning(s"drillspark: column(s) ${missing.mkString(", ")} not found in the Drill table; " +
        s"they read as NULL of type ${nullType.sql} (${DrillConf.MissingColumnsEnabled}=false turns this off)")
    }
    result
  }

  private def nullType: DataType =
    if (DrillConf.string(DrillConf.MissingColumnsType, "varchar").toLowerCase(Locale.ROOT) == "int") IntegerType
    else StringType

  private def hasCandidate(e: Expression): Boolean = e.exists {
    case _: UnresolvedAttribute | _: UnresolvedExtractValue => true
    case _ => false
  }

  /** The name path of `a.b.c` or `col("a")["b"]["c"]`, if `e` is one. */
  private def pathOf(e: Expression): Option[Seq[String]] = e match {
    case u: UnresolvedAttribute => Some(u.nameParts)
    case UnresolvedExtractValue(child, Literal(field: UTF8String, StringType)) =>
      pathOf(child).map(_ :+ field.toString)
    case _ => None
  }

  /** Whether `path` is missing from `q`'s input (Spark would fail on it), and how. */
  private def isMissing(q: LogicalPlan, path: Seq[String], known: Set[String]): Boolean = {
    val resolver = DrillConfCompat.resolver
    try {
      q.resolveChildren(path, resolver) match {
        case Some(_) => false
        // Top-level: only when no column, alias or outer column anywhere has any of its names,
        // so Spark's later rules (missing ORDER BY references, aliases, outer references)
        // keep their chance.
        case None => !early && !path.exists(p => known.contains(p.toLowerCase(Locale.ROOT)))
      }
    } catch {
      case e: AnalysisException
          if Set("FIELD_NOT_FOUND", "INVALID_EXTRACT_BASE_FIELD_TYPE").contains(e.getCondition) => true
      case NonFatal(_) => false
    }
  }

  private def fillMissing(q: LogicalPlan, missing: mutable.Set[String]): LogicalPlan = {
    val known: Set[String] = (q.children.flatMap(_.collect { case n => DrillAnalysisCompat.safeOutputNames(n) }.flatten) ++
      q.expressions.flatMap(_.collect { case a: Alias => a.name }) ++
      DrillAnalysisCompat.outerNames).map(_.toLowerCase(Locale.ROOT)).toSet
    val dt = nullType

    def missingPath(e: Expression): Option[Seq[String]] =
      pathOf(e).filter(p => isMissing(q, p, known))

    def inner(e: Expression): Expression = e.transformDown {
      case c if missingPath(c).isDefined =>
        val name = missingPath(c).get.mkString(".")
        missing += name
        MissingColumn(name, dt)
    }

    def topLevel(e: NamedExpression): NamedExpression = (e match {
      case UnresolvedAlias(child, None) => missingPath(child)
      case other => missingPath(other)
    }) match {
      case Some(path) =>
        val name = path.mkString(".")  // as written, qualifier included
        missing += name
        val meta = new MetadataBuilder().putString("drill.missing", name).build()
        Alias(MissingColumn(name, dt), path.last)(explicitMetadata = Some(meta))
      case None => inner(e).asInstanceOf[NamedExpression]
    }

    q match {
      case p: Project => p.copy(projectList = p.projectList.map(topLevel))
      case a: Aggregate => a.copy(
        groupingExpressions = a.groupingExpressions.map(inner),
        aggregateExpressions = a.aggregateExpressions.map(topLevel))
      case other => other.transformExpressions { case e => inner(e) }
    }
  }
}
