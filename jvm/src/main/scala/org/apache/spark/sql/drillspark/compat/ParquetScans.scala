package org.apache.spark.sql.drillspark.compat

import java.util
import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.parquet.schema.MessageType
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, Expression, GenericInternalRow, Literal,
  UnsafeProjection}
import org.apache.spark.sql.connector.catalog.{MetadataColumn, SupportsMetadataColumns, SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader, PartitionReaderFactory, Scan, ScanBuilder,
  Statistics, SupportsPushDownRequiredColumns, SupportsReportStatistics}
import org.apache.spark.sql.execution.datasources.{FilePartition, FileFormat}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFileFormat, ParquetToSparkSchemaConverter}
import org.apache.spark.sql.execution.datasources.v2.FileScanBuilder
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetTable
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.internal.connector.SupportsPushDownCatalystFilters
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.types.{DataType, Decimal, StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarBatch, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/** The columns of a set of Parquet files: Spark's types as read (`physical`), Drill's as shown
 * (`drill`), and what turns one into the other: TIME columns and their units, DATE columns, the
 * files whose dates are shifted (paths). Names of `times`/`dates` are lower case. */
final case class ParquetLayout(physical: StructType, drill: StructType, times: Map[String, String],
    dates: Set[String], corruptFiles: Set[String]) {
  def converts: Boolean = times.nonEmpty || (dates.nonEmpty && corruptFiles.nonEmpty)
}

/**
 * A Parquet table of the `dfs` catalog (and of every `file` plugin's catalog): Spark's own
 * Parquet source reads the files (vectorized, column pruning, filters and aggregates pushed
 * into the footers' statistics), given the files drillspark listed and the schema their
 * footers give Drill's way (drillspark.formats.parquet.ParquetFooters). When a column needs Drill's conversion (a
 * TIME column, dates of a pre-1.9 Drill file) the scan is wrapped: it still prunes columns,
 * but filters run after it (Spark's pushed filters would compare the stored integers).
 */
final class ParquetCatalogTable(tableName: String, parts: Seq[(Seq[String], ParquetLayout)], shown: StructType,
    implicitValues: ImplicitValues = ImplicitValues(Nil, Nil, Map.empty)) extends Table with SupportsRead with SupportsMetadataColumns with drillspark.DrillTable {

  // Drill's implicit columns (the dfs catalog's tables only: drillspark.sql adds its own); a
  // data column of the same name wins
  private val (dirs, fileColumns) = {
    val data = shown.fieldNames.map(_.toLowerCase(Locale.ROOT)).toSet
    (implicitValues.dirs.filterNot(data), implicitValues.fileColumns.filterNot(data))
  }

  override def name(): String = tableName
  // dirN first, as drillspark.sql and Drill's Parquet reader put them
  override def schema(): StructType = StructType(dirs.map(StructField(_, StringType, nullable = true)) ++ shown.fields)
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)
  override def metadataColumns(): Array[MetadataColumn] =
    fileColumns.map(n => new MetadataColumn {
      override def name(): String = n
      override def dataType(): DataType = StringType
      override def isNullable: Boolean = false
      override def comment(): String = s"Drill implicit column $n"
    }: MetadataColumn).toArray

  /** Spark's Parquet table of each part, made once per table: its file index lists the files
   * (a Hadoop status of each) when first asked, and a table drillspark.sql keeps while its
   * files are unchanged (python/drillspark/spark/storage/readers.py) is scanned by every
   * statement that reads it: listed again each time, that was half of a small join's
   * V2ScanRelationPushDown (#37). The table is a snapshot already (its footers' schema). */
  private lazy val inners: Seq[ParquetTable] = parts.map { case (files, layout) =>
    ParquetTable(tableName, SparkSession.active, new CaseInsensitiveStringMap(Map.empty[String, String].asJava),
      files, Some(layout.physical), classOf[ParquetFileFormat].asInstanceOf[Class[_ <: FileFormat]])
  }

  private def builder(part: Int, options: CaseInsensitiveStringMap): FileScanBuilder =
    new ReusingParquetScanBuilder(inners(part).newScanBuilder(options))

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    val scan: ScanBuilder with SupportsPushDownRequiredColumns = parts match {
      case Seq((_, layout)) if !layout.converts => builder(0, options)
      case Seq((_, layout)) => new ConvertingScanBuilder(builder(0, options), layout)
      case _ => new GroupedScanBuilder(parts.zipWithIndex.map { case ((_, layout), i) =>
        val b = builder(i, options)
        (if (layout.converts) new ConvertingScanBuilder(b, layout) else b, layout)
      }, shown)
    }
    if (dirs.isEmpty && fileColumns.isEmpty) scan
    else new ImplicitScanBuilder(scan, (dirs ++ fileColumns).toSet, implicitValues.byPath)
  }
}

