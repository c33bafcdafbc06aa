package drillspark.server

import java.io.{BufferedOutputStream, DataOutputStream}
import java.net.Socket

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.drillspark.compat.LocalPartitionRun

/**
 * The task's side of the server's partition stream for an answer's Arrow batches (#37; Python:
 * server/partition_stream.py): one job per partition whose task connects to the server, says
 * who it is (the stream's secret, its partition's number), sends each batch as one length-
 * prefixed piece as it is made, then an empty piece. The server reads a piece at a time, so the
 * driver never holds a whole partition, and a task waits while the server has not read (TCP
 * back-pressure).
 *
 * The same protocol was sent from a Python function, which made every partition's task start
 * a Spark Python worker to forward the JVM's bytes: an unbounded chart (a BI tool's GROUP BY
 * without a LIMIT) through Flight SQL or the native protocol took 132-151 ms where its LIMIT
 * form, collected whole, took 47-65 (docs/performance.md). Here the task is the JVM's, and its
 * function an object of a named class (Spark's closure cleaner skips it). A small input's one
 * partition runs that task in the thread that asks, without a job (LocalPartitionRun).
 */
object PartitionStream {

  /** Whether `rdd`, the Arrow batches of `df`, is a small input's one partition whose task runs
   * in the thread that asks, without a Spark job (compat's LocalPartitionRun: a BI tool's
   * GROUP BY without a LIMIT over a small file). */
  def runsHere(df: DataFrame, rdd: RDD[Array[Byte]]): Boolean = LocalPartitionRun.runsHere(df, rdd)

  /** Runs the job of `rdd`'s partition `partition` (`rdd`: `df`'s Arrow batches), whose task
   * sends it to `host`:`port` (or that task in this thread, `here`: see runsHere); returns when
   * it ends, or throws its failure. */
  def run(df: DataFrame, rdd: RDD[Array[Byte]], partition: Int, host: String, port: Int, secret: Array[Byte],
          here: Boolean): Unit =
    if (here) LocalPartitionRun.run(df, rdd)(new PieceSender(host, port, secret))
    else rdd.sparkContext.runJob(rdd, new PieceSender(host, port, secret), Seq(partition), (_: Int, _: Unit) => ())
}

/** A task's partition sent to the server, each element one piece (PartitionStream). */
private final class PieceSender(host: String, port: Int, secret: Array[Byte])
  extends ((TaskContext, Iterator[Array[Byte]]) => Unit) with Serializable {

  override def apply(task: TaskContext, pieces: Iterator[Array[Byte]]): Unit = {
    val socket = new Socket(host, port)
    try {
      val out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream, 1 << 16))
      out.write(secret)
      out.writeInt(task.partitionId()) // big-endian, as the server's header (">I")
      pieces.filter(_.nonEmpty).foreach { piece =>
        out.writeInt(piece.length)
        out.write(piece)
        out.flush() // each piece leaves as it is made (the first batch before the partition ends)
      }
      out.writeInt(0)
      out.flush()
    } finally socket.close()
  }
}
