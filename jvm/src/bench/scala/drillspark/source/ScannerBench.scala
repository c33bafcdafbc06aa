package drillspark.source

import java.lang.management.ManagementFactory
import java.util.concurrent.{Callable, Executors}

import scala.jdk.CollectionConverters._

import drillspark.source.input.InputFile

/** What [[DiscoveryBench]] and [[ReadBench]] share: the files from the command line, and
 * rounds that alternate the byte scanner with the Jackson path, each reading every file (one
 * task per file) on `threads` threads, reporting wall and thread CPU seconds. */
private[source] object ScannerBench {
  def files(paths: Seq[String]): Seq[InputFile] = paths.map { p =>
    val f = new java.io.File(p)
    InputFile("file:" + f.getAbsolutePath, f.length, f.lastModified, Nil)
  }

  /** Prints `<label> <fast|jackson> <wall> <cpu> <n>` per round and side, `n` the sum of what
   * `task(mode, file)` returns; environment variable `only` = fast or jackson runs one side. */
  def alternate(label: String, only: String, threads: Int, rounds: Int, files: Seq[InputFile],
      fast: Int)(task: (Int, InputFile) => Long): Unit = {
    val cpu = ManagementFactory.getThreadMXBean
    val pool = Executors.newFixedThreadPool(threads)
    try {
      (1 to rounds).foreach { _ =>
        Seq("fast" -> fast, "jackson" -> ScannerMode.Jackson)
          .filter(m => sys.env.get(only).forall(_ == m._1)).foreach { case (name, mode) =>
            val t0 = System.nanoTime()
            val tasks = files.map(f => new Callable[(Long, Long)] {
              def call(): (Long, Long) = {
                val c0 = cpu.getCurrentThreadCpuTime
                val n = task(mode, f)
                (n, cpu.getCurrentThreadCpuTime - c0)
              }
            })
            val done = pool.invokeAll(tasks.asJava).asScala.map(_.get())
            println(f"$label $name ${(System.nanoTime() - t0) / 1e9}%.3f ${done.map(_._2).sum / 1e9}%.3f ${done.map(_._1).sum}")
          }
      }
    } finally pool.shutdown()
  }
}