/**
 * Files that type a column differently: each group of one schema scanned by its own Spark scan
 * (with its own types), its rows cast to the table's common types, columns it lacks NULL.
 * Columns are pruned in every group; filters run after the scan.
 */
final class GroupedScanBuilder(parts: Seq[(ScanBuilder with SupportsPushDownRequiredColumns, ParquetLayout)],
    shown: StructType) extends ScanBuilder with SupportsPushDownRequiredColumns {
  private var required = shown

  override def pruneColumns(r: StructType): Unit =
    required = StructType(shown.fields.filter(f => r.fieldNames.exists(_.equalsIgnoreCase(f.name))))

  override def build(): Scan = {
    val scans = parts.map { case (b, layout) =>
      b.pruneColumns(StructType(layout.drill.fields.filter(f => required.fieldNames.exists(_.equalsIgnoreCase(f.name)))))
      b.build()
    }
    new GroupedScan(scans, required, SQLConf.get.sessionLocalTimeZone)
  }
}

final case class GroupedPartition(group: Int, part: InputPartition) extends InputPartition

final class GroupedScan(scans: Seq[Scan], out: StructType, zone: String) extends Scan with Batch
  with SupportsReportStatistics {
  override def readSchema(): StructType = out
  override def estimateStatistics(): Statistics = InnerStatistics(scans)
  override def description(): String = scans.map(_.description()).mkString("(groups of one schema) ", "; ", "")
  override def toBatch: Batch = this
  override def planInputPartitions(): Array[InputPartition] = scans.zipWithIndex.flatMap { case (s, g) =>
    s.toBatch.planInputPartitions().map(p => GroupedPartition(g, p): InputPartition)
  }.toArray
  override def createReaderFactory(): PartitionReaderFactory = {
    // per group: each output column from the group's own (cast to the common type), or NULL
    val projections = scans.map { s =>
      val in = s.readSchema()
      out.fields.toSeq.map { f =>
        in.fields.indexWhere(_.name.equalsIgnoreCase(f.name)) match {
          case -1 => Literal(null, f.dataType): Expression
          case i if in(i).dataType == f.dataType => BoundReference(i, f.dataType, nullable = true)
          case i => Cast(BoundReference(i, in(i).dataType, nullable = true), f.dataType, Some(zone))
        }
      }
    }
    new GroupedReaderFactory(scans.map(_.toBatch.createReaderFactory()), projections)
  }
}

final class GroupedReaderFactory(factories: Seq[PartitionReaderFactory], projections: Seq[Seq[Expression]])
  extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val p = partition.asInstanceOf[GroupedPartition]
    val rows = factories(p.group).createReader(p.part)
    val project = UnsafeProjection.create(projections(p.group))
    new PartitionReader[InternalRow] {
      override def next(): Boolean = rows.next()
      override def get(): InternalRow = project(rows.get())
      override def close(): Unit = rows.close()
    }
  }
}

/** Column pruning through to Spark's scan, in its stored types; filters on columns that are
 * not converted pushed into it too (a filter on a converted one runs after the scan). */
final class ConvertingScanBuilder(inner: FileScanBuilder, layout: ParquetLayout)
  extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownCatalystFilters {

  private val physical = layout.physical.fields.map(f => f.name.toLowerCase(Locale.ROOT) -> f.dataType).toMap
  private val converted: Set[String] = layout.times.keySet ++ (if (layout.corruptFiles.nonEmpty) layout.dates else Set.empty)

  override def pushFilters(filters: Seq[Expression]): Seq[Expression] = {
    val (plain, touching) = filters.partition(_.references.forall(a => !converted(a.name.toLowerCase(Locale.ROOT))))
    inner.pushFilters(plain) ++ touching
  }

  override def pushedFilters: Array[Predicate] = inner.pushedFilters

  override def pruneColumns(required: StructType): Unit =
    inner.pruneColumns(StructType(required.fields.map(f =>
      physical.get(f.name.toLowerCase(Locale.ROOT)).filter(_ => layout.times.contains(f.name.toLowerCase(Locale.ROOT)))
        .map(t => f.copy(dataType = t)).getOrElse(f))))

  override def build(): Scan = new ConvertingScan(inner.build(), layout)
}

