package drillspark.source.read

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.drillspark.compat.ScanVectors.HadoopConf

import drillspark.source.DrillOptions
import drillspark.source.input.FileSplit

/** Part of a pushed COUNT(*): records already known (from discovery) plus splits to count. */
final case class CountPartition(known: Long, splits: Array[FileSplit]) extends InputPartition

/** One row per partition: its known records plus the records of its splits. */
final class CountReaderFactory(o: DrillOptions, conf: Broadcast[HadoopConf]) extends PartitionReaderFactory {
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
      if (s.file.length > 0) {
        val c = new RecordCounter(conf.value.value, s.file.path, s.start, s.end, o)
        try {
          var k = c.count(Int.MaxValue)
          while (k > 0) { n += k; k = c.count(Int.MaxValue) }
        } finally c.close()
      }
    }
    n
  }
}
