package drillspark.source

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Instant, LocalDate, LocalDateTime, OffsetDateTime, ZoneOffset}
import java.util.{HashMap => JHashMap, Locale}

import com.fasterxml.jackson.core.{JsonFactory, JsonParser, JsonToken}
import com.fasterxml.jackson.core.exc.InputCoercionException
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types._

/** A value that does not fit its column (the reader adds file, line and column). */
final class ValueMismatch(message: String) extends RuntimeException(message)

/** Shared state of one reader's writers: the byte budget of the batch being filled. */
final class WriteContext(val o: DrillOptions) {
  var bytes: Long = 0L
  private val textOut = new ByteArrayOutputStream(256)
  private val textGen = new JsonFactory().createGenerator(textOut)

  /** The JSON text of the value under the parser (objects and arrays compact). */
  def jsonText(p: JsonParser): Array[Byte] = {
    textOut.reset()
    textGen.copyCurrentStructure(p)
    textGen.flush()
    textOut.toByteArray
  }

  /** An extended-JSON wrapper's value as text ($oid, ...), else the object's JSON text. */
  def extendedOrJsonText(p: JsonParser): Array[Byte] = {
    val t1 = p.nextToken()
    if (t1 == JsonToken.FIELD_NAME && SchemaDiscovery.ExtendedKinds.contains(p.currentName())) {
      p.nextToken()
      val text = if (p.currentToken().isScalarValue) p.getText.getBytes(UTF_8) else jsonText(p)
      var t = p.nextToken()
      while (t != JsonToken.END_OBJECT) { p.nextToken(); p.skipChildren(); t = p.nextToken() }
      text
    } else {
      textOut.reset()
      textGen.writeStartObject()
      var t = t1
      while (t == JsonToken.FIELD_NAME) {
        textGen.writeFieldName(p.currentName())
        p.nextToken()
        textGen.copyCurrentStructure(p)
        t = p.nextToken()
      }
      textGen.writeEndObject()
      textGen.flush()
      textOut.toByteArray
    }
  }
}

/**
 * Result-set-loader style column writers: each writes one JSON value (its first token is the
 * parser's current token) into a Spark column vector at a given index, fills nulls, and copies
 * a row from a previous batch (the overflow row). Drill's conversions apply to scalars of
 * another kind (V2 listeners): a float into BIGINT rounds, booleans are 1/0, strings parse.
 */
abstract class ColumnWriter(val ctx: WriteContext) {
  var vec: Vec = _
  /** Bytes one entry occupies in this writer's own vector whether or not it holds a value: the
   * null flag plus the fixed-width part (8 for offset and length of strings, binaries and
   * arrays). Every write charges it, nulls too, so a wide, sparse row costs what its vectors
   * really hold; variable-length payloads are charged on top when written. */
  def slot: Int
  /** Bytes one row occupies across the vectors indexed by row: this one and, for a struct, its
   * members (array elements are entries of their own, charged as they are written). */
  def rowSlot: Int = slot
  def bind(v: Vec): Unit = vec = v
  /** Start of a batch (array writers restart their element count). */
  def newBatch(): Unit = ()
  def write(p: JsonParser, t: JsonToken, i: Int): Unit
  /** A JSON null or a missing value. */
  def writeNull(i: Int): Unit = { vec.reserve(i + 1); vec.putNull(i); ctx.bytes += slot }
  /** Row `i` of an array or map column: `n` entries starting at `start` in the child vectors. */
  protected final def putEntries(i: Int, start: Int, n: Int): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putArray(i, start, n); ctx.bytes += slot
  }
  /** A null inside an array: Drill writes the type's zero value (0, "", false). */
  def writeElementNull(i: Int): Unit = writeNull(i)
  def copy(src: Vec, from: Int, to: Int): Unit

  protected def mismatch(p: JsonParser, t: JsonToken, what: String): Nothing = {
    val found = t match {
      case JsonToken.START_OBJECT => "an object"
      case JsonToken.START_ARRAY => "an array"
      case _ => s"'${p.getText}'"
    }
    throw new ValueMismatch(s"$found does not fit column type $what " +
      "(the value did not appear in the records used for discovery: check options sampleRecords and schema)")
  }

  /** Extended JSON wrapper value: returns the parser positioned on the wrapped value's token. */
  protected def extended(p: JsonParser): Option[(String, JsonToken)] = {
    if (!ctx.o.extendedTypes) return None
    val t1 = p.nextToken()
    if (t1 == JsonToken.FIELD_NAME && SchemaDiscovery.ExtendedKinds.contains(p.currentName())) {
      val name = p.currentName()
      Some((name, p.nextToken()))
    } else throw new ValueMismatch("an object does not fit a scalar column")
  }

  /** After an extended wrapper's value was consumed: skip its other members up to END_OBJECT. */
  protected def endExtended(p: JsonParser): Unit = {
    var t = p.nextToken()
    while (t != JsonToken.END_OBJECT) { p.nextToken(); p.skipChildren(); t = p.nextToken() }
  }
}

