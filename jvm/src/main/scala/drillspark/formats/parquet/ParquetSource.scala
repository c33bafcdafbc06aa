package drillspark.formats.parquet

import java.util

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.drillspark.compat.ParquetCatalogTable
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.formats.{FormatErrors, FormatOptions}

/**
 * `spark.read.format("drill-parquet").load(files)`: the `dfs` catalog's Parquet table
 * ([[ParquetFooters.table]]) for drillspark.sql's door (python/drillspark/formats/parquet.py),
 * so both doors read Parquet by one set of footer rules. The caller lists the files; the one
 * option is Drill's `autoCorrectCorruptDates` (default true).
 */
final class ParquetSource extends TableProvider with DataSourceRegister {
  override def shortName(): String = "drill-parquet"

  /** The table [[inferSchema]] built, reused by [[getTable]] of the same load (footers read once). */
  private var resolved: (Map[String, String], ParquetCatalogTable) = _

  private def table(options: CaseInsensitiveStringMap): ParquetCatalogTable = {
    val o = FormatOptions("parquet", options)
    if (o.paths.isEmpty) throw FormatErrors.badConfig("parquet",
      "no path given; use spark.read.format(\"drill-parquet\").load(path)")
    val correct = !"false".equalsIgnoreCase(options.getOrDefault("autoCorrectCorruptDates", "true"))
    val conf = SparkSession.active.sessionState.newHadoopConf()
    ParquetFooters.table(s"drill-parquet:${o.paths.mkString(",")}", o.paths, conf, correct)
  }

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = {
    import scala.jdk.CollectionConverters._
    val t = table(options)
    resolved = (options.asCaseSensitiveMap().asScala.toMap, t)
    t.schema()
  }

  override def getTable(schema: StructType, partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = {
    import scala.jdk.CollectionConverters._
    val last = resolved
    resolved = null
    if (last != null && last._1 == properties.asScala.toMap) last._2
    else table(new CaseInsensitiveStringMap(properties))
  }
}
