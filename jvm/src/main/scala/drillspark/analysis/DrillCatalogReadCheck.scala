package drillspark.analysis

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.drillspark.compat.DrillAnalysisCompat

import drillspark.source.DrillJsonTable

/**
 * An analyzer check: read options given to a table of a drillspark catalog
 * (`spark.read.option(...).table("dfs.`x`")`) are refused when the query is analysed, so even
 * `df.schema` cannot show a schema the options would have changed.
 */
object DrillCatalogReadCheck extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = DrillAnalysisCompat.v2Reads(plan).foreach {
    case (t: DrillJsonTable, options) => t.checkReadOptions(options)
    case _ =>
  }
}
