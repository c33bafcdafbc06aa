package org.apache.spark.sql.drillspark.compat

import java.io.DataOutputStream

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.TaskContext
import org.apache.spark.api.python.PythonRDD
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.classic.Dataset
import org.apache.spark.sql.execution.{QueryExecution, SQLExecution}
import org.apache.spark.sql.execution.arrow.ArrowBatchStreamWriter
import org.apache.spark.util.Utils

/**
 * A DataFrame's answer as Arrow batches for Python (#37): the stream pyspark's
 * `DataFrame._collect_as_arrow` reads from `Dataset.collectAsArrowToPython`, byte for byte
 * (the batches as their tasks end, then their order), collected through a function object of a
 * named class.
 *
 * Spark's own collect hands `SparkContext.runJob` a lambda declared in Dataset, and Spark's
 * closure cleaner then reads Dataset's large class and walks every method in it with ASM, on each
 * answer: 11 % of a chart's JVM samples through `to_arrow()` (JFR, docs/performance.md). The
 * cleaner cleans lambdas only; the form of `runJob` used here adds no lambda of its own. The rest
 * is Spark's: the same SQL execution (`collectAsArrowToPython`, so listeners, the UI and
 * cancelling by job group see what they see for Spark's collect), the plan's Arrow batches as
 * `Dataset.toArrowBatchRdd` makes them, the same writer and settings. A small input's one
 * partition runs its task here, without a job (LocalPartitionRun).
 */
object ArrowCollect {

  /** Serves `df`'s answer as the stream of `Dataset.collectAsArrowToPython`; returns what it
   * returns (the port, the secret, the server whose `getResult` raises the job's error). */
  def toPython(df: DataFrame): Array[Any] = {
    val ds = df.asInstanceOf[Dataset[_]]
    val session = ds.sparkSession
    val conf = session.sessionState.conf
    val zone = conf.sessionLocalTimeZone
    val duplicatesFail = conf.pandasStructHandlingMode == "legacy"
    val large = conf.arrowUseLargeVarTypes
    val qe = ds.queryExecution
    PythonRDD.serveToStream("serve-Arrow") { stream =>
      SQLExecution.withNewExecutionId(qe, Some("collectAsArrowToPython")) {
        qe.withQueryExecutionId(session) {
          QueryExecution.withInternalError("""The "collectAsArrowToPython" action failed.""") {
            val plan = qe.executedPlan
            plan.resetMetrics()
            val out = new DataOutputStream(stream)
            val writer = new ArrowBatchStreamWriter(ds.schema, out, zone, duplicatesFail, large)
            val order = ArrayBuffer.empty[(Int, Int)] // (partition, its batch) of each batch sent
            def send(partition: Int, sent: Array[Array[Byte]]): Unit = {
              writer.writeBatches(sent.iterator)
              sent.indices.foreach(i => order += ((partition, i)))
            }
            Utils.tryWithSafeFinally {
              val sc = session.sparkContext
              val batches = ds.toArrowBatchRdd(plan)
              // a small input's one partition: its task run here, without a job (LocalPartitionRun)
              LocalPartitionRun.rows(plan, batches) match {
                case Some(sent) => send(0, sent)
                case None => sc.runJob(batches, new BatchesOfPartition, 0 until batches.partitions.length, send _)
              }
            } {
              writer.end()
              // each batch's place in the answer, in the order the batches were sent
              out.writeInt(order.length)
              order.zipWithIndex.sortBy(_._1).foreach { case (_, sentAt) => out.writeInt(sentAt) }
            }
          }
        }
      }
    }
  }
}

/** A task's Arrow batches as an array: a named class, so Spark's closure cleaner leaves it alone. */
private final class BatchesOfPartition
  extends ((TaskContext, Iterator[Array[Byte]]) => Array[Array[Byte]]) with Serializable {
  override def apply(task: TaskContext, batches: Iterator[Array[Byte]]): Array[Array[Byte]] = batches.toArray
}