object ColumnWriter {
  val DefaultKey = "drill.default"

  /** A column's writer; a NOT NULL column (provided schema) fills its default for nulls. */
  def forField(f: StructField, ctx: WriteContext): ColumnWriter = {
    val w = apply(f.dataType, ctx)
    if (f.nullable) w
    else new DefaultWriter(ctx, w, f, apply(f.dataType, ctx))
  }

  /** Build the writer tree for a Spark type. */
  def apply(dt: DataType, ctx: WriteContext): ColumnWriter = dt match {
    case LongType => new LongWriter(ctx)
    case IntegerType => new IntWriter(ctx)
    case ShortType | ByteType => new IntWriter(ctx) // widened reads are rare; written as ints
    case DoubleType => new DoubleWriter(ctx)
    case FloatType => new FloatWriter(ctx)
    case BooleanType => new BoolWriter(ctx)
    case StringType | _: VarcharType | _: CharType => new StringWriter(ctx)
    case d: DecimalType => new DecimalWriter(ctx, d)
    case DateType => new DateWriter(ctx)
    case TimestampType | TimestampNTZType => new TimestampWriter(ctx)
    case BinaryType => new BinaryWriter(ctx)
    case VariantType => new VariantWriter(ctx)
    case s: StructType => new StructWriter(ctx, s)
    case a: ArrayType => new ArrayWriter(ctx, apply(a.elementType, ctx))
    case m: MapType if m.keyType == StringType => new MapWriter(ctx, apply(m.valueType, ctx))
    case other => throw new IllegalArgumentException(
      s"drill: the JSON reader cannot produce type ${other.sql}")
  }
}

/** BIGINT and INT columns: the same JSON rules (numbers, booleans as 1/0, numeric strings,
 *  extended types), two widths. */
sealed abstract class IntegralWriter(ctx: WriteContext, typeName: String, overflow: String)
    extends ColumnWriter(ctx) {
  protected def put(i: Int, v: Long): Unit
  protected def get(src: Vec, row: Int): Long
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NUMBER_INT =>
      try put(i, p.getLongValue) catch { case _: InputCoercionException => mismatch(p, t, overflow) }
    case JsonToken.VALUE_NUMBER_FLOAT => put(i, math.round(p.getDoubleValue))
    case JsonToken.VALUE_TRUE => put(i, 1L)
    case JsonToken.VALUE_FALSE => put(i, 0L)
    case JsonToken.VALUE_STRING =>
      val s = p.getText.trim
      if (s.isEmpty) writeNull(i)
      else try put(i, s.toLong) catch { case _: NumberFormatException => mismatch(p, t, typeName) }
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) => write(p, vt, i); endExtended(p)
      case None => mismatch(p, t, typeName)
    }
    case _ => mismatch(p, t, typeName)
  }
  override def writeElementNull(i: Int): Unit = put(i, 0L)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, get(src, from))
}

final class LongWriter(ctx: WriteContext) extends IntegralWriter(ctx, "BIGINT", "BIGINT (out of range)") {
  def slot: Int = 9
  protected def put(i: Int, v: Long): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putLong(i, v); ctx.bytes += slot }
  protected def get(src: Vec, row: Int): Long = src.getLong(row)
}

final class IntWriter(ctx: WriteContext) extends IntegralWriter(ctx, "INT", "INT") {
  def slot: Int = 5
  protected def put(i: Int, v: Long): Unit = {
    if (v > Int.MaxValue || v < Int.MinValue) throw new ValueMismatch(s"$v does not fit column type INT")
    vec.reserve(i + 1); vec.putNotNull(i); vec.putInt(i, v.toInt); ctx.bytes += slot
  }
  protected def get(src: Vec, row: Int): Long = src.getInt(row).toLong
}

