package drillspark.source

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{MetadataColumn, SupportsMetadataColumns, SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.source.input.{ImplicitColumns, InputFile}

/**
 * A JSON table read schema-on-read: the files, the data schema (provided and/or discovered)
 * and the partition columns dir0, dir1, ... after the data columns. `catalog` names the
 * catalog a table was loaded from (None: `spark.read.format("drill")`).
 */
final class DrillJsonTable(
    val tableName: String, val options: DrillOptions, val files: Seq[InputFile],
    val dataSchema: StructType, val partitionColumns: Seq[String], val catalog: Option[String] = None)
  extends Table with SupportsRead with SupportsMetadataColumns with drillspark.DrillTable {

  private val fullSchema = StructType(
    dataSchema.fields ++ partitionColumns.map(StructField(_, StringType, nullable = true)))

  /** This table as loaded by catalog `catalogName`. */
  def inCatalog(catalogName: String): DrillJsonTable =
    new DrillJsonTable(tableName, options, files, dataSchema, partitionColumns, Some(catalogName))

  override def name(): String = tableName
  override def schema(): StructType = fullSchema
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)
  override def metadataColumns(): Array[MetadataColumn] = ImplicitColumns.metadataColumns

  /**
   * Read options reach a catalog table only when it is scanned, after its schema was settled
   * from the catalog's options; since options like allTextMode change the schema, they are
   * refused rather than ignored (the analyzer's check refuses them already, see
   * DrillCatalogReadCheck). Through `spark.read.format("drill")` they are the load options,
   * already applied.
   */
  def checkReadOptions(o: CaseInsensitiveStringMap): Unit = catalog.foreach { cat =>
    if (!o.isEmpty) throw new IllegalArgumentException(
      s"drill: read options (${o.asCaseSensitiveMap().keySet().asScala.toSeq.sorted.mkString(", ")}) " +
        s"cannot be given to table $tableName of catalog $cat: its options are fixed when the catalog " +
        s"loads it, since they can change its schema. Set them for the catalog with " +
        s"spark.sql.catalog.$cat.option.<name>=<value>, or read the path with " +
        "spark.read.format(\"drill\").option(...).load(path)")
  }

  override def newScanBuilder(o: CaseInsensitiveStringMap): ScanBuilder = {
    checkReadOptions(o)
    new DrillScanBuilder(this)
  }
}
