package org.apache.spark.sql.drillspark.compat

import java.util.Locale

import org.apache.hadoop.fs.Path
import org.apache.spark.rdd.InputFileBlockHolder
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, JoinedRow}
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader, PartitionReaderFactory, Scan, ScanBuilder,
  Statistics, SupportsPushDownAggregates, SupportsPushDownRequiredColumns, SupportsReportStatistics}
import org.apache.spark.sql.internal.connector.SupportsPushDownCatalystFilters
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

/** Drill's implicit columns of a table (lower case): the dirN columns (ordinary ones), the file
 * columns (metadata columns), and each file's values by its path (as a `file:` URI's path
 * decodes; a column a file has no value for is absent: NULL). Built by
 * drillspark.formats.parquet.ParquetFooters from the catalog's listing. */
final case class ImplicitValues(dirs: Seq[String], fileColumns: Seq[String],
    byPath: Map[String, Map[String, String]])

/**
 * Drill's implicit columns of a `dfs` catalog Parquet table (Spark's door): dirN (ordinary
 * columns) and filename, filepath, fqn, suffix (metadata columns, present when named), the
 * values drillspark.sql gives. A query that names none is Spark's Parquet scan unchanged
 * (filters, aggregates and columns pushed, vectorized); one that names some reads rows and adds
 * them from the file Spark's reader has open (`InputFileBlockHolder`, which it sets per file,
 * under the grouped and converting scans too). Filters and aggregates on data columns alone are
 * still pushed into the Parquet scan; those on an implicit column run after it.
 */
final class ImplicitScanBuilder(inner: ScanBuilder with SupportsPushDownRequiredColumns, names: Set[String],
    files: Map[String, Map[String, String]]) extends ScanBuilder with SupportsPushDownRequiredColumns
  with SupportsPushDownCatalystFilters with SupportsPushDownAggregates {

  private var wanted: Seq[String] = Nil
  private var aggregated = false

  private def isImplicit(name: String): Boolean = names(name.toLowerCase(Locale.ROOT))

  override def pushFilters(filters: Seq[Expression]): Seq[Expression] = inner match {
    case f: SupportsPushDownCatalystFilters =>
      val (plain, implicitOnes) = filters.partition(_.references.forall(a => !isImplicit(a.name)))
      f.pushFilters(plain) ++ implicitOnes
    case _ => filters
  }

  override def pushedFilters: Array[Predicate] = inner match {
    case f: SupportsPushDownCatalystFilters => f.pushedFilters
    case _ => Array.empty
  }

  override def supportCompletePushDown(aggregation: Aggregation): Boolean = inner match {
    case a: SupportsPushDownAggregates if plainAggregation(aggregation) => a.supportCompletePushDown(aggregation)
    case _ => false
  }

  override def pushAggregation(aggregation: Aggregation): Boolean = inner match {
    case a: SupportsPushDownAggregates if plainAggregation(aggregation) =>
      aggregated = a.pushAggregation(aggregation)
      aggregated
    case _ => false
  }

  private def plainAggregation(aggregation: Aggregation): Boolean =
    (aggregation.groupByExpressions() ++ aggregation.aggregateExpressions()).forall(
      _.references().forall(r => !r.fieldNames().headOption.exists(isImplicit)))

  override def pruneColumns(required: StructType): Unit = {
    val (implicitOnes, data) = required.fields.partition(f => isImplicit(f.name))
    wanted = implicitOnes.map(_.name.toLowerCase(Locale.ROOT)).toSeq
    inner.pruneColumns(StructType(data))
  }

  override def build(): Scan =
    if (wanted.isEmpty || aggregated) inner.build() else new ImplicitScan(inner.build(), wanted, files)
}

final class ImplicitScan(inner: Scan, wanted: Seq[String], files: Map[String, Map[String, String]]) extends Scan with Batch
  with SupportsReportStatistics {
  override def estimateStatistics(): Statistics = InnerStatistics(Seq(inner))
  override def readSchema(): StructType =
    StructType(inner.readSchema().fields ++ wanted.map(StructField(_, StringType, nullable = true)))
  override def description(): String = inner.description() + s" (with ${wanted.mkString(", ")})"
  override def toBatch: Batch = this
  override def planInputPartitions(): Array[InputPartition] = inner.toBatch.planInputPartitions()
  override def createReaderFactory(): PartitionReaderFactory =
    new ImplicitReaderFactory(inner.toBatch.createReaderFactory(), wanted, files)
}

/** Spark's Parquet rows, each followed by its file's implicit values (rows, not batches: a
 * batch's vectors cannot take columns Spark's reader did not make). */
final class ImplicitReaderFactory(inner: PartitionReaderFactory, wanted: Seq[String],
    files: Map[String, Map[String, String]])
  extends PartitionReaderFactory {

  override def supportColumnarReads(partition: InputPartition): Boolean = false

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val rows = inner.createReader(partition)
    new PartitionReader[InternalRow] {
      private var path: UTF8String = _
      private var values: InternalRow = _
      private val joined = new JoinedRow()

      private def valuesOf(uri: UTF8String): InternalRow = {
        val key = new Path(new java.net.URI(uri.toString)).toUri.getPath
        val file = files.getOrElse(key, Map.empty[String, String])
        new GenericInternalRow(wanted.map(n => file.get(n).map(UTF8String.fromString).orNull: Any).toArray)
      }

      override def next(): Boolean = rows.next()
      override def get(): InternalRow = {
        val now = InputFileBlockHolder.getInputFilePath
        if (path == null || path != now) { path = now.clone(); values = valuesOf(now) }
        joined(rows.get(), values)
      }
      override def close(): Unit = rows.close()
    }
  }
}
