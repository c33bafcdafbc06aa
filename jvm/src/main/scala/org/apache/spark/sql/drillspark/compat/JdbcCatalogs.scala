package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.connector.catalog.{SupportsNamespaces, TableCatalog}
import org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog

/** Spark's JDBC table catalog (a class of Spark's execution package): a `jdbc` storage
 * plugin's catalog ([[drillspark.catalog.JdbcPluginCatalog]]) serves through one. */
object JdbcCatalogs {
  def create(): TableCatalog with SupportsNamespaces = new JDBCTableCatalog
}