final class DoubleWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private def put(i: Int, v: Double): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putDouble(i, v); ctx.bytes += slot }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NUMBER_INT | JsonToken.VALUE_NUMBER_FLOAT => put(i, p.getDoubleValue)
    case JsonToken.VALUE_TRUE => put(i, 1.0)
    case JsonToken.VALUE_FALSE => put(i, 0.0)
    case JsonToken.VALUE_STRING =>
      val s = p.getText.trim
      if (s.isEmpty) writeNull(i)
      else try put(i, s.toDouble) catch { case _: NumberFormatException => mismatch(p, t, "DOUBLE") }
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) => write(p, vt, i); endExtended(p)
      case None => mismatch(p, t, "DOUBLE")
    }
    case _ => mismatch(p, t, "DOUBLE")
  }
  override def writeElementNull(i: Int): Unit = put(i, 0.0)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getDouble(from))
}

final class FloatWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  private val d = new DoubleWriter(ctx)
  private val scratch = ScanVectors.allocate(1, new StructType().add("d", DoubleType))(0)
  def slot: Int = 5
  override def bind(v: Vec): Unit = { vec = v; d.bind(scratch) }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = {
    val before = ctx.bytes // the scratch double is not part of the batch
    d.write(p, t, 0)
    ctx.bytes = before
    copy(scratch, 0, i)
  }
  private def put(i: Int, v: Float): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putFloat(i, v); ctx.bytes += slot }
  override def writeElementNull(i: Int): Unit = put(i, 0f)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to)
    else put(to, if (src.dataType == DoubleType) src.getDouble(from).toFloat else src.getFloat(from))
}

final class BoolWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  def slot: Int = 2
  private def put(i: Int, v: Boolean): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putBoolean(i, v); ctx.bytes += slot }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_TRUE => put(i, true)
    case JsonToken.VALUE_FALSE => put(i, false)
    case JsonToken.VALUE_NUMBER_INT | JsonToken.VALUE_NUMBER_FLOAT => put(i, p.getDoubleValue != 0.0)
    case JsonToken.VALUE_STRING =>
      val s = p.getText.trim
      if (s.isEmpty) writeNull(i) else put(i, java.lang.Boolean.parseBoolean(s))
    case JsonToken.VALUE_NULL => writeNull(i)
    case _ => mismatch(p, t, "BOOLEAN")
  }
  override def writeElementNull(i: Int): Unit = put(i, false)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBoolean(from))
}

/**
 * VARCHAR: strings as they are; other scalars as their JSON text (mixed-kind columns and
 * allTextMode); objects and arrays as compact JSON text (scalar-vs-complex conflicts).
 */
final class StringWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private[source] def put(i: Int, b: Array[Byte]): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putByteArray(i, b, 0, b.length); ctx.bytes += b.length + slot
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT if ctx.o.extendedTypes => put(i, ctx.extendedOrJsonText(p))
    case JsonToken.START_OBJECT | JsonToken.START_ARRAY => put(i, ctx.jsonText(p))
    case _ => put(i, p.getText.getBytes(UTF_8))
  }
  override def writeElementNull(i: Int): Unit = put(i, Array.emptyByteArray)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBinary(from))
}

final class BinaryWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private def put(i: Int, b: Array[Byte]): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putByteArray(i, b, 0, b.length); ctx.bytes += b.length + slot
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.VALUE_STRING => put(i, java.util.Base64.getDecoder.decode(p.getText.trim))
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) => write(p, vt, i); endExtended(p)
      case None => mismatch(p, t, "VARBINARY")
    }
    case _ => mismatch(p, t, "VARBINARY")
  }
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBinary(from))
}

final class DecimalWriter(ctx: WriteContext, dt: DecimalType) extends ColumnWriter(ctx) {
  /** Up to 18 digits a long (or int); wider ones are stored as bytes (8 for offset and length). */
  def slot: Int = 9
  private def put(i: Int, v: java.math.BigDecimal): Unit = {
    val d = Decimal(v)
    if (!d.changePrecision(dt.precision, dt.scale)) throw new ValueMismatch(s"$v does not fit ${dt.sql}")
    vec.reserve(i + 1); vec.putNotNull(i); vec.putDecimal(i, d, dt.precision)
    ctx.bytes += slot + (if (dt.precision > Decimal.MAX_LONG_DIGITS) 16 else 0)
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NUMBER_INT | JsonToken.VALUE_NUMBER_FLOAT => put(i, p.getDecimalValue)
    case JsonToken.VALUE_STRING =>
      val s = p.getText.trim
      if (s.isEmpty) writeNull(i)
      else try put(i, new java.math.BigDecimal(s)) catch { case _: NumberFormatException => mismatch(p, t, dt.sql) }
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) => write(p, vt, i); endExtended(p)
      case None => mismatch(p, t, dt.sql)
    }
    case _ => mismatch(p, t, dt.sql)
  }
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to)
    else put(to, src.getDecimal(from, dt.precision, dt.scale).toJavaBigDecimal)
}

