package org.apache.spark.sql.drillspark.compat

import java.io.{ByteArrayOutputStream, DataOutputStream}

import org.apache.spark.api.python.{PythonRDD, SerDeUtil}
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.classic.Dataset
import org.apache.spark.sql.execution.{QueryExecution, SQLExecution}
import org.apache.spark.sql.execution.python.EvaluatePython

/**
 * A small answer's rows for Python in the reply of the call that asks (#37): the bytes pyspark's
 * `DataFrame.collect` reads from `Dataset.collectToPython` (the same SQL execution, the same
 * rows pickled in the same batches), returned instead of served.
 *
 * `collectToPython` serves its rows from a socket server of its own: a JVM thread and a server
 * socket per answer, a local connection and its secret's handshake, and four more py4j round
 * trips to read the port and the secret from the array it returns; pyspark adds two to set the
 * call site. Under sixteen BI clients each round trip waits for the server's GIL again, and the
 * round trips of a chart were most of its wait (docs/performance.md). An answer of up to
 * `maxBytes` pickled comes in the reply; a longer one (a row limit bounds the rows, not their
 * width) is served from the rows already collected as `collectToPython` serves them, so it is
 * never held as one array and one py4j string.
 */
object PickledCollect {

  /** `df`'s rows as the stream `collectToPython` serves (length-prefixed pickled batches):
   * the bytes when they are at most `maxBytes`, else what `collectToPython` returns (the port,
   * the secret and the server of the stream). */
  def rows(df: DataFrame, maxBytes: Int): Any = {
    val ds = df.asInstanceOf[Dataset[_]]
    val session = ds.sparkSession
    val binaryAsBytes = session.sessionState.conf.pysparkBinaryAsBytes
    val schema = ds.schema
    val qe = ds.queryExecution
    EvaluatePython.registerPicklers()
    val collected = SQLExecution.withNewExecutionId(qe, Some("collectToPython")) {
      qe.withQueryExecutionId(session) {
        QueryExecution.withInternalError("""The "collectToPython" action failed.""") {
          val plan = qe.executedPlan
          plan.resetMetrics()
          plan.executeCollect()
        }
      }
    }
    def write(to: java.io.OutputStream): Unit = {
      val out = new DataOutputStream(to)
      val rows = collected.iterator.map(EvaluatePython.toJava(_, schema, binaryAsBytes))
      PythonRDD.writeIteratorToStream(new SerDeUtil.AutoBatchedPickler(rows), out)
      out.flush()
    }
    val bytes = new CappedBytes(maxBytes)
    try { write(bytes); bytes.toByteArray }
    catch { case CappedBytes.Full => PythonRDD.serveToStream("serve-DataFrame")(write) }
  }
}

/** Bytes written up to a cap; one more throws [[CappedBytes.Full]]. */
private final class CappedBytes(cap: Int) extends ByteArrayOutputStream {
  private def room(n: Int): Unit = if (n > cap - count) throw CappedBytes.Full
  override def write(b: Int): Unit = { room(1); super.write(b) }
  override def write(b: Array[Byte], off: Int, len: Int): Unit = { room(len); super.write(b, off, len) }
}

private object CappedBytes {
  object Full extends scala.util.control.ControlThrowable
}
