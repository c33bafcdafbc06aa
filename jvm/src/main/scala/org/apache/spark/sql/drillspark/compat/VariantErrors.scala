package org.apache.spark.sql.drillspark.compat

import org.apache.spark.types.variant.VariantSizeLimitException

/** Spark's variant encoder refuses values over its size limit with an exception of its own
 * module; the `drill` scan reports such a value as one that does not fit its column. */
object VariantErrors {
  def isSizeLimit(e: Throwable): Boolean = e.isInstanceOf[VariantSizeLimitException]
}
