package drillspark.source

import java.util

import org.apache.spark.sql.connector.catalog.{MetadataColumn, SupportsMetadataColumns, SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A JSON table read schema-on-read: the files, the data schema (provided and/or discovered)
 * and the partition columns dir0, dir1, ... after the data columns.
 */
final class DrillJsonTable(
    val tableName: String, val options: DrillOptions, val files: Seq[InputFile],
    val dataSchema: StructType, val partitionColumns: Seq[String])
  extends Table with SupportsRead with SupportsMetadataColumns with drillspark.DrillTable {

  private val fullSchema = StructType(
    dataSchema.fields ++ partitionColumns.map(StructField(_, StringType, nullable = true)))

  override def name(): String = tableName
  override def schema(): StructType = fullSchema
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)
  override def metadataColumns(): Array[MetadataColumn] = ImplicitColumns.metadataColumns
  override def newScanBuilder(o: CaseInsensitiveStringMap): ScanBuilder = new DrillScanBuilder(this)
}
