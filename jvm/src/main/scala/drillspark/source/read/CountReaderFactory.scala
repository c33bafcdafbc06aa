package drillspark.source.read

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.drillspark.compat.ScanVectors.HadoopConf
import org.apache.spark.util.CollectionAccumulator

import drillspark.source.DrillOptions
import drillspark.source.discovery.SchemaDiscovery
import drillspark.source.input.{FileSplit, InputFile}

/** Part of a pushed COUNT(*): records already known (from discovery) plus splits to count. */
final case class CountPartition(known: Long, splits: Array[FileSplit]) extends InputPartition

/** The records of one split of `file` that starts at `start`. */
final case class SplitCount(file: InputFile, start: Long, records: Long)

/** One row per partition: its known records plus the records of its splits, each of which it
 * also adds to `tally` for the driver to remember. */
final class CountReaderFactory(o: DrillOptions, conf: Broadcast[HadoopConf], tally: CollectionAccumulator[SplitCount])
    extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val p = partition.asInstanceOf[CountPartition]
    new PartitionReader[InternalRow] {
      private var row: InternalRow = _
      override def next(): Boolean = row == null && { row = InternalRow(count(p)); true }
      override def get(): InternalRow = row
      override def close(): Unit = ()
    }
  }

  private def count(p: CountPartition): Long = {
    var n = p.known
    p.splits.foreach { s =>
      val records = if (s.file.length == 0) 0L else if (o.exactSample) discovered(s) else structural(s)
      n += records
      tally.add(SplitCount(s.file, s.start, records))
    }
    n
  }

  private def structural(s: FileSplit): Long = {
    val c = new RecordCounter(conf.value.value, s.file.path, s.start, s.end, o)
    var records = 0L
    try {
      var k = c.count(Int.MaxValue)
      while (k > 0) { records += k; k = c.count(Int.MaxValue) }
    } finally c.close()
    records
  }

  /** exactSample, for a file whose count CountScan's full discovery did not leave in the
   * cache (changed since it was listed, or evicted): the records as full discovery counts
   * them, failing where it fails (the structural count passes over what is inside a record),
   * as the read without a sample would. */
  private def discovered(s: FileSplit): Long =
    SchemaDiscovery.discoverSplit(conf.value.value, s, o.withoutSample).records
}