final class DateWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  def slot: Int = 5
  private def put(i: Int, days: Int): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putInt(i, days); ctx.bytes += slot }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_STRING =>
      val s = p.getText.trim
      if (s.isEmpty) writeNull(i)
      else try put(i, LocalDate.parse(s.take(10)).toEpochDay.toInt) catch {
        case _: java.time.DateTimeException => mismatch(p, t, "DATE")
      }
    case JsonToken.VALUE_NUMBER_INT => put(i, p.getIntValue)
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) => write(p, vt, i); endExtended(p)
      case None => mismatch(p, t, "DATE")
    }
    case _ => mismatch(p, t, "DATE")
  }
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getInt(from))
}

/** TIMESTAMP (UTC): ISO-8601 text, or epoch milliseconds (Mongo's `$date`). */
final class TimestampWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private def put(i: Int, micros: Long): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putLong(i, micros); ctx.bytes += slot }
  private def parse(s: String): Long = {
    val inst =
      try OffsetDateTime.parse(s).toInstant
      catch {
        case _: java.time.DateTimeException =>
          try Instant.parse(s)
          catch {
            case _: java.time.DateTimeException =>
              LocalDateTime.parse(s.replace(' ', 'T')).toInstant(ZoneOffset.UTC)
          }
      }
    inst.getEpochSecond * 1000000L + inst.getNano / 1000
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_STRING =>
      val s = p.getText.trim
      if (s.isEmpty) writeNull(i)
      else try put(i, parse(s)) catch { case _: java.time.DateTimeException => mismatch(p, t, "TIMESTAMP") }
    case JsonToken.VALUE_NUMBER_INT => put(i, p.getLongValue * 1000L)
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) =>
        if (vt == JsonToken.START_OBJECT) { // {"$date": {"$numberLong": "..."}}
          p.nextToken(); p.nextToken(); put(i, p.getValueAsLong * 1000L); endExtended(p)
        } else write(p, vt, i)
        endExtended(p)
      case None => mismatch(p, t, "TIMESTAMP")
    }
    case _ => mismatch(p, t, "TIMESTAMP")
  }
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getLong(from))
}

/** VARIANT (typeConflict=variant): any JSON value, encoded by Spark's variant builder. */
final class VariantWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  /** A struct of two binaries (value, metadata). */
  def slot: Int = 19
  private def put(i: Int, value: Array[Byte], meta: Array[Byte]): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i)
    val (cv, cm) = (vec.getChild(0).asInstanceOf[Vec], vec.getChild(1).asInstanceOf[Vec])
    cv.reserve(i + 1); cm.reserve(i + 1)
    cv.putNotNull(i); cm.putNotNull(i)
    cv.putByteArray(i, value, 0, value.length); cm.putByteArray(i, meta, 0, meta.length)
    ctx.bytes += value.length + meta.length + slot
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit =
    if (t == JsonToken.VALUE_NULL) writeNull(i)
    else { val (v, m) = ScanVectors.parseVariant(p); put(i, v, m) }
  override def writeNull(i: Int): Unit = {
    vec.reserve(i + 1); vec.putNull(i)
    vec.getChild(0).asInstanceOf[Vec].reserve(i + 1); vec.getChild(1).asInstanceOf[Vec].reserve(i + 1)
    vec.getChild(0).asInstanceOf[Vec].putNull(i); vec.getChild(1).asInstanceOf[Vec].putNull(i)
    ctx.bytes += slot
  }
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to)
    else put(to, src.getChild(0).getBinary(from), src.getChild(1).getBinary(from))
}

/**
 * A struct (Drill map): members looked up case-insensitively (first spelling names the
 * column), duplicate keys last wins, members the value lacks are null, unprojected members
 * skipped by the tokenizer. A JSON null map is a map whose members are all null.
 */
