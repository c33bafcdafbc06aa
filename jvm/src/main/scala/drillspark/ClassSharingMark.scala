package drillspark

import java.io.IOException
import java.nio.file.{Files, Paths}
import java.util.concurrent.atomic.AtomicBoolean

import org.apache.spark.scheduler.{SparkListener, SparkListenerJobEnd}

/** Registered by drillspark/class_sharing.py (`spark.extraListeners`) only in a driver JVM that
  * writes a class-sharing archive at exit: at its first finished Spark job it creates the file
  * named by the system property `drillspark.cds.ran`. The watcher keeps the archive only when
  * that file exists, so the archive holds what a query loads (readers, codegen, tasks); a JVM
  * that ran no job (a session opened and closed, a `--version`) would leave a small one that
  * makes every later start slower, and its archive is dropped for a later start to write.
  */
class ClassSharingMark extends SparkListener {
  private val marked = new AtomicBoolean(false)

  override def onJobEnd(jobEnd: SparkListenerJobEnd): Unit =
    if (marked.compareAndSet(false, true)) {
      sys.props.get(ClassSharingMark.Property).foreach { path =>
        try Files.write(Paths.get(path), Array.emptyByteArray)
        catch { case _: IOException => () } // no mark: the archive is written again later
      }
    }
}

object ClassSharingMark {
  val Property = "drillspark.cds.ran"
}
