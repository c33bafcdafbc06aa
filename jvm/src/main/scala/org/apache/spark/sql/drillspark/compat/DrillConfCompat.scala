package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.internal.SQLConf

/** The active session's SQL conf (SQLConf is internal API), for drillspark's own options. */
object DrillConfCompat {
  def get(key: String, default: String): String = SQLConf.get.getConfString(key, default)

  /** The session's column-name resolver (case sensitive or not, per spark.sql.caseSensitive). */
  def resolver: (String, String) => Boolean = SQLConf.get.resolver
}
