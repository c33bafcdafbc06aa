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
 * round trips of a chart were most of its wait (docs/performance.md). For an answer the caller
 * bounds (the server's small answers) the rows fit in one reply.
 */
object PickledCollect {

  /** `df`'s rows as the stream `collectToPython` serves: length-prefixed pickled batches. */
  def rows(df: DataFrame): Array[Byte] = {
    val ds = df.asInstanceOf[Dataset[_]]
    val session = ds.sparkSession
    val binaryAsBytes = session.sessionState.conf.pysparkBinaryAsBytes
    val schema = ds.schema
    val qe = ds.queryExecution
    EvaluatePython.registerPicklers()
    SQLExecution.withNewExecutionId(qe, Some("collectToPython")) {
      qe.withQueryExecutionId(session) {
        QueryExecution.withInternalError("""The "collectToPython" action failed.""") {
          val plan = qe.executedPlan
          plan.resetMetrics()
          val rows = plan.executeCollect().iterator.map(EvaluatePython.toJava(_, schema, binaryAsBytes))
          val bytes = new ByteArrayOutputStream()
          val out = new DataOutputStream(bytes)
          PythonRDD.writeIteratorToStream(new SerDeUtil.AutoBatchedPickler(rows), out)
          out.flush()
          bytes.toByteArray
        }
      }
    }
  }
}
