package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry
import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * Spark's own built-in functions by name (the builtin registry is internal API), for drill_*
 * functions that are compositions of Spark built-ins such as parse_json and to_json.
 */
object DrillBuiltins {
  def call(name: String, args: Seq[Expression]): Expression =
    FunctionRegistry.builtin.lookupFunction(FunctionIdentifier(name), args)
}
