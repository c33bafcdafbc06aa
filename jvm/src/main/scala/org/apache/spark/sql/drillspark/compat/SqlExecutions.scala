package org.apache.spark.sql.drillspark.compat

import org.apache.spark.sql.execution.ui.SQLAppStatusStore

/**
 * The SQL executions of a query's Spark jobs, found in Spark's status store on the JVM side (the
 * server's operator metrics, python's server/operator_metrics.py). Walked from Python, each
 * execution the store keeps (up to spark.sql.ui.retainedExecutions, 1,000 by default) cost a
 * few py4j round trips, so a long-lived server took seconds for one profile's metrics.
 */
object SqlExecutions {

  /** The ids, comma-separated in ascending order, of the executions that ran any of the jobs
   * `jobIds` (comma-separated). */
  def ofJobs(store: SQLAppStatusStore, jobIds: String): String = {
    val jobs = jobIds.split(",").iterator.map(_.trim).filter(_.nonEmpty).map(_.toInt).toSet
    store.executionsList().iterator
      .filter(e => e.jobs.keysIterator.exists(jobs.contains))
      .map(_.executionId).toSeq.sorted.mkString(",")
  }
}
