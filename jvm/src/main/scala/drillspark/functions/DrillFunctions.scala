package drillspark.functions

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry.FunctionBuilder
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.drillspark.compat.DrillSparkErrors

/**
 * What every drill_ function shares: its description for DESCRIBE FUNCTION and the
 * argument-count check (the one list is DrillSparkExtensions.functions). Every name starts
 * with `drill_`, so none replaces a Spark built-in (injecting `flatten` would hide Spark's own
 * array flatten).
 */
object DrillFunctions {

  type Description = (FunctionIdentifier, ExpressionInfo, FunctionBuilder)

  val Prefix = "drill_"

  /** Builds a description with usage text for DESCRIBE FUNCTION. */
  def describe(
      name: String,
      className: String,
      usage: String,
      arguments: String = "",
      examples: String = "",
      note: String = "",
      group: String = "misc_funcs")(builder: FunctionBuilder): Description = {
    require(name.startsWith(Prefix), s"drillspark function $name must start with $Prefix")
    val info = new ExpressionInfo(
      className, null, name, usage, arguments, examples, note, group, "0.1.0", "", "built-in")
    (FunctionIdentifier(name), info, builder)
  }

  /**
   * Checks the argument count: Spark's WRONG_NUM_ARGS naming the function (an
   * AnalysisException, so the analyzer adds the call's position and SQL fragment).
   */
  def arity(name: String, args: Seq[Expression], counts: Int*): Unit =
    if (!counts.contains(args.size)) throw DrillSparkErrors.wrongNumArgs(name, counts, args.size)
}
