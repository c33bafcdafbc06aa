package drillspark.source

import java.io.{BufferedInputStream, FileInputStream}
import java.util.concurrent.{Callable, Executors}

import scala.jdk.CollectionConverters._

import drillspark.source.input.JsonInput

/**
 * The benchmark's reference: a bare Jackson token scan of the same bytes (the parser factory
 * the source uses, every token read, nothing kept), on `threads` threads, one file per task.
 * Run as `java -cp CLASSPATH drillspark.source.TokenScan threads rounds file...` (CLASSPATH:
 * pyspark's jars and the drillspark jar);
 * prints one line per round: `TOKENSCAN <seconds> <tokens> <bytes>`.
 */
object TokenScan {
  def main(args: Array[String]): Unit = {
    val threads = args(0).toInt
    val rounds = args(1).toInt
    val files = args.drop(2).toSeq
    val f = JsonInput.factory(DrillOptions(files))
    val pool = Executors.newFixedThreadPool(threads)
    try {
      (1 to rounds).foreach { _ =>
        val t0 = System.nanoTime()
        val tasks = files.map { path =>
          new Callable[Long] {
            def call(): Long = {
              // the factory leaves the input open (AUTO_CLOSE_SOURCE is off): close it here
              val in = new FileInputStream(path)
              try {
                val p = f.createParser(new BufferedInputStream(in, 1 << 16))
                try { var n = 0L; while (p.nextToken() != null) n += 1; n } finally p.close()
              } finally in.close()
            }
          }
        }
        val tokens = pool.invokeAll(tasks.asJava).asScala.map(_.get()).sum
        val secs = (System.nanoTime() - t0) / 1e9
        val bytes = files.map(p => new java.io.File(p).length).sum
        println(f"TOKENSCAN $secs%.3f $tokens $bytes")
      }
    } finally pool.shutdown()
  }
}