class StructWriter(ctx: WriteContext, val schema: StructType) extends ColumnWriter(ctx) {
  val children: Array[ColumnWriter] = schema.fields.map(f => ColumnWriter.forField(f, ctx))
  private val exact = new JHashMap[String, Integer]()
  private val lower = new JHashMap[String, Integer]()
  schema.fields.zipWithIndex.foreach { case (f, i) =>
    exact.put(f.name, i)
    lower.putIfAbsent(f.name.toLowerCase(Locale.ROOT), i)
  }
  private val seen = new Array[Boolean](children.length)
  def slot: Int = 1
  override val rowSlot: Int = slot + children.map(_.rowSlot).sum

  override def bind(v: Vec): Unit = {
    vec = v
    var i = 0
    while (i < children.length) { children(i).bind(v.getChild(i).asInstanceOf[Vec]); i += 1 }
  }
  /** Top level: the members are the batch's columns themselves. */
  def bindChildren(vs: Array[Vec]): Unit = {
    var i = 0
    while (i < children.length) { children(i).bind(vs(i)); i += 1 }
  }
  override def newBatch(): Unit = children.foreach(_.newBatch())

  /** Column of a key: exact spelling first, then case-insensitively; misses (unprojected
   * keys) are remembered too, so skipping a key costs one lookup. */
  protected def index(name: String): Int = {
    val ix = exact.get(name)
    if (ix != null) return ix.intValue
    val lo = lower.get(name.toLowerCase(Locale.ROOT))
    val found = if (lo == null) -1 else lo.intValue
    if (exact.size < StructWriter.SpellingCacheSize) exact.put(name, found)
    found
  }

  /** Write the members of the object whose START_OBJECT is current. */
  def writeMembers(p: JsonParser, i: Int): Unit = {
    java.util.Arrays.fill(seen, false)
    var t = p.nextToken()
    while (t == JsonToken.FIELD_NAME) {
      val ix = index(p.currentName())
      val vt = p.nextToken()
      if (ix < 0) p.skipChildren()
      else {
        children(ix).write(p, vt, i)
        seen(ix) = true
      }
      t = p.nextToken()
    }
    var c = 0
    while (c < children.length) { if (!seen(c)) children(c).writeNull(i); c += 1 }
  }

  /**
   * A top-level record with pushed filters: after each member the conjuncts it decides are
   * checked; once one is not TRUE the remaining members are skipped by the tokenizer, except
   * members the filter reads (a later duplicate key wins and may revive the record).
   * Returns 1 written in full, 0 rejected, 2 rejected early but revived by a later duplicate
   * key (some members were skipped: the caller re-reads the record).
   */
  def writeMembersFiltered(p: JsonParser, i: Int, f: EarlyFilter, vs: Array[Vec], full: RowFilter): Int = {
    java.util.Arrays.fill(seen, false)
    var rejected = false
    var rewritten = false
    var t = p.nextToken()
    while (t == JsonToken.FIELD_NAME) {
      val ix = index(p.currentName())
      val vt = p.nextToken()
      if (ix < 0 || (rejected && !f.reads(ix))) p.skipChildren()
      else {
        children(ix).write(p, vt, i)
        seen(ix) = true
        if (rejected) rewritten = true
        else if (!f.passes(ix, seen, vs, i)) rejected = true
      }
      t = p.nextToken()
    }
    if (rejected && !rewritten) return 0
    var c = 0
    while (c < children.length) { if (!seen(c)) children(c).writeNull(i); c += 1 }
    if (!rejected) 1 else if (full.eval(vs, i) == 1) 2 else 0
  }

  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.START_OBJECT =>
      vec.reserve(i + 1); vec.putNotNull(i); ctx.bytes += slot
      writeMembers(p, i)
    case JsonToken.VALUE_NULL => writeNull(i)
    case _ => mismatch(p, t, schema.simpleString)
  }
  override def writeNull(i: Int): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); ctx.bytes += slot
    children.foreach(_.writeNull(i))
  }
  def copy(src: Vec, from: Int, to: Int): Unit = {
    vec.reserve(to + 1)
    if (src.isNullAt(from)) vec.putNull(to) else vec.putNotNull(to)
    var c = 0
    while (c < children.length) { children(c).copy(src.getChild(c).asInstanceOf[Vec], from, to); c += 1 }
  }
}

object StructWriter {
  final val SpellingCacheSize = 4096
}

