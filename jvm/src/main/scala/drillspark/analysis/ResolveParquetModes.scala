package drillspark.analysis

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.drillspark.compat.ParquetModes

import drillspark.functions.DrillTypeOf

/**
 * Drill's MODEOF of a REQUIRED Parquet column is NOT NULL, but Spark reads every Parquet column
 * as nullable: in a plan calling `drill_modeof` on a column of Spark's Parquet source, the
 * call learns from the files' footers whether the column is REQUIRED in all of them.
 * drillspark's own Parquet reader marks such columns with `drill.required` metadata instead,
 * also read here; either way DrillTypeOf.knownNotNull decides, once per call, and the call
 * keeps the answer ([[DrillTypeOf.notNull]]).
 */
object ResolveParquetModes extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val asked = plan.exists(_.expressions.exists(_.exists {
      case m: DrillTypeOf => m.asksMode && m.notNull.isEmpty && m.childrenResolved
      case _ => false
    }))
    if (!asked || !plan.resolved) return plan
    val required = ParquetModes.requiredColumns(plan)
    plan.transformAllExpressions {
      // decided now: the optimizer later replaces an aliased column by its source, which has
      // neither the exprId nor the metadata any more
      case m: DrillTypeOf if m.asksMode && m.notNull.isEmpty =>
        m.copy(notNull = Some(DrillTypeOf.knownNotNull(m.child, required)))
    }
  }
}
