package drillspark.source

import org.apache.spark.sql.connector.expressions.aggregate.{Aggregation, CountStar}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownAggregates, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/** Takes Spark's projection (nested too), simple filters, and COUNT(*) for a `drill` scan. */
final class DrillScanBuilder(table: DrillJsonTable)
  extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownFilters
  with SupportsPushDownAggregates {

  private var required: StructType = table.schema()
  private var pushed: Array[Filter] = Array.empty
  private var filtered = false
  private var countStar = false

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  /** Filters the scan can check while parsing; Spark still checks all of them afterwards. */
  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    filtered = filters.nonEmpty
    if (table.options.pushFilters) {
      val data = table.schema()
      val dataCols = data.fields.indices.filterNot(i => table.partitionColumns.contains(data.fields(i).name)).toSet
      pushed = filters.filter(f => RowFilter.compile(f, data, dataCols).isDefined)
    }
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  /**
   * COUNT(*) (COUNT(1) arrives as COUNT(*)) with no GROUP BY and no filter: each partition
   * returns its record count and Spark sums them. Refused where a count without parsing could
   * differ from reading: skipInvalidRecords, invalidUtf8=replace, or countScan=false (which
   * asks for the full parser).
   */
  override def pushAggregation(aggregation: Aggregation): Boolean = {
    val o = table.options
    countStar = !filtered && aggregation.groupByExpressions().isEmpty &&
      aggregation.aggregateExpressions().length == 1 &&
      aggregation.aggregateExpressions()(0).isInstanceOf[CountStar] &&
      o.countScan && !o.skipInvalidRecords && !o.replaceInvalidUtf8
    countStar
  }

  override def supportCompletePushDown(aggregation: Aggregation): Boolean = false

  override def build(): Scan =
    if (countStar) new CountScan(table)
    else {
      val limit = table.options.maxColumns
      if (required.fields.length > limit) throw new IllegalArgumentException(
        s"drill: the query reads ${required.fields.length} columns of ${table.name()}, more than " +
          s"the $limit a scan may read (option maxColumns): Spark's planning time grows with " +
          "the square of the columns read; name the columns you need (count(*) and single " +
          "columns read), or raise maxColumns")
      new DrillScan(table, required, pushed)
    }
}
