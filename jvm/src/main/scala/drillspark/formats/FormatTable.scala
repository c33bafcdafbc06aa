package drillspark.formats

import java.util
import java.util.Locale

import org.apache.hadoop.fs.Path
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader, PartitionReaderFactory, Scan, ScanBuilder,
  Statistics, SupportsPushDownRequiredColumns, SupportsReportStatistics}
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import drillspark.source.input.{InputFile, InputFiles, ScanSize}
import drillspark.source.read.ReaderConf

/**
 * A table of one format: its files, the reader's data columns and then either the dirN
 * columns (Spark's door) or the file's URI (`$file`, drillspark's Python door, which adds
 * dirN and the implicit columns itself). One input partition per file, or per split of a file
 * its reader can read in byte ranges (text), cut at Spark's split size.
 */
final class FormatTable(val tableName: String, val reader: FormatReader, val options: FormatOptions,
    val files: Seq[InputFile], val dataSchema: StructType, val extraColumns: Seq[StructField])
  extends Table with SupportsRead with drillspark.DrillTable {

  override def name(): String = tableName
  override def schema(): StructType = StructType(dataSchema.fields ++ extraColumns)
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def newScanBuilder(o: CaseInsensitiveStringMap): ScanBuilder = new FormatScanBuilder(this)
}

/**
 * Column pruning: the scan reads only the top-level columns a query names (a reader builds
 * each row from its schema's names, so two columns of a wide sheet or log line cost two
 * conversions, not all); nested fields are kept whole (Spark prunes them after the scan).
 */
final class FormatScanBuilder(table: FormatTable) extends ScanBuilder with SupportsPushDownRequiredColumns {
  private var data = table.dataSchema
  private var extra = table.extraColumns

  override def pruneColumns(required: StructType): Unit = {
    val names = required.fieldNames.map(_.toLowerCase(Locale.ROOT)).toSet
    data = StructType(table.dataSchema.fields.filter(f => names.contains(f.name.toLowerCase(Locale.ROOT))))
    extra = table.extraColumns.filter(f => names.contains(f.name.toLowerCase(Locale.ROOT)))
  }

  override def build(): Scan = new FormatScan(table, data, extra)
}

/** A file, or the split [start, end) of it (end -1: the whole file). */
final case class FormatPartition(file: InputFile, start: Long = 0L, end: Long = -1L) extends InputPartition

final class FormatScan(table: FormatTable, dataSchema: StructType, extraColumns: Seq[StructField])
  extends Scan with Batch with SupportsReportStatistics {
  override def readSchema(): StructType = StructType(dataSchema.fields ++ extraColumns)
  override def toBatch: Batch = this
  /** The files' size, for Spark's planner (ScanSize: a join with a small file broadcasts it). */
  override def estimateStatistics(): Statistics = ScanSize.statistics(table.files)
  override def description(): String = s"${table.reader.typeName} ${table.files.size} file(s)"

  /** A partition per file, a file larger than Spark's split size (`FilePartition.maxSplitBytes`:
   * spark.sql.files.maxPartitionBytes, lowered so every core gets work) cut into splits when
   * its reader reads byte ranges. */
  override def planInputPartitions(): Array[InputPartition] = {
    val cut = table.files.filter(f => table.reader.splittable(f, table.options))
    val maxSplit = if (cut.isEmpty) Long.MaxValue else InputFiles.sparkSplitBytes(SparkSession.active, table.files)
    val cuttable = cut.toSet
    table.files.flatMap { f =>
      if (f.length <= maxSplit || !cuttable(f)) Seq(FormatPartition(f))
      else (0L until f.length by maxSplit).map(s => FormatPartition(f, s, math.min(f.length, s + maxSplit)))
    }.map(p => p: InputPartition).toArray
  }

  // the Hadoop configuration broadcast once and shared, as the drill source's: carried in the
  // factory it was serialized, compressed and parsed again for every task (most of a small
  // CSV file's read: #37)
  override def createReaderFactory(): PartitionReaderFactory =
    new FormatReaderFactory(table.reader, table.options, dataSchema, extraColumns.map(_.name),
      ReaderConf(SparkSession.active))
}

final class FormatReaderFactory(reader: FormatReader, options: FormatOptions, dataSchema: StructType,
    extra: Seq[String], broadcastConf: Broadcast[ScanVectors.HadoopConf]) extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val part = partition.asInstanceOf[FormatPartition]
    val file = part.file
    options.workspaceRoot.foreach(r =>
      drillspark.catalog.WorkspacePaths.confineFile(options.workspace.getOrElse(r), r, file.path))
    val conf = broadcastConf.value.value
    val rows = if (part.end < 0) reader.read(file, options, dataSchema, conf)
      else reader.readRange(file, part.start, part.end, options, dataSchema, conf)
    val extraValues: Array[Any] = extra.map { name =>
      if (name == FormatOptions.PathColumn) UTF8String.fromString(new Path(file.path).toUri.toString)
      else {
        val i = name.stripPrefix("dir").toInt
        if (i < file.dirs.size) UTF8String.fromString(file.dirs(i)) else null
      }
    }.toArray
    val width = dataSchema.size
    new PartitionReader[InternalRow] {
      private var current: InternalRow = _
      override def next(): Boolean = {
        val more = rows.hasNext
        if (more) {
          val row = rows.next()
          current = if (extraValues.isEmpty) row else {
            val out = new Array[Any](width + extraValues.length)
            var c = 0
            while (c < width) { out(c) = row.get(c, dataSchema(c).dataType); c += 1 }
            System.arraycopy(extraValues, 0, out, width, extraValues.length)
            new GenericInternalRow(out)
          }
        }
        more
      }
      override def get(): InternalRow = current
      override def close(): Unit = rows match {
        case c: AutoCloseable => c.close()
        case _ =>
      }
    }
  }
}
