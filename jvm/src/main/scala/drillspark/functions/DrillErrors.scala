package drillspark.functions

import org.apache.spark.sql.drillspark.compat.DrillSparkErrors

/** Runtime errors raised by drill_* functions, with Drill's wording plus the place. */
object DrillErrors {

  /** A Spark error (so PySpark shows the message, not a JVM trace) carrying `message`. */
  def runtime(message: String): RuntimeException = DrillSparkErrors.userError(message)

  /** Strict drill_flatten met a value that is not a list (Drill SQL's FLATTEN error). */
  def flattenNonList(where: String, drillType: String): RuntimeException =
    runtime(s"Flatten does not support inputs of non-list values. " +
      s"($where got a $drillType value; ${DrillConf.FlattenStrict}=false flattens it to one row)")

  /** drill_kvgen met a VARIANT member that is not an object. */
  def kvgenNotMap(where: String, drillType: String): RuntimeException =
    runtime(s"kvgen function only supports Simple maps as input. ($where got a $drillType value)")

  /** drill_kvgen met a value in a member whose type differs from the pairs' value type. */
  def kvgenHeterogeneous(where: String, field: String, drillType: String, first: String): RuntimeException =
    runtime(s"${heterogeneousMessage(field, drillType, first)} ($where)")

  def heterogeneousMessage(field: String, drillType: String, first: String): String =
    "Mappify/kvgen does not support heterogeneous value types. All values in the input map " +
      s"must be of the same type. The field [$field] has a differing type [$drillType] " +
      s"(the first field's type is [$first])"
}
