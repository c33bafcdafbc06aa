package drillspark.formats.parquet

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.drillspark.compat.ParquetCatalogTable
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.formats.{FormatErrors, FormatOptions}
import drillspark.source.LoadsOnce

/**
 * `spark.read.format("drill-parquet").load(files)`: the `dfs` catalog's Parquet table
 * ([[ParquetFooters.table]]) for drillspark.sql's door (python/drillspark/formats/parquet.py),
 * so both doors read Parquet by one set of footer rules. The caller lists the files; the one
 * option is Drill's `autoCorrectCorruptDates` (default true).
 */
final class ParquetSource extends LoadsOnce[ParquetCatalogTable] with DataSourceRegister {
  override def shortName(): String = "drill-parquet"

  /** The footers' table (read once per load: [[LoadsOnce]]); the schema is always theirs. */
  override protected def resolve(options: CaseInsensitiveStringMap, schema: Option[StructType]): ParquetCatalogTable = {
    val o = FormatOptions("parquet", options)
    if (o.paths.isEmpty) throw FormatErrors.badConfig("parquet",
      "no path given; use spark.read.format(\"drill-parquet\").load(path)")
    val correct = !"false".equalsIgnoreCase(options.getOrDefault("autoCorrectCorruptDates", "true"))
    val conf = SparkSession.active.sessionState.newHadoopConf()
    ParquetFooters.table(s"drill-parquet:${o.paths.mkString(",")}", o.paths, conf, correct)
  }

}
