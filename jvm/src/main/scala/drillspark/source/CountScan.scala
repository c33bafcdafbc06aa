package drillspark.source

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan}
import org.apache.spark.sql.types.{LongType, StructField, StructType}
import org.apache.spark.util.CollectionAccumulator

import drillspark.source.discovery.SchemaDiscovery
import drillspark.source.input.{FileSplit, HeldPages, InputFile, InputFiles}
import drillspark.source.read.{CountPartition, CountReaderFactory, ReaderConf, SplitCount}

/**
 * COUNT(*) pushed into the scan (no GROUP BY, no filter): each input partition yields one row,
 * its record count, and Spark sums them. Files whose record count is remembered (same path,
 * length, modification time and change stamp) are not read again; the others are counted by the
 * structural scan of [[read.RecordCounter]], in splits packed like [[DrillScan]]'s, which tell
 * their counts to the driver (an accumulator) so that the next count(*) need not read them.
 * Under exactSample the files are discovered in full instead, which counts them.
 */
final class CountScan(table: DrillJsonTable) extends Scan with Batch {
  import CountScan._

  /** (records known from the discovery cache, files that must be read) at planning time. */
  private lazy val plan: (Long, Seq[InputFile]) = {
    val spark = SparkSession.active
    val conf = spark.sparkContext.hadoopConfiguration
    var known = 0L
    val toRead = ArrayBuffer[InputFile]()
    settle()
    // exactSample: the count must fail where a full discovery fails, so it reads as one does;
    // the full discovery itself is that read (on the driver, as a load discovers) and leaves
    // the counts and the files' whole schemas in the cache
    val full = table.options.withoutSample
    if (table.options.exactSample && SchemaDiscovery.complete(full)) {
      val uncounted = table.files.filter(f => SchemaDiscovery.cachedRecords(f, full).isEmpty)
      if (uncounted.nonEmpty) SchemaDiscovery.discover(spark, uncounted, full)
    }
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
    expect(tally, table.options, parts.flatMap(_.splits))
    // the known records ride with the first partition; there is always one row to sum
    val all = if (parts.isEmpty) Seq(CountPartition(known, Array.empty)) else parts.head.copy(known = known) +: parts.tail
    all.toArray[InputPartition]
  }

  /** The splits' counts, as the tasks that count them finish. */
  private lazy val tally: CollectionAccumulator[SplitCount] =
    SparkSession.active.sparkContext.collectionAccumulator[SplitCount]("drill: records counted")

  override def createReaderFactory(): PartitionReaderFactory =
    new CountReaderFactory(table.options, ReaderConf(SparkSession.active), tally)
}

object CountScan {
  val Schema: StructType = StructType(Seq(StructField("count(*)", LongType, nullable = false)))

  /** Tallies of planned count(*) scans, with the splits each file was counted in; a job that
   * never finished leaves its tally incomplete, so only the latest few are kept. */
  private final case class Pending(tally: CollectionAccumulator[SplitCount], o: DrillOptions, splits: Map[InputFile, Int])
  private val pending = new java.util.concurrent.ConcurrentLinkedDeque[Pending]()
  private val MaxPending = 16

  private def expect(tally: CollectionAccumulator[SplitCount], o: DrillOptions, splits: Seq[FileSplit]): Unit =
    if (splits.nonEmpty) {
      pending.addLast(Pending(tally, o, splits.groupBy(_.file).map { case (f, ss) => f -> ss.size }))
      while (pending.size > MaxPending) pending.pollFirst()
    }

  /** Remember the record counts of the files whose splits have all been counted (a retried
   * task may report a split twice: one count per split start). */
  private def settle(): Unit = pending.forEach { entry =>
    val bySplit = entry.tally.value.asScala.groupBy(_.file).map { case (f, cs) =>
      f -> cs.groupBy(_.start).values.map(_.head.records)
    }
    var done = true
    entry.splits.foreach { case (f, n) =>
      bySplit.get(f) match {
        case Some(counts) if counts.size == n => SchemaDiscovery.rememberRecords(f, entry.o, counts.sum)
        case _ => done = false
      }
    }
    if (done) pending.remove(entry)
  }

  /** The file still has the length, modification time and stamp (change time and inode, see
   * [[InputFiles.stampOf]]) it was listed (and discovered) with. */
  def unchanged(conf: Configuration, f: InputFile): Boolean =
    HeldPages.isPage(f.path) || (try { // a page of records carries its bytes: it cannot change
      val p = new Path(f.path)
      val fs = p.getFileSystem(conf)
      val st = fs.getFileStatus(p)
      st.getLen == f.length && st.getModificationTime == f.mtime && InputFiles.stampOf(fs, p) == f.stamp
    } catch { case _: java.io.IOException => false })
}
