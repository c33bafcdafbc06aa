package drillspark.source

import java.lang.management.ManagementFactory
import java.util.concurrent.{Callable, Executors}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * The row readers alone, the byte reader against the Jackson path, in one JVM with alternating
 * rounds (JIT warm for both): each round reads every file (whole, one task per file) on
 * `threads` threads into column batches, projecting `columns` (comma-separated dotted paths,
 * or `*`). Reports wall and thread CPU seconds, so a busy machine shows in the wall time only.
 * Run as `java -cp CLASSPATH drillspark.source.ReadBench threads rounds columns file...`;
 * prints `READ <fast|jackson> <wall> <cpu> <rows>` per round and reader.
 */
object ReadBench {
  def main(args: Array[String]): Unit = {
    val threads = args(0).toInt
    val rounds = args(1).toInt
    val columns = args(2)
    val conf = new Configuration()
    val files = args.drop(3).toSeq.map { p =>
      val f = new java.io.File(p)
      InputFile("file:" + f.getAbsolutePath, f.length, f.lastModified, Nil)
    }
    val o = DrillOptions(files.map(_.path))
    val root = Node.root("")
    files.foreach(f => Node.mergeInto(root, SchemaDiscovery.discoverSplit(conf, FileSplit(f, 0L, -1L), o).node))
    val full = Node.structOf(root, o)
    val schema = if (columns == "*") full else prune(full, columns.split(",").toSeq.map(_.split("\\.").toList))
    val cpu = ManagementFactory.getThreadMXBean
    val pool = Executors.newFixedThreadPool(threads)
    try {
      (1 to rounds).foreach { _ =>
        Seq("fast" -> ByteScanner.Fast, "jackson" -> ByteScanner.Jackson)
          .filter(m => sys.env.get("READ_ONLY").forall(_ == m._1)).foreach { case (name, mode) =>
            val t0 = System.nanoTime()
            val tasks = files.map(f => new Callable[(Long, Long)] {
              def call(): (Long, Long) = {
                val c0 = cpu.getCurrentThreadCpuTime
                val r = new DrillPartitionReader(Seq(FileSplit(f, 0L, -1L)), schema, o.copy(readScanner = mode), conf, None)
                var rows = 0L
                try while (r.next()) rows += r.get().numRows() finally r.close()
                (rows, cpu.getCurrentThreadCpuTime - c0)
              }
            })
            val done = pool.invokeAll(tasks.asJava).asScala.map(_.get())
            println(f"READ $name ${(System.nanoTime() - t0) / 1e9}%.3f ${done.map(_._2).sum / 1e9}%.3f ${done.map(_._1).sum}")
          }
      }
    } finally pool.shutdown()
  }

  /** The struct with only the given paths (as Spark's nested column pruning asks for them). */
  private def prune(s: StructType, paths: Seq[List[String]]): StructType = StructType(s.fields.flatMap { f =>
    val mine = paths.filter(_.head.equalsIgnoreCase(f.name))
    if (mine.isEmpty) None
    else if (mine.exists(_.tail.isEmpty)) Some(f)
    else f.dataType match {
      case st: StructType => Some(StructField(f.name, prune(st, mine.map(_.tail)), f.nullable, f.metadata))
      case _ => Some(f)
    }
  })
}
