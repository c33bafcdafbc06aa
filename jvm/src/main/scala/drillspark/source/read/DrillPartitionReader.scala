package drillspark.source.read

import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.JsonProcessingException
import org.apache.hadoop.conf.Configuration
import org.slf4j.LoggerFactory
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

import drillspark.functions.DrillConf
import drillspark.source.{DrillMetrics, DrillOptions, EarlyFilter, RowFilter, ScannerMode}
import drillspark.source.bytes.{ByteReader, GiveUp}
import drillspark.source.input.{DrillScanException, FileSplit, ImplicitColumns, JsonInput, RecordStream}
import drillspark.source.write.{StructWriter, ValueMismatch, WriteContext}

/**
 * Reads the splits of one input partition into columnar batches, the way Drill's result set
 * loader does: rows go straight into column vectors; a batch ends at `batchRows` rows or when
 * the row being written passes `batchBytes`. That row becomes the first row of the next batch
 * (parked in a one-row vector set while the batch's vectors are emptied), so the batch looks as
 * if reading had stopped just before it; a row that alone passes the limit is a batch by itself.
 * Bytes are what the vectors hold: every row pays the fixed slots of all its columns (a null
 * in a wide, sparse row is not free), plus string payloads and array elements.
 */
final class DrillPartitionReader(
    splits: Seq[FileSplit], readSchema: StructType, o: DrillOptions, conf: Configuration,
    filter: Option[RowFilter]) extends PartitionReader[ColumnarBatch] {
  private val log = LoggerFactory.getLogger(classOf[DrillPartitionReader])


  private val plan = ReadPlan(readSchema)
  private val ctx = new WriteContext(o)
  private val record = new StructWriter(ctx, plan.dataSchema, o.sampledSchema.orNull, top = true)
  private val factory = JsonInput.factory(o)
  /** Fixed bytes of one row in the batch's vectors (writers charge the same as they write). */
  private val rowSlot: Long = (record.rowSlot - record.slot).toLong + ReadPlan.ConstSlot * plan.constCols.length
  /** Rows the vectors are first sized for: no more than `batchBytes` worth (Spark preallocates
   * every vector to this capacity, so a wide schema at `batchRows` could dwarf the limit). */
  private val capacity: Int = {
    val perRow = math.max(1L, ScanVectors.preallocatedRowBytes(readSchema))
    math.max(1L, math.min(o.batchRows.toLong, o.batchBytes / perRow + 1)).toInt
  }
  private val vs: Array[Vec] = ScanVectors.allocate(capacity, readSchema)
  /** Holds the overflow row between batches; allocated when first needed. */
  private var spill: Array[Vec] = _
  private var pending = -1
  private var done = false
  private var batch: ColumnarBatch = _

  private var splitIx = 0
  private var split: FileSplit = _
  /** The current split's reader: the byte reader while it copes, else the Jackson path. */
  private var br: ByteReader = _
  private var rs: RecordStream = _
  /** The byte reader's limits (as ByteDiscovery.run's for discovery): skipping and replacing
   * bad input are the Jackson path's. */
  private val useBytes = o.readScanner != ScannerMode.Jackson && !o.skipInvalidRecords && !o.replaceInvalidUtf8
  private var constants: Array[Array[Byte]] = new Array(plan.constCols.length)
  private var skipped = 0L
  private var peakBatchBytes = 0L
  private var batches = 0L

  /** Nothing to parse (count()): records are counted by a structural scan, see RecordCounter.
   * Not with exactSample: every record is parsed then, for the keys and syntax errors a full
   * discovery would have met. */
  private val countOnly = plan.dataCols.isEmpty && filter.isEmpty && o.countScan &&
    !o.skipInvalidRecords && !o.replaceInvalidUtf8 && !o.exactSample
  private var counter: RecordCounter = _
  /** Pushed filters checked member by member while a record is parsed (byte offsets are
   * needed to re-read a revived record, so not with invalidUtf8=replace). */
  private val early: EarlyFilter =
    if (o.replaceInvalidUtf8 || o.exactSample) null // exactSample: a rejected row's values are checked too
    else filter.map(RowFilter.early(_, plan.dataCols)).orNull

  /** Point the writers at `target`, its array writers at element 0. */
  private def bind(target: Array[Vec]): Unit = {
    record.newBatch()
    record.bindChildren(plan.dataCols.map(target))
  }

  /** The next split of this partition with its implicit-column values set, or null at the end. */
  private def nextSplit(): FileSplit = {
    if (splitIx >= splits.size) return null
    val s = splits(splitIx)
    splitIx += 1
    constants = plan.constNames.map(n => Option(ImplicitColumns.value(n, s.file)).map(_.getBytes(UTF_8)).orNull)
    ctx.wholeFile = s.start == 0 && (s.end < 0 || s.end >= s.file.length)
    if (o.fileNulls.nonEmpty || o.fileUnseen.nonEmpty) {
      val paths = new java.util.HashSet[String](o.fileNulls.getOrElse(s.file.path, Nil).asJava)
      val unseen = new java.util.HashSet[String](o.fileUnseen.getOrElse(s.file.path, Nil).asJava)
      record.markFileNulls(paths, unseen, "")
    }
    s
  }

  /** Next record of this partition, opening the next split as needed. */
  private def advance(): Boolean = {
    while (true) {
      if (br != null) {
        val more = try br.next() catch { case GiveUp => handOver(inRecord = false); false }
        if (more) return true
        if (br != null) { br.close(); br = null }
      } else if (rs == null) {
        val s = nextSplit()
        if (s == null) return false
        split = s
        if (s.file.length > 0) {
          if (useBytes) br = new ByteReader(conf, s, o)
          else rs = new RecordStream(conf, s.file.path, s.start, s.end, o, factory)
        }
      } else if (rs.next()) return true
      else closeStream()
    }
    false
  }

  /**
   * The byte reader met something it does not handle exactly: the Jackson path reads the rest
   * of the split, after passing over the records the byte reader finished; `inRecord`: it
   * stopped inside a record, on which the Jackson path is left (its START_OBJECT current).
   */
  private def handOver(inRecord: Boolean): Unit = {
    val read = br.records
    val done = read - (if (inRecord) 1 else 0)
    val at = br.gaveUpAt
    br.close()
    br = null
    if (o.readScanner == ScannerMode.BytesOnly) throw new DrillScanException(
      s"drill: ${split.file.path}: the byte reader gave up near byte $at (split ${split.start} to ${split.end}; " +
        s"${DrillPartitionReader.ScannerConf}=bytes; the default, fast, hands the split to the Jackson reader)")
    rs = new RecordStream(conf, split.file.path, split.start, split.end, o, factory)
    var k = 0L
    while (k < done || (inRecord && k == done)) {
      if (!rs.next()) throw new DrillScanException(s"drill: ${split.file.path}: internal error: the Jackson " +
        s"reader found $k records where the byte reader read $read (near byte $at); please report it")
      if (k < done) rs.parser.skipChildren()
      k += 1
    }
  }

  /** The next batch of the count path: rows without data columns (constants filled). */
  private def nextCounted(): Boolean = {
    vs.foreach(_.reset())
    val limit = if (plan.constCols.isEmpty) DrillOptions.MaxBatchRows else o.batchRows
    var rows = 0
    while (rows < limit && !done) {
      if (counter == null) {
        val s = nextSplit()
        if (s == null) done = true
        else if (s.file.length > 0) counter = new RecordCounter(conf, s.file.path, s.start, s.end, o)
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
    batches += 1
    batch = new ColumnarBatch(vs.map(v => v: ColumnVector), rows)
    true
  }

  private def closeStream(): Unit = {
    skipped += rs.skipped
    if (rs.skipped > 0) log.warn(s"drill: skipped ${rs.skipped} invalid records in ${rs.file} (skipInvalidRecords)")
    rs.close()
    rs = null
  }

  private def writeConstants(vs: Array[Vec], i: Int): Unit = {
    var k = 0
    while (k < plan.constCols.length) {
      val v = vs(plan.constCols(k))
      v.reserve(i + 1)
      val b = constants(k)
      if (b == null) v.putNull(i) else { v.putNotNull(i); v.putByteArray(i, b, 0, b.length); ctx.bytes += b.length }
      ctx.bytes += ReadPlan.ConstSlot
      k += 1
    }
  }

  /**
   * Write the record under the parser at row i; false when it was skipped or filtered out.
   * A dropped row's slots are reused by the next row, but what it appended (string bytes,
   * array elements) stays in the vectors until the batch ends, so it stays charged: a row
   * rejected after it was written in full keeps what it cost beyond the row's slots, one
   * rejected part-way (or skipped as invalid) keeps all it cost.
   */
  private def writeRecord(i: Int): Boolean = {
    val before = ctx.bytes
    if (br != null) {
      try {
        record.writeMembersBytes(br, i)
        br.finishRecord()
      } catch {
        case GiveUp | _: ValueMismatch | _: IllegalArgumentException | _: java.time.DateTimeException |
             _: ArithmeticException =>
          handOver(inRecord = true) // the Jackson path writes the row again and reports what is wrong
          return writeRecord(i)
      }
      return keepRow(i, before)
    }
    try {
      if (early != null && rs.canReread) {
        val r = record.writeMembersFiltered(rs.parser, i, early, vs, filter.get)
        if (r == 0) return false
        if (r == 2) { rs.reread(); record.writeMembers(rs.parser, i) }
      } else record.writeMembers(rs.parser, i)
      keepRow(i, before)
    } catch {
      case e: ValueMismatch =>
        // a misfit of the sample is never skipped: the read without a sample decides
        if (o.exactSample) throw rs.fail(s"${DrillOptions.SampleMisfit}: ${e.getMessage}")
        if (o.skipInvalidRecords) { rs.skipRecord(); false }
        else throw rs.fail(e.getMessage)
      case e: JsonProcessingException => rs.onBadRecord(e); false
      case e @ (_: IllegalArgumentException | _: java.time.DateTimeException | _: ArithmeticException) =>
        // a value error a writer did not name (number, date and decimal parsing); anything
        // else is a bug and is not dressed up as bad input nor skipped
        if (o.skipInvalidRecords) { rs.skipRecord(); false }
        else throw rs.fail(s"cannot read the value: ${e.getMessage}", e)
    }
  }

  /** Implicit columns, then the pushed filters: false when the row is dropped. */
  private def keepRow(i: Int, before: Long): Boolean = {
    writeConstants(vs, i)
    val keep = filter.forall(_.eval(vs, i) == 1)
    if (!keep) ctx.bytes = before + math.max(0L, ctx.bytes - before - rowSlot)
    keep
  }

  /** Copy row `from` of `src` to row `to` of `dst` (the writers end up bound to `dst`). */
  private def copyRow(src: Array[Vec], from: Int, dst: Array[Vec], to: Int): Unit = {
    bind(dst)
    var c = 0
    while (c < record.children.length) {
      record.children(c).copy(src(plan.dataCols(c)), from, to); c += 1
    }
    plan.constCols.foreach { k =>
      dst(k).reserve(to + 1)
      if (src(k).isNullAt(from)) dst(k).putNull(to)
      else {
        val b = src(k).getBinary(from)
        dst(k).putNotNull(to); dst(k).putByteArray(to, b, 0, b.length); ctx.bytes += b.length
      }
      ctx.bytes += ReadPlan.ConstSlot
    }
  }

  /** Empty the batch's vectors; the overflow row, if any, becomes row 0. Returns the rows kept. */
  private def startBatch(): Int = {
    if (pending < 0) {
      vs.foreach(_.reset()); bind(vs); ctx.bytes = 0L
      return 0
    }
    if (spill == null) spill = ScanVectors.allocate(1, readSchema)
    spill.foreach(_.reset())
    copyRow(vs, pending, spill, 0)
    vs.foreach(_.reset()); ctx.bytes = 0L
    copyRow(spill, 0, vs, 0)
    // a huge row would pin its size in the spill set: let it go
    if (ctx.bytes > DrillPartitionReader.KeepSpillBytes) { spill.foreach(_.close()); spill = null }
    pending = -1
    1
  }

  override def next(): Boolean = {
    if (countOnly) return nextCounted()
    if (done && pending < 0) return false
    var rows = startBatch()
    var full = false
    while (!full && rows < o.batchRows && !done) {
      if (!advance()) done = true
      else if (writeRecord(rows)) {
        if (ctx.bytes > o.batchBytes && rows > 0) { pending = rows; full = true }
        else rows += 1
      } else if (ctx.bytes > o.batchBytes) {
        // dropped rows' leftovers filled the vectors: hand out what was kept, or start afresh
        if (rows > 0) full = true else rows = startBatch()
      }
    }
    peakBatchBytes = math.max(peakBatchBytes, ctx.bytes)
    if (rows == 0) return false
    batches += 1
    batch = new ColumnarBatch(vs.map(v => v: ColumnVector), rows)
    true
  }

  override def get(): ColumnarBatch = batch

  override def currentMetricsValues(): Array[CustomTaskMetric] = {
    val n = skipped + (if (rs != null) rs.skipped else 0L)
    Array(DrillMetrics.task(DrillMetrics.SkippedRecords, n),
      DrillMetrics.task(DrillMetrics.PeakBatchBytes, peakBatchBytes),
      DrillMetrics.task(DrillMetrics.Batches, batches))
  }

  override def close(): Unit = {
    if (counter != null) { counter.close(); counter = null }
    if (br != null) { br.close(); br = null }
    if (rs != null) closeStream()
    vs.foreach(_.close())
    if (spill != null) spill.foreach(_.close())
  }
}

object DrillPartitionReader {
  /** Spark conf choosing the row reader, a diagnostic (see [[ScannerMode]]): `fast` (default:
   * the byte reader, handing a split to the Jackson path from the first thing it does not
   * handle exactly), `jackson`, or `bytes` (the byte reader alone: a split it would hand over
   * fails). */
  val ScannerConf: String = DrillConf.ReadScanner
  /** An overflow row larger than this does not keep its spill vectors between batches. */
  val KeepSpillBytes: Long = 1L << 20
}