final class ConvertingScan(inner: Scan, layout: ParquetLayout) extends Scan with Batch with SupportsReportStatistics {
  override def estimateStatistics(): Statistics = InnerStatistics(Seq(inner))
  private val stored = inner.readSchema()
  override def readSchema(): StructType = StructType(stored.fields.map { f =>
    val drill = layout.drill.fields.find(_.name.equalsIgnoreCase(f.name))
    if (layout.times.contains(f.name.toLowerCase(Locale.ROOT))) f.copy(dataType = drill.get.dataType) else f
  })
  override def description(): String = inner.description() + " (with Drill's TIME and dates)"
  override def toBatch: Batch = this
  override def columnarSupportMode(): Scan.ColumnarSupportMode = inner.columnarSupportMode()
  override def planInputPartitions(): Array[InputPartition] = inner.toBatch.planInputPartitions()
  override def createReaderFactory(): PartitionReaderFactory = {
    // per column of the scan: 0 none, 1 TIME (with its unit), 2 a date to correct
    val kinds = stored.fields.map { f =>
      val key = f.name.toLowerCase(Locale.ROOT)
      layout.times.get(key).map(u => "t" + u).getOrElse(if (layout.dates(key) && layout.corruptFiles.nonEmpty) "d" else "")
    }
    new ConvertingReaderFactory(inner.toBatch.createReaderFactory(), stored, readSchema(), kinds, layout.corruptFiles)
  }
}

/** A wrapping scan's statistics for Spark's planner: the sum of its inner scans' (Spark's
 * Parquet scans report their files' size, scaled to the columns read), unknown when one is.
 * Without them a wrapped scan would count as large, and a join with it never broadcast. */
object InnerStatistics {
  def apply(scans: Seq[Scan]): Statistics = {
    val each = scans.map {
      case s: SupportsReportStatistics => s.estimateStatistics()
      case _ => null
    }
    def sum(part: Statistics => util.OptionalLong): util.OptionalLong =
      if (each.forall(s => s != null && part(s).isPresent)) util.OptionalLong.of(each.map(part(_).getAsLong).sum)
      else util.OptionalLong.empty()
    val (size, rows) = (sum(_.sizeInBytes()), sum(_.numRows()))
    new Statistics {
      override def sizeInBytes(): util.OptionalLong = size
      override def numRows(): util.OptionalLong = rows
    }
  }
}

/**
 * Spark's Parquet readers with Drill's conversions on top: a TIME column's integers become
 * nanoseconds of the day, a corrupt-date file's dates are shifted back (decided per file, so
 * a partition of several files is read file by file when dates are corrected).
 */
