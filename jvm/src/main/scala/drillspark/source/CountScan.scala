package drillspark.source

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan}
import org.apache.spark.sql.types.{LongType, StructField, StructType}

import drillspark.source.discovery.SchemaDiscovery
import drillspark.source.input.{InputFile, InputFiles}
import drillspark.source.read.{CountPartition, CountReaderFactory, ReaderConf}

/**
 * COUNT(*) pushed into the scan (no GROUP BY, no filter): each input partition yields one row,
 * its record count, and Spark sums them. Files whose record count discovery remembered (same
 * path, length, modification time and change stamp) are not read again; the others are counted by the
 * structural scan of [[read.RecordCounter]], in splits packed like [[DrillScan]]'s.
 */
final class CountScan(table: DrillJsonTable) extends Scan with Batch {
  import CountScan._

  /** (records known from the discovery cache, files that must be read) at planning time. */
  private lazy val plan: (Long, Seq[InputFile]) = {
    val conf = SparkSession.active.sparkContext.hadoopConfiguration
    var known = 0L
    val toRead = ArrayBuffer[InputFile]()
    table.files.foreach { f =>
      SchemaDiscovery.cachedRecords(f, table.options).filter(_ => unchanged(conf, f)) match {
        case Some(n) => known += n
        case None => toRead += f
      }
    }
    (known, toRead.toSeq)
  }

  override def readSchema(): StructType = Schema

  override def description(): String =
    s"drill [${table.name()}] PushedAggregation: [COUNT(*)], files counted by reading: " +
      s"${plan._2.size} of ${table.files.size} (the others from the discovery cache)"

  override def toBatch: Batch = this

  override def planInputPartitions(): Array[InputPartition] = {
    val (known, toRead) = plan
    val parts = InputFiles.partitions(SparkSession.active, toRead, table.options).map(CountPartition(0L, _))
    // the known records ride with the first partition; there is always one row to sum
    val all = if (parts.isEmpty) Seq(CountPartition(known, Array.empty)) else parts.head.copy(known = known) +: parts.tail
    all.toArray[InputPartition]
  }

  override def createReaderFactory(): PartitionReaderFactory =
    new CountReaderFactory(table.options, ReaderConf(SparkSession.active))
}

object CountScan {
  val Schema: StructType = StructType(Seq(StructField("count(*)", LongType, nullable = false)))

  /** The file still has the length, modification time and stamp (change time and inode, see
   * [[InputFiles.stampOf]]) it was listed (and discovered) with. */
  def unchanged(conf: Configuration, f: InputFile): Boolean =
    try {
      val p = new Path(f.path)
      val fs = p.getFileSystem(conf)
      val st = fs.getFileStatus(p)
      st.getLen == f.length && st.getModificationTime == f.mtime && InputFiles.stampOf(fs, p) == f.stamp
    } catch { case _: java.io.IOException => false }
}
