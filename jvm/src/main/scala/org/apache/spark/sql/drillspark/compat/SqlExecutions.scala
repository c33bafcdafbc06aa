package org.apache.spark.sql.drillspark.compat

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.execution.ui.SQLAppStatusStore

/**
 * The SQL executions of a query's Spark jobs, found in Spark's status store on the JVM side (the
 * server's operator metrics, python's server/operator_metrics.py). Walked from Python, each
 * execution the store keeps (up to spark.sql.ui.retainedExecutions, 1,000 by default) cost a
 * few py4j round trips, so a long-lived server took seconds for one profile's metrics.
 */
object SqlExecutions {

  /** Executions that ran without a job (LocalPartitionRun), by job group: the last ones only,
   * as Spark's status store keeps the last executions only. */
  private val withoutJob = new java.util.LinkedHashMap[Long, String]()
  private val KeptWithoutJob = 10000

  /** `execution` ran its work without a Spark job, in job group `group` (null: none). */
  def ranWithoutJob(group: String, execution: Long): Unit = if (group != null) withoutJob.synchronized {
    withoutJob.put(execution, group)
    if (withoutJob.size > KeptWithoutJob) withoutJob.remove(withoutJob.keySet.iterator.next())
  }

  /** The ids, comma-separated in ascending order, of the executions that ran any of the jobs
   * `jobIds` (comma-separated) or ran in job group `group` without a job. */
  def ofJobs(store: SQLAppStatusStore, jobIds: String, group: String): String = {
    val jobs = jobIds.split(",").iterator.map(_.trim).filter(_.nonEmpty).map(_.toInt).toSet
    val ranHere = withoutJob.synchronized {
      withoutJob.entrySet.iterator.asScala.filter(_.getValue == group).map(_.getKey).toSet
    }
    store.executionsList().iterator
      .filter(e => e.jobs.keysIterator.exists(jobs.contains) || ranHere.contains(e.executionId))
      .map(_.executionId).toSeq.sorted.mkString(",")
  }
}
