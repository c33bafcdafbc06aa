package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import drillspark.source.DrillJsonTable

/**
 * An analyzer check: read options given to a table of a drillspark catalog
 * (`spark.read.option(...).table("dfs.`x`")`) are refused when the query is analysed, so even
 * `df.schema` cannot show a schema the options would have changed.
 */
object DrillCatalogReadCheck extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case r: DataSourceV2Relation => r.table match {
      case t: DrillJsonTable => t.checkReadOptions(r.options)
      case _ =>
    }
    case _ =>
  }
}
