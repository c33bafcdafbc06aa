package drillspark.source

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan, Statistics,
  SupportsReportStatistics}
import org.apache.spark.sql.sources.{And, Filter}
import org.apache.spark.sql.types.{MetadataBuilder, StructField, StructType}

import drillspark.source.input.{ImplicitColumns, InputFiles, ScanSize}
import drillspark.source.read.{DrillInputPartition, DrillPartitionReader, DrillPartitionReaderFactory, ReadPlan, ReaderConf}

/** A planned `drill` scan: the pruned read schema, pushed filters, and the file splits; its
 * size for Spark's planner is the files' (ScanSize: a join with a small file broadcasts it). */
final class DrillScan(table: DrillJsonTable, required: StructType, filters: Array[Filter])
  extends Scan with Batch with SupportsReportStatistics {

  /** The read schema, with partition and implicit file columns marked for the readers. */
  private val marked: StructType = {
    val dataNames = table.dataSchema.fieldNames.toSet // once: per field it was quadratic
    StructType(required.fields.map { f =>
      if (table.partitionColumns.contains(f.name)) mark(f, ReadPlan.PartitionKey)
      else if (!dataNames(f.name) && ImplicitColumns.FileColumns.contains(f.name)) mark(f, ReadPlan.FileColumnKey)
      else f
    })
  }

  private def mark(f: StructField, key: String): StructField =
    f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putBoolean(key, true).build())

  override def readSchema(): StructType = required

  override def description(): String = {
    val pf = if (filters.isEmpty) "" else filters.mkString(", PushedFilters: [", ", ", "]")
    s"drill [${table.name()}] ReadSchema: ${required.simpleString}$pf"
  }

  override def toBatch: Batch = this

  override def estimateStatistics(): Statistics = ScanSize.statistics(table.files)

  override def supportedCustomMetrics(): Array[CustomMetric] = DrillMetrics.supported

  override def planInputPartitions(): Array[InputPartition] = {
    InputFiles.partitions(SparkSession.active, table.files, table.options).map(DrillInputPartition(_): InputPartition).toArray
  }

  override def createReaderFactory(): PartitionReaderFactory = {
    val dataCols = marked.fields.indices.filterNot(i =>
      marked.fields(i).metadata.contains(ReadPlan.PartitionKey) ||
        marked.fields(i).metadata.contains(ReadPlan.FileColumnKey)).toSet
    val checkable = filters.filter(RowFilter.compile(_, marked, dataCols).isDefined)
    val filter = checkable.reduceOption[Filter](And(_, _)).flatMap(RowFilter.compile(_, marked, dataCols))
    val spark = SparkSession.active
    val o = table.options.copy(readScanner = ScannerMode(spark, DrillPartitionReader.ScannerConf))
    new DrillPartitionReaderFactory(marked, o, ReaderConf(spark), filter)
  }
}
