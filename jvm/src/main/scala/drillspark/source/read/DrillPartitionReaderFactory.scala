package drillspark.source.read

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.drillspark.compat.ScanVectors.HadoopConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

import drillspark.source.{DrillOptions, RowFilter}
import drillspark.source.input.FileSplit

/** One input partition: line-aligned splits of files, read one after the other. */
final case class DrillInputPartition(splits: Array[FileSplit]) extends InputPartition

/** Builds a columnar reader per input partition, on the executors. */
final class DrillPartitionReaderFactory(
    readSchema: StructType, options: DrillOptions, conf: Broadcast[HadoopConf], filter: Option[RowFilter])
  extends PartitionReaderFactory {

  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("drill: the drill scan reads columnar batches only")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val p = partition.asInstanceOf[DrillInputPartition]
    new DrillPartitionReader(p.splits.toSeq, readSchema, options, conf.value.value, filter)
  }
}
