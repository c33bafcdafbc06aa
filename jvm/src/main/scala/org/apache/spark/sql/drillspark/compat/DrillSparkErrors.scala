package org.apache.spark.sql.drillspark.compat

import org.apache.spark.SparkRuntimeException
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.errors.QueryCompilationErrors
import org.apache.spark.sql.types.DataType

/**
 * Spark's error types (private[spark] / private[sql] constructors and QueryCompilationErrors):
 * a SparkThrowable with an error class reaches PySpark as a clean exception instead of a raw
 * JVM stack trace, and an AnalysisException thrown while Spark resolves a function gets the
 * call's position and SQL fragment attached by the analyzer.
 */
object DrillSparkErrors {
  def userError(message: String): RuntimeException =
    new SparkRuntimeException(
      "USER_RAISED_EXCEPTION", Map("errorMessage" -> message), null, Array.empty, "")

  /** WRONG_NUM_ARGS: `function` takes one of `counts` arguments, got `actual`. */
  def wrongNumArgs(function: String, counts: Seq[Int], actual: Int): Throwable =
    QueryCompilationErrors.wrongNumArgsError(function, counts, actual)

  /** NON_FOLDABLE_ARGUMENT: `parameter` of `function` must be a constant of type `dataType`. */
  def nonFoldableArgument(function: String, parameter: String, dataType: DataType): Throwable =
    QueryCompilationErrors.nonFoldableArgumentError(function, parameter, dataType)

  /** INVALID_PARAMETER_VALUE.NULL: `parameter` of `function` is NULL. */
  def nullParameter(function: String, parameter: String): Throwable =
    new AnalysisException("INVALID_PARAMETER_VALUE.NULL",
      Map("parameter" -> quote(parameter), "functionName" -> quote(function)))

  /** INVALID_PARAMETER_VALUE.CHARSET: `encoding` is none of `supported`. */
  def unsupportedEncoding(function: String, parameter: String, encoding: String, supported: String)
      : Throwable =
    new AnalysisException("INVALID_PARAMETER_VALUE.CHARSET",
      Map("parameter" -> quote(parameter), "functionName" -> quote(function),
        "charsets" -> supported, "charset" -> s"'$encoding'"))

  private def quote(name: String): String = s"`$name`"
}
