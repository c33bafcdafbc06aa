package drillspark.source

import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/** Takes Spark's projection (nested too) and simple filters for a `drill` scan. */
final class DrillScanBuilder(table: DrillJsonTable)
  extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownFilters {

  private var required: StructType = table.schema()
  private var pushed: Array[Filter] = Array.empty

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  /** Filters the scan can check while parsing; Spark still checks all of them afterwards. */
  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    if (table.options.pushFilters) {
      val data = table.schema()
      val dataCols = data.fields.indices.filterNot(i => table.partitionColumns.contains(data.fields(i).name)).toSet
      pushed = filters.filter(f => RowFilter.compile(f, data, dataCols).isDefined)
    }
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  override def build(): Scan = new DrillScan(table, required, pushed)
}