final class ConvertingReaderFactory(inner: PartitionReaderFactory, stored: StructType, shown: StructType,
    kinds: Array[String], corruptFiles: Set[String]) extends PartitionReaderFactory {

  private def perFile[T](partition: InputPartition, open: (InputPartition, Boolean) => PartitionReader[T]): PartitionReader[T] =
    partition match {
      case p: FilePartition if kinds.contains("d") =>
        val parts = p.files.iterator.map(f => (FilePartition(p.index, Array(f)): InputPartition,
          corruptFiles.contains(f.toPath.toUri.getPath)))
        new PartitionReader[T] {
          private var current: PartitionReader[T] = _
          override def next(): Boolean = {
            while (current == null || !current.next()) {
              if (current != null) { current.close(); current = null }
              if (!parts.hasNext) return false
              val (one, corrupt) = parts.next()
              current = open(one, corrupt)
            }
            true
          }
          override def get(): T = current.get()
          override def close(): Unit = if (current != null) current.close()
        }
      case other => open(other, false)
    }

  override def supportColumnarReads(partition: InputPartition): Boolean = inner.supportColumnarReads(partition)

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    perFile[InternalRow](partition, (p, corrupt) => {
      val rows = inner.createReader(p)
      new PartitionReader[InternalRow] {
        override def next(): Boolean = rows.next()
        override def get(): InternalRow = {
          val row = rows.get()
          val out = new Array[Any](stored.size)
          var i = 0
          while (i < out.length) {
            out(i) = if (row.isNullAt(i)) null else kinds(i) match {
              case "" => row.get(i, stored(i).dataType)
              case "d" => if (corrupt) ParquetScans.fixedDate(row.getInt(i)) else row.getInt(i)
              case t =>
                val v = if (t == "tms") row.getInt(i).toLong else row.getLong(i)
                ParquetScans.timeNanos(v, t.drop(1))
            }
            i += 1
          }
          new GenericInternalRow(out)
        }
        override def close(): Unit = rows.close()
      }
    })

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    perFile[ColumnarBatch](partition, (p, corrupt) => {
      val batches = inner.createColumnarReader(p)
      new PartitionReader[ColumnarBatch] {
        override def next(): Boolean = batches.next()
        override def get(): ColumnarBatch = {
          val b = batches.get()
          val cols = Array.tabulate[ColumnVector](b.numCols()) { i =>
            kinds(i) match {
              case "" => b.column(i)
              case "d" => if (corrupt) new ConvertedVector(b.column(i), shown(i).dataType, "d") else b.column(i)
              case t => new ConvertedVector(b.column(i), shown(i).dataType, t)
            }
          }
          val out = new ColumnarBatch(cols, b.numRows())
          out
        }
        override def close(): Unit = batches.close()
      }
    })
}

/** A column of Spark's batch read through Drill's conversion (`kind`: "d" a corrupt-date
 * file's dates, "tms"/"tus"/"tns" a TIME column's integers). */
final class ConvertedVector(inner: ColumnVector, shown: DataType, kind: String) extends ColumnVector(shown) {
  override def close(): Unit = ()  // the batch's own vector is closed by its reader
  override def hasNull(): Boolean = inner.hasNull()
  override def numNulls(): Int = inner.numNulls()
  override def isNullAt(rowId: Int): Boolean = inner.isNullAt(rowId)
  override def getInt(rowId: Int): Int =
    if (kind == "d") ParquetScans.fixedDate(inner.getInt(rowId)) else inner.getInt(rowId)
  override def getLong(rowId: Int): Long = kind match {
    case "tms" => ParquetScans.timeNanos(inner.getInt(rowId).toLong, "ms")
    case "d" => inner.getLong(rowId)
    case t => ParquetScans.timeNanos(inner.getLong(rowId), t.drop(1))
  }
  private def no: Nothing = throw new UnsupportedOperationException(s"${shown.sql} column read as another type")
  override def getBoolean(rowId: Int): Boolean = no
  override def getByte(rowId: Int): Byte = no
  override def getShort(rowId: Int): Short = no
  override def getFloat(rowId: Int): Float = no
  override def getDouble(rowId: Int): Double = no
  override def getArray(rowId: Int): ColumnarArray = no
  override def getMap(ordinal: Int): ColumnarMap = no
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = no
  override def getUTF8String(rowId: Int): UTF8String = no
  override def getBinary(rowId: Int): Array[Byte] = no
  override def getChild(ordinal: Int): ColumnVector = no
}

/** Drill's value conversions of the wrapped scan, and Spark's schema of a Parquet schema. */
object ParquetScans {
  val CorruptDateShift: Int = 2 * 2440588  // days: twice the Julian day number of 1970-01-01
  val CorruptDateThreshold: Int = java.time.LocalDate.of(5000, 1, 1).toEpochDay.toInt

  /** Spark's columns of a Parquet schema, as its Parquet source converts it (session confs). */
  def sparkSchema(message: MessageType): StructType = new ParquetToSparkSchemaConverter(SQLConf.get).convert(message)

  /** A TIME column's stored integer (of `unit`: ms, us, ns) as Spark's TIME value
   * (nanoseconds of the day), cut to milliseconds (Drill's TIME). */
  def timeNanos(value: Long, unit: String): Long = {
    val millis = unit match {
      case "ms" => value
      case "us" => Math.floorDiv(value, 1000L)
      case _ => Math.floorDiv(value, 1000000L)
    }
    millis * 1000000L
  }

  /** A date of a file Drill wrote before 1.9, shifted back when past the year 5000. */
  def fixedDate(days: Int): Int = if (days > CorruptDateThreshold) days - CorruptDateShift else days
}
