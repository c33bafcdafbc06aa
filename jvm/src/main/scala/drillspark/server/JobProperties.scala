package drillspark.server

import org.apache.spark.sql.SparkSession

/**
 * A server query's Spark job properties on the calling thread (Python: spark/job_properties.py),
 * set and cleared in one py4j call each (#37): the active session, its job group (which cancel
 * stops), the description Spark's UI shows, interrupt on cancel, and its scheduler pool. From Python each
 * property was a round trip of its own, six a query, and under sixteen BI clients every round
 * trip waits for the server's GIL again.
 */
object JobProperties {

  private val Keys = Seq("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel",
    "spark.scheduler.pool")

  /** The thread's jobs belong to `group` (interrupted on cancel) and run in `pool` (none: the
   * default pool). */
  def enter(session: SparkSession, group: String, description: String, pool: String): Unit = {
    // the session active on this thread too: a server thread's JVM thread had none, so Spark's
    // analysis read the fallback conf (TIME unsupported: an aggregate over a Parquet TIME
    // column failed under `drillspark serve` only)
    SparkSession.setActiveSession(session)
    val sc = session.sparkContext
    sc.setJobGroup(group, description, interruptOnCancel = true)
    sc.setLocalProperty("spark.scheduler.pool", pool)
  }

  /** The thread's jobs belong to no query again. */
  def leave(session: SparkSession): Unit = {
    val sc = session.sparkContext
    Keys.foreach(sc.setLocalProperty(_, null))
  }
}
