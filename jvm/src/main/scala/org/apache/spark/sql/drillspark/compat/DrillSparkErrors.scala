package org.apache.spark.sql.drillspark.compat

import org.apache.spark.SparkRuntimeException

/**
 * Spark's error type for runtime failures (private[spark]): a SparkThrowable reaches PySpark
 * as a clean exception with our message instead of a raw JVM stack trace.
 */
object DrillSparkErrors {
  def userError(message: String): RuntimeException =
    new SparkRuntimeException(
      "USER_RAISED_EXCEPTION", Map("errorMessage" -> message), null, Array.empty, "")
}
