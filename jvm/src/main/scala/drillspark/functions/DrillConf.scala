package drillspark.functions

import org.apache.spark.sql.drillspark.compat.DrillConfCompat

/** Session options of drillspark's functions and rules (`spark.conf.set(key, value)`). */
object DrillConf {
  /** drill_flatten raises Drill SQL's error on a scalar or map instead of giving one row. */
  val FlattenStrict = "spark.drillspark.flatten.strict"

  /** The missing-column rule is on (default) for plans that read a Drill table. */
  val MissingColumnsEnabled = "spark.drillspark.missingColumns.enabled"

  /** Type of a missing column: `varchar` (Drill's JSON reader, default) or `int` (classic). */
  val MissingColumnsType = "spark.drillspark.missingColumns.type"

  def flag(key: String, default: Boolean): Boolean =
    DrillConfCompat.get(key, default.toString).trim.equalsIgnoreCase("true")

  def string(key: String, default: String): String =
    DrillConfCompat.get(key, default).trim
}
