package drillspark.source

import java.nio.charset.StandardCharsets.UTF_8

import com.fasterxml.jackson.core.JsonProcessingException
import org.apache.hadoop.conf.Configuration
import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * Reads the splits of one input partition into columnar batches, the way Drill's result set
 * loader does: rows go straight into column vectors; a batch ends at `batchRows` rows or when
 * the row being written passes `batchBytes`. That row becomes the first row of the next batch
 * (it is copied into the other of two vector sets), so the batch looks as if reading had
 * stopped just before it; a row that alone passes the limit is a batch by itself.
 */
final class DrillPartitionReader(
    splits: Seq[FileSplit], readSchema: StructType, o: DrillOptions, conf: Configuration,
    filter: Option[RowFilter]) extends PartitionReader[ColumnarBatch] with Logging {

  private val plan = ReadPlan(readSchema)
  private val ctx = new WriteContext(o)
  private val record = new StructWriter(ctx, plan.dataSchema)
  private val factory = JsonInput.factory(o)
  private val sets: Array[Array[Vec]] = Array(ScanVectors.allocate(o.batchRows, readSchema),
    ScanVectors.allocate(o.batchRows, readSchema))
  private var cur = 0
  private var handedOut = false
  private var pending = -1
  private var done = false
  private var batch: ColumnarBatch = _

  private var splitIx = 0
  private var rs: RecordStream = _
  private var constants: Array[Array[Byte]] = new Array(plan.constCols.length)
  private var skipped = 0L
  private var peakBatchBytes = 0L

  /** Nothing to parse (count()): records are counted by a structural scan, see RecordCounter. */
  private val countOnly = plan.dataCols.isEmpty && filter.isEmpty && o.countScan &&
    !o.skipInvalidRecords && !o.replaceInvalidUtf8
  private var counter: RecordCounter = _
  /** Pushed filters checked member by member while a record is parsed (byte offsets are
   * needed to re-read a revived record, so not with invalidUtf8=replace). */
  private val early: EarlyFilter =
    if (o.replaceInvalidUtf8) null else filter.map(RowFilter.early(_, plan.dataCols)).orNull

  private def bind(vs: Array[Vec]): Unit = {
    record.bindChildren(plan.dataCols.map(vs))
  }

  /** Next record of this partition, opening the next split as needed. */
  private def advance(): Boolean = {
    while (true) {
      if (rs == null) {
        if (splitIx >= splits.size) return false
        val s = splits(splitIx)
        splitIx += 1
        constants = plan.constNames.map(n => Option(ImplicitColumns.value(n, s.file)).map(_.getBytes(UTF_8)).orNull)
        if (s.file.length > 0) rs = new RecordStream(conf, s.file.path, s.start, s.end, o, factory)
      } else if (rs.next()) return true
      else closeStream()
    }
    false
  }

  /** The next batch of the count path: rows without data columns (constants filled). */
  private def nextCounted(): Boolean = {
    val vs = sets(0)
    vs.foreach(_.reset())
    val limit = if (plan.constCols.isEmpty) DrillOptions.MaxBatchRows else o.batchRows
    var rows = 0
    while (rows < limit && !done) {
      if (counter == null) {
        if (splitIx >= splits.size) done = true
        else {
          val s = splits(splitIx)
          splitIx += 1
          constants = plan.constNames.map(n => Option(ImplicitColumns.value(n, s.file)).map(_.getBytes(UTF_8)).orNull)
          if (s.file.length > 0) counter = new RecordCounter(conf, s.file.path, s.start, s.end, o)
        }
      } else {
        val k = counter.count(limit - rows)
        if (k == 0) { counter.close(); counter = null }
        else {
          var r = rows
          while (r < rows + k) { writeConstants(vs, r); r += 1 }
          rows += k
        }
      }
    }
    if (rows == 0) return false
    batch = new ColumnarBatch(vs.map(v => v: ColumnVector), rows)
    true
  }

  private def closeStream(): Unit = {
    skipped += rs.skipped
    if (rs.skipped > 0) logWarning(s"drill: skipped ${rs.skipped} invalid records in ${rs.file} (skipInvalidRecords)")
    rs.close()
    rs = null
  }

  private def writeConstants(vs: Array[Vec], i: Int): Unit = {
    var k = 0
    while (k < plan.constCols.length) {
      val v = vs(plan.constCols(k))
      v.reserve(i + 1)
      val b = constants(k)
      if (b == null) v.putNull(i) else { v.putNotNull(i); v.putByteArray(i, b, 0, b.length) }
      k += 1
    }
  }

  /** Write the record under the parser at row i; false when it was skipped or filtered out. */
  private def writeRecord(vs: Array[Vec], i: Int): Boolean = {
    try {
      if (early != null && !rs.inArray) {
        val r = record.writeMembersFiltered(rs.parser, i, early, vs, filter.get)
        if (r == 0) return false
        if (r == 2) { rs.reread(); record.writeMembers(rs.parser, i) }
      } else record.writeMembers(rs.parser, i)
      writeConstants(vs, i)
      filter.forall(_.eval(vs, i) == 1)
    } catch {
      case e: ValueMismatch =>
        if (o.skipInvalidRecords) { rs.skipRecord(); false }
        else throw rs.fail(e.getMessage)
      case e: JsonProcessingException => rs.onBadRecord(e); false
      case e: DrillScanException => throw e
      case e: RuntimeException =>
        // e.g. bad base64 in $binary, an unparsable date: the value does not fit its column
        if (o.skipInvalidRecords) { rs.skipRecord(); false }
        else throw rs.fail(s"cannot read the value: ${e.getMessage}", e)
    }
  }

  override def next(): Boolean = {
    if (countOnly) return nextCounted()
    if (done && pending < 0) return false
    val prev = cur
    if (handedOut) cur = 1 - cur
    val vs = sets(cur)
    vs.foreach(_.reset())
    record.newBatch()
    bind(vs)
    ctx.bytes = 0L
    var rows = 0
    if (pending >= 0) {
      // the overflow row: copy it from the batch just handed out to row 0 of this one
      val src = sets(prev)
      var c = 0
      while (c < record.children.length) {
        record.children(c).copy(src(plan.dataCols(c)), pending, 0); c += 1
      }
      plan.constCols.foreach { k =>
        vs(k).reserve(1)
        if (src(k).isNullAt(pending)) vs(k).putNull(0)
        else { val b = src(k).getBinary(pending); vs(k).putNotNull(0); vs(k).putByteArray(0, b, 0, b.length) }
      }
      pending = -1
      rows = 1
    }
    var full = false
    while (!full && rows < o.batchRows && !done) {
      if (!advance()) done = true
      else {
        val before = ctx.bytes
        if (writeRecord(vs, rows)) {
          if (ctx.bytes > o.batchBytes && rows > 0) { pending = rows; full = true }
          else rows += 1
        } else ctx.bytes = before
      }
    }
    handedOut = true
    peakBatchBytes = math.max(peakBatchBytes, ctx.bytes)
    if (rows == 0) return false
    batch = new ColumnarBatch(vs.map(v => v: ColumnVector), rows)
    true
  }

  override def get(): ColumnarBatch = batch

  override def currentMetricsValues(): Array[CustomTaskMetric] = {
    val n = skipped + (if (rs != null) rs.skipped else 0L)
    Array(DrillMetrics.task(DrillMetrics.SkippedRecords, n),
      DrillMetrics.task(DrillMetrics.PeakBatchBytes, peakBatchBytes))
  }

  override def close(): Unit = {
    if (counter != null) { counter.close(); counter = null }
    if (rs != null) closeStream()
    sets.foreach(_.foreach(_.close()))
  }
}

/** Where each column of the read schema comes from: the JSON data, or a per-file constant. */
final case class ReadPlan(readSchema: StructType) {
  private val isConst: Array[Boolean] = readSchema.fields.map { f =>
    ImplicitColumns.dirIndex(f.name).isDefined && f.metadata.contains(ReadPlan.PartitionKey) ||
      f.metadata.contains(ReadPlan.FileColumnKey)
  }
  val dataCols: Array[Int] = readSchema.fields.indices.filterNot(isConst).toArray
  val constCols: Array[Int] = readSchema.fields.indices.filter(isConst).toArray
  val constNames: Array[String] = constCols.map(readSchema.fields(_).name)
  val dataSchema: StructType = StructType(dataCols.map(readSchema.fields(_)))
}

object ReadPlan {
  /** Field metadata marking dirN partition columns and implicit file columns in the read schema. */
  val PartitionKey = "drill.partition"
  val FileColumnKey = "drill.implicit"
}