/** A repeated value: elements appended to the child vector; JSON null is an empty array. */
final class ArrayWriter(ctx: WriteContext, val elem: ColumnWriter) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private var next = 0
  override def bind(v: Vec): Unit = { vec = v; elem.bind(v.arrayData().asInstanceOf[Vec]) }
  override def newBatch(): Unit = { next = 0; elem.newBatch() }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.START_ARRAY =>
      val start = next
      var n = 0
      var e = p.nextToken()
      while (e != JsonToken.END_ARRAY) {
        val at = next
        next += 1
        if (e == JsonToken.VALUE_NULL) elem.writeElementNull(at) else elem.write(p, e, at)
        n += 1
        e = p.nextToken()
      }
      putEntries(i, start, n)
    case JsonToken.VALUE_NULL => writeNull(i)
    case _ => mismatch(p, t, "ARRAY")
  }
  override def writeNull(i: Int): Unit = {
    putEntries(i, next, 0)
  }
  def copy(src: Vec, from: Int, to: Int): Unit = {
    val n = src.getArrayLength(from)
    val off = src.getArrayOffset(from)
    val start = next
    next += n
    var j = 0
    while (j < n) { elem.copy(src.arrayData().asInstanceOf[Vec], off + j, start + j); j += 1 }
    putEntries(to, start, n)
  }
}

/** MAP<VARCHAR, T> from a provided schema: every member of the object is one entry. */
final class MapWriter(ctx: WriteContext, val value: ColumnWriter) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private val key = new StringWriter(ctx)
  private var next = 0
  override def bind(v: Vec): Unit = {
    vec = v; key.bind(v.getChild(0).asInstanceOf[Vec]); value.bind(v.getChild(1).asInstanceOf[Vec])
  }
  override def newBatch(): Unit = { next = 0; value.newBatch() }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.START_OBJECT =>
      val start = next
      var e = p.nextToken()
      while (e == JsonToken.FIELD_NAME) {
        key.put(next, p.currentName().getBytes(UTF_8))
        value.write(p, p.nextToken(), next)
        next += 1
        e = p.nextToken()
      }
      putEntries(i, start, next - start)
    case JsonToken.VALUE_NULL => writeNull(i)
    case _ => mismatch(p, t, "MAP")
  }
  override def writeNull(i: Int): Unit = {
    putEntries(i, next, 0)
  }
  def copy(src: Vec, from: Int, to: Int): Unit = {
    val n = src.getArrayLength(from)
    val off = src.getArrayOffset(from)
    val start = next
    next += n
    var j = 0
    while (j < n) {
      key.copy(src.getChild(0).asInstanceOf[Vec], off + j, start + j)
      value.copy(src.getChild(1).asInstanceOf[Vec], off + j, start + j)
      j += 1
    }
    putEntries(to, start, n)
  }
}

/**
 * A NOT NULL column of a provided schema: a missing or null value becomes the column's
 * `default` (Drill's `default '...'`), else the type's zero value (0, "", false, empty array).
 */
final class DefaultWriter(ctx: WriteContext, inner: ColumnWriter, f: StructField, scratchWriter: ColumnWriter)
  extends ColumnWriter(ctx) {
  private val scratch = ScanVectors.allocate(1, new StructType().add(f.copy(nullable = true)))(0)
  locally {
    scratchWriter.bind(scratch)
    val saved = ctx.bytes
    val default = if (f.metadata.contains(ColumnWriter.DefaultKey)) Some(f.metadata.getString(ColumnWriter.DefaultKey)) else None
    default match {
      case None => scratchWriter.writeElementNull(0)
      case Some(text) =>
        val jf = new JsonFactory()
        def viaJson(s: String): Unit = {
          val p = jf.createParser(s)
          try scratchWriter.write(p, p.nextToken(), 0) finally p.close()
        }
        try viaJson(text) catch {
          case _: Exception =>
            try viaJson("\"" + new String(com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsString(text)) + "\"")
            catch {
              case e: Exception => throw new IllegalArgumentException(
                s"drill: default '$text' of column ${f.name} does not fit ${f.dataType.sql}: ${e.getMessage}")
            }
        }
    }
    ctx.bytes = saved
  }
  def slot: Int = inner.slot
  override def rowSlot: Int = inner.rowSlot
  override def bind(v: Vec): Unit = { vec = v; inner.bind(v) }
  override def newBatch(): Unit = inner.newBatch()
  def write(p: JsonParser, t: JsonToken, i: Int): Unit =
    if (t == JsonToken.VALUE_NULL) writeNull(i) else inner.write(p, t, i)
  override def writeNull(i: Int): Unit = inner.copy(scratch, 0, i)
  override def writeElementNull(i: Int): Unit = writeNull(i)
  def copy(src: Vec, from: Int, to: Int): Unit = inner.copy(src, from, to)
}
