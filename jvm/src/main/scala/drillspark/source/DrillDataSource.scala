package drillspark.source

import java.util


import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * The `drill` data source: `spark.read.format("drill").load(paths)` reads nested JSON with no
 * declared schema. The schema is discovered (or provided) when the DataFrame is created,
 * before the query runs; see docs/scan.md.
 */
final class DrillDataSource extends TableProvider with DataSourceRegister {
  override def shortName(): String = "drill"

  override def supportsExternalMetadata(): Boolean = true

  override def inferSchema(options: CaseInsensitiveStringMap): StructType =
    DrillDataSource.resolve(options, None).schema()

  override def getTable(schema: StructType, partitioning: Array[Transform],
      properties: util.Map[String, String]): Table =
    DrillDataSource.resolve(new CaseInsensitiveStringMap(properties), Some(schema))
}

object DrillDataSource {
  /** List the files and settle the schema: the given one, else provided + discovered. */
  def resolve(options: CaseInsensitiveStringMap, userSchema: Option[StructType]): DrillJsonTable = {
    val o = DrillOptions(options)
    if (o.format != "json") throw new IllegalArgumentException(
      s"drill: format '${o.format}' is not supported yet by the drill source (json only)")
    val spark = SparkSession.active
    val conf = spark.sparkContext.hadoopConfiguration
    val (files, root) = InputFiles.list(conf, o.paths)
    val depth = if (files.isEmpty) 0 else files.map(_.dirs.size).max
    val dirs = (0 until depth).map(ImplicitColumns.dirName)
    val data = userSchema match {
      case Some(s) => StructType(s.fields.filterNot(f => dirs.contains(f.name)))
      case None =>
        val root0 = SchemaDiscovery.discover(spark, files, o)
        SchemaDiscovery.checkConflicts(root0, o)
        val discovered = Node.structOf(root0, o)
        ProvidedSchema.find(conf, o, root).fold(discovered)(ProvidedSchema.overlay(_, discovered))
    }
    val clash = data.fieldNames.filter(dirs.contains)
    val parts = dirs.filterNot(clash.contains)
    new DrillJsonTable(s"drill:${o.paths.mkString(",")}", o, files, data, parts)
  }

}
