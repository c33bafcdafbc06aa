package org.apache.spark.sql.drillspark.compat

import java.util

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.connector.read.{PartitionReaderFactory, VariantExtraction}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex
import org.apache.spark.sql.execution.datasources.v2.parquet.{ParquetScan, ParquetScanBuilder}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * Spark's Parquet scan builder, whose scans make their reader factory once per set of inputs
 * (#37). Spark's scan broadcasts its Hadoop configuration (a thousand entries, serialized and
 * stored as a broadcast variable) each time it makes its reader factory: ~20 ms per scan per
 * query, a sixth of a small TPC-H query's planning. A statement run again (a dashboard's charts,
 * a report's queries over the same tables) asks for the same factory, which holds no file list.
 * Everything else (pushed filters and aggregates, pruning, statistics, EXPLAIN) is Spark's scan.
 */
final class ReusingParquetScanBuilder(b: ParquetScanBuilder)
  extends ParquetScanBuilder(b.sparkSession, b.fileIndex, b.schema, b.dataSchema, b.options) {
  override def build(): ParquetScan = {
    val s = super.build()
    new ReusingParquetScan(s.sparkSession, s.hadoopConf, s.fileIndex, s.dataSchema, s.readDataSchema,
      s.readPartitionSchema, s.pushedFilters, s.options, s.pushedAggregate, s.partitionFilters, s.dataFilters,
      s.pushedVariantExtractions)
  }
}

final class ReusingParquetScan(sparkSession: SparkSession, hadoopConf: Configuration,
    fileIndex: PartitioningAwareFileIndex, dataSchema: StructType, readDataSchema: StructType,
    readPartitionSchema: StructType, pushedFilters: Array[Filter], options: CaseInsensitiveStringMap,
    pushedAggregate: Option[Aggregation], partitionFilters: Seq[Expression], dataFilters: Seq[Expression],
    pushedVariantExtractions: Array[VariantExtraction])
  extends ParquetScan(sparkSession, hadoopConf, fileIndex, dataSchema, readDataSchema, readPartitionSchema,
    pushedFilters, options, pushedAggregate, partitionFilters, dataFilters, pushedVariantExtractions) {

  // EXPLAIN and the profiles name Spark's scan and format, as before
  override def description(): String = super.description().replaceFirst("^ReusingParquetScan", "ParquetScan")
  override def getMetaData(): Map[String, String] = super.getMetaData().updated("Format", "parquet")

  // one per scan too: Spark asks a scan again within one query (a plan node made anew), and
  // Spark's factory sets entries of the scan's Hadoop conf, so a second ask would not match
  @transient private lazy val factory: PartitionReaderFactory =
    // an aggregate or a variant extraction pushed into the scan: not kept (their classes do
    // not promise value equality)
    if (pushedAggregate.isDefined || pushedVariantExtractions.nonEmpty) super.createReaderFactory()
    else ReusedReaderFactories.of(this, super.createReaderFactory())

  override def createReaderFactory(): PartitionReaderFactory = factory

  /** Everything Spark's factory is made of, but the broadcast itself: the schemas, the pushed
   * filters, the options, the session's SQL confs (the one session's: the factory holds its
   * SQLConf object) and every entry of the Hadoop configuration the broadcast would carry. */
  private[compat] def inputs: AnyRef = {
    val hadoop = new util.HashMap[String, String]()
    hadoopConf.forEach(e => hadoop.put(e.getKey, e.getValue))
    (dataSchema, readDataSchema, readPartitionSchema, pushedFilters.toSeq,
      options.asCaseSensitiveMap().asScala.toMap, hadoop, conf.getAllConfs, ReusedReaderFactories.Same(conf))
  }
}

/** The kept factories: the last 256 asked for, by their inputs (TPC-H's 22 queries ask for about
 * 90 between two runs of one; each holds a broadcast of the Hadoop configuration, ~50 KB). */
object ReusedReaderFactories {
  private val Kept = 256

  /** One object, compared by identity. */
  final case class Same(ref: SQLConf) {
    override def equals(o: Any): Boolean = o match {
      case Same(other) => other eq ref
      case _ => false
    }
    override def hashCode(): Int = System.identityHashCode(ref)
  }

  private val kept = new util.LinkedHashMap[AnyRef, PartitionReaderFactory](16, 0.75f, true) {
    override def removeEldestEntry(e: util.Map.Entry[AnyRef, PartitionReaderFactory]): Boolean = size() > Kept
  }

  /** The factory of `scan`'s inputs: a kept one, or `make` (made outside the lock) kept. */
  def of(scan: ReusingParquetScan, make: => PartitionReaderFactory): PartitionReaderFactory = {
    val key = scan.inputs  // before `make`: Spark's factory sets entries of the scan's Hadoop conf
    Option(kept.synchronized(kept.get(key))).getOrElse {
      val made = make
      kept.synchronized(kept.put(key, made))
      made
    }
  }
}
