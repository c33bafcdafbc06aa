package drillspark.functions

import org.apache.spark.sql.catalyst.expressions.Literal

import drillspark.BuildInfo

/** `drill_version()`: the drillspark version of the jar on the classpath (a constant). */
object DrillVersion {
  val Name = "drill_version"

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    getClass.getName.stripSuffix("$"), // DESCRIBE FUNCTION's class: this builder, not Literal
    usage = "_FUNC_() - Returns the version of the drillspark extension jar.",
    examples = """
    Examples:
      > SELECT _FUNC_();
       0.1.0
  """) { args =>
    DrillFunctions.arity(Name, args, 0)
    Literal(BuildInfo.version)
  }
}
