package drillspark.source

import java.util.concurrent.{Callable, Executors}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

/**
 * Discovery alone, the byte scanner against the Jackson token pass, in one JVM with alternating
 * rounds (JIT warm for both): each round discovers every file (whole, one task per file) on
 * `threads` threads with one scanner, then the other. Run as
 * `java -cp CLASSPATH drillspark.source.DiscoveryBench threads rounds file...`;
 * prints `DISCOVERY <fast|jackson> <wall seconds> <thread CPU seconds> <records>` per round and
 * scanner (a busy machine shows in the wall time only).
 */
object DiscoveryBench {
  def main(args: Array[String]): Unit = {
    val threads = args(0).toInt
    val rounds = args(1).toInt
    val conf = new Configuration()
    val files = args.drop(2).toSeq.map { p =>
      val f = new java.io.File(p)
      InputFile("file:" + f.getAbsolutePath, f.length, f.lastModified, Nil)
    }
    val o = DrillOptions(files.map(_.path))
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    val pool = Executors.newFixedThreadPool(threads)
    try {
      (1 to rounds).foreach { _ =>
        Seq("fast" -> ByteScanner.BytesOnly, "jackson" -> ByteScanner.Jackson)
          .filter(m => sys.env.get("DISCOVERY_ONLY").forall(_ == m._1)).foreach { case (name, mode) =>
          val t0 = System.nanoTime()
          val tasks = files.map(f => new Callable[(Long, Long)] {
            def call(): (Long, Long) = {
              val c0 = cpu.getCurrentThreadCpuTime
              val n = SchemaDiscovery.discoverSplit(conf, FileSplit(f, 0L, -1L), o, mode).records
              (n, cpu.getCurrentThreadCpuTime - c0)
            }
          })
          val done = pool.invokeAll(tasks.asJava).asScala.map(_.get())
          println(f"DISCOVERY $name ${(System.nanoTime() - t0) / 1e9}%.3f ${done.map(_._2).sum / 1e9}%.3f ${done.map(_._1).sum}")
        }
      }
    } finally pool.shutdown()
  }
}
