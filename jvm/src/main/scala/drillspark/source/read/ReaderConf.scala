package drillspark.source.read

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.drillspark.compat.ScanVectors.HadoopConf

/**
 * The Hadoop configuration the readers open files with, broadcast (as Spark's own file scans
 * do) and shared by every scan while the configuration stays the same. A reader factory that
 * carried the configuration itself put one copy per scan into every task: a task of a 500-way
 * UNION ALL deserialized 500 configurations (the task binary holds every branch's factory),
 * so the query's tasks did 250,000 — minutes of work, all of it quadratic in the branches.
 */
object ReaderConf {
  private final case class Last(sc: SparkContext, entries: Map[String, String], conf: Broadcast[HadoopConf])
  private var last: Last = _

  def apply(spark: SparkSession): Broadcast[HadoopConf] = synchronized {
    val sc = spark.sparkContext
    val entries = sc.hadoopConfiguration.iterator().asScala.map(e => e.getKey -> e.getValue).toMap
    if (last == null || (last.sc ne sc) || sc.isStopped || last.entries != entries)
      last = Last(sc, entries, sc.broadcast(ScanVectors.hadoopConf(spark)))
    last.conf
  }
}
