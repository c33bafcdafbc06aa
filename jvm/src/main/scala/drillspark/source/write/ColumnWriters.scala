package drillspark.source.write

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Instant, LocalDate, LocalDateTime, OffsetDateTime, ZoneOffset}
import java.util.{HashMap => JHashMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.{JsonFactory, JsonFactoryBuilder, JsonGenerator, JsonParser, JsonToken, StreamWriteConstraints}
import com.fasterxml.jackson.core.exc.InputCoercionException
import com.fasterxml.jackson.core.io.JsonStringEncoder
import com.fasterxml.jackson.core.json.JsonWriteFeature
import org.apache.spark.sql.drillspark.compat.VariantErrors
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types._

import drillspark.source.{DrillOptions, EarlyFilter, Names, RowFilter}
import drillspark.source.bytes.{ByteReader, KeyIndex}
import drillspark.source.discovery.{Node, SchemaDiscovery}

/** A value that does not fit its column (the reader adds file, line and column). */
final class ValueMismatch(message: String) extends RuntimeException(message)

/** Shared state of one reader's writers: the byte budget of the batch being filled. */
final class WriteContext(val o: DrillOptions) {
  var bytes: Long = 0L
  private val textOut = new ByteArrayOutputStream(256)
  private var textGen: JsonGenerator = newTextGen()

  /** Each value is its own text: no root separator between values, and NaN/Infinity are
   * written bare, as they were read (Jackson's defaults write " " and "NaN"). */
  private def newTextGen(): JsonGenerator = {
    val g = WriteContext.TextFactory.createGenerator(textOut)
    g.setRootValueSeparator(null)
    g
  }

  /** Write one value's text; a failure mid-value (malformed input) leaves the generator inside
   * an open structure, so it is replaced before the error goes on. */
  private def text(body: JsonGenerator => Unit): Array[Byte] = {
    textOut.reset()
    try body(textGen) catch {
      case e: Throwable => textGen = newTextGen(); throw e
    }
    textGen.flush()
    textOut.toByteArray
  }

  /** The JSON text of the value under the parser (objects and arrays compact). */
  def jsonText(p: JsonParser): Array[Byte] = text(_.copyCurrentStructure(p))

  /** An extended-JSON wrapper's value as text ($oid, ...), else the object's JSON text. */
  def extendedOrJsonText(p: JsonParser): Array[Byte] = {
    val t1 = p.nextToken()
    if (t1 == JsonToken.FIELD_NAME && SchemaDiscovery.ExtendedKinds.contains(p.currentName())) {
      p.nextToken()
      val text = if (p.currentToken().isScalarValue) p.getText.getBytes(UTF_8) else jsonText(p)
      WriteContext.skipToObjectEnd(p)
      text
    } else text { g =>
      g.writeStartObject()
      var t = t1
      while (t == JsonToken.FIELD_NAME) {
        g.writeFieldName(p.currentName())
        p.nextToken()
        g.copyCurrentStructure(p)
        t = p.nextToken()
      }
      g.writeEndObject()
    }
  }
}

object WriteContext {
  /** JSON text is written as deep as the parser read it (maxDepth is the parser's limit). */
  private val TextFactory: JsonFactory =
    new JsonFactoryBuilder().disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
      .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(DrillOptions.MaxDepth + 1).build())
      .build()

  /** Skip the remaining members of an object whose current token is a member's value (or its
   * last token), up to and including its END_OBJECT. */
  def skipToObjectEnd(p: JsonParser): Unit = {
    var t = p.nextToken()
    while (t != JsonToken.END_OBJECT) { p.nextToken(); p.skipChildren(); t = p.nextToken() }
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
  /** The file being read never gives this map or array a value (Node.fileNullPaths): a null
   * is NULL here, not the empty map or array it is in other files. */
  var fileNull: Boolean = false
  /** Start of a batch (array writers restart their element count). */
  def newBatch(): Unit = ()
  def write(p: JsonParser, t: JsonToken, i: Int): Unit
  /** The byte reader's entry: the value whose first byte `c` was read from `r`; a JSON null
   * is [[writeNull]], any other value [[writeValueBytes]]. */
  def writeBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (c == 'n') { r.nullLiteral(); writeNull(i) } else writeValueBytes(r, c, i)
  /** A non-null value from the byte reader. A writer without one (or a value it does not
   * convert itself) gives the split back to the Jackson path, which then uses `write`. */
  protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit = r.giveUp()
  /** A JSON null or a missing value. */
  def writeNull(i: Int): Unit = { vec.reserve(i + 1); vec.putNull(i); ctx.bytes += slot }
  /** Row `i` of an array or map column: `n` entries starting at `start` in the child vectors. */
  protected final def putEntries(i: Int, start: Int, n: Int): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putArray(i, start, n); ctx.bytes += slot
  }
  /** A null inside an array: Drill writes the type's zero value (0, "", false). */
  def writeElementNull(i: Int): Unit = writeNull(i)
  def copy(src: Vec, from: Int, to: Int): Unit

  private def found(p: JsonParser, t: JsonToken): String = t match {
    case JsonToken.START_OBJECT => "an object"
    case JsonToken.START_ARRAY => "an array"
    case null => "nothing"
    case _ => s"'${p.getText}'"
  }

  /** A value of a kind the column's type cannot hold. */
  protected def mismatch(p: JsonParser, t: JsonToken, what: String): Nothing =
    throw new ValueMismatch(s"${found(p, t)} does not fit column type $what " +
      "(the value did not appear in the records used for discovery: check options sampleRecords and schema)")

  /** A value of the right kind that is out of range or unreadable (`why`). */
  protected def invalid(p: JsonParser, t: JsonToken, what: String, why: String): Nothing =
    throw new ValueMismatch(s"${found(p, t)} does not fit column type $what ($why)")

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
  protected def endExtended(p: JsonParser): Unit = WriteContext.skipToObjectEnd(p)

  /** A JSON integer as a long; one too large for BIGINT does not fit the column. */
  protected def longValue(p: JsonParser, t: JsonToken, what: String): Long =
    try p.getLongValue catch { case _: InputCoercionException => invalid(p, t, what, "out of range") }
}

object ColumnWriter {
  val DefaultKey = "drill.default"

  /** A column's writer; a NOT NULL column (provided schema) fills its default for nulls.
   * `full` is the column's unpruned discovered type when late keys are checked (see
   * [[StructWriter]]), else null. */
  def forField(f: StructField, ctx: WriteContext, full: DataType = null): ColumnWriter = {
    val w = apply(f.dataType, ctx, full)
    if (f.nullable) w else new DefaultWriter(ctx, w, f)
  }

  /** Build the writer tree for a Spark type (`full`: as in [[forField]]). */
  def apply(dt: DataType, ctx: WriteContext, full: DataType = null): ColumnWriter = dt match {
    case LongType => new LongWriter(ctx)
    case IntegerType => new IntWriter(ctx)
    case ShortType => new ShortWriter(ctx)
    case ByteType => new ByteWriter(ctx)
    case DoubleType => new DoubleWriter(ctx)
    case FloatType => new FloatWriter(ctx)
    case BooleanType => new BoolWriter(ctx)
    case StringType | _: VarcharType | _: CharType => new StringWriter(ctx)
    case d: DecimalType => new DecimalWriter(ctx, d)
    case DateType => new DateWriter(ctx)
    case TimestampType | TimestampNTZType => new TimestampWriter(ctx)
    case BinaryType => new BinaryWriter(ctx)
    case VariantType => new VariantWriter(ctx)
    case s: StructType => new StructWriter(ctx, s, full)
    case a: ArrayType => new ArrayWriter(ctx, apply(a.elementType, ctx, full match {
      case fa: ArrayType => fa.elementType
      case _ => null
    }))
    case m: MapType if m.keyType == StringType => new MapWriter(ctx, apply(m.valueType, ctx, full match {
      case fm: MapType => fm.valueType
      case _ => null
    }))
    case other => throw new IllegalArgumentException(
      s"drill: the JSON reader cannot produce type ${other.sql}")
  }

  /** A NOT NULL column's fill value in a one-row vector: its `default` (read as a JSON value,
   * else as a string), else the type's zero. A default that does not fit the type, or that
   * reads as null, is refused naming the column. */
  def fillValue(f: StructField): Vec = {
    val scratch = ScanVectors.allocate(1, new StructType().add(f.copy(nullable = true)))(0)
    val w = apply(f.dataType, new WriteContext(DrillOptions(Nil)))
    w.bind(scratch)
    val default = if (f.metadata.contains(DefaultKey)) Some(f.metadata.getString(DefaultKey)) else None
    def refuse(why: String): Nothing = {
      scratch.close()
      throw new IllegalArgumentException(default match {
        case Some(text) => s"drill: default '$text' of column ${f.name} $why"
        case None => s"drill: NOT NULL column ${f.name} of type ${f.dataType.sql} needs a default"
      })
    }
    default match {
      case None => w.writeElementNull(0)
      case Some(text) =>
        def viaJson(s: String): Unit = {
          val p = DefaultParsers.createParser(s)
          try w.write(p, p.nextToken(), 0) finally p.close()
        }
        try viaJson(text) catch {
          case _: Exception =>
            try viaJson("\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"")
            catch { case _: Exception => refuse(s"does not fit ${f.dataType.sql}") }
        }
    }
    if (scratch.isNullAt(0)) refuse(s"is null as ${f.dataType.sql}; a NOT NULL column needs a value")
    scratch
  }

  private val DefaultParsers = new JsonFactory()
}

/** BIGINT, INT, SMALLINT and TINYINT columns: the same JSON rules (numbers, booleans as 1/0,
 *  numeric strings, extended types), four widths; a value outside the width does not fit. */
sealed abstract class IntegralWriter(
    ctx: WriteContext, typeName: String, min: Long, max: Long, val slot: Int) extends ColumnWriter(ctx) {
  /** Store a value already checked against the column's range. */
  protected def store(i: Int, v: Long): Unit
  protected def get(src: Vec, row: Int): Long
  private def put(i: Int, v: Long): Unit = {
    if (v > max || v < min) throw new ValueMismatch(s"$v does not fit column type $typeName")
    vec.reserve(i + 1); vec.putNotNull(i); store(i, v); ctx.bytes += slot
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NUMBER_INT => put(i, longValue(p, t, typeName))
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
  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (r.isNumber(c)) { if (r.readNumber(c)) put(i, math.round(r.doubleValue(float = true))) else put(i, r.longValue()) }
    else if (c == 't') { r.trueLiteral(); put(i, 1L) }
    else if (c == 'f') { r.falseLiteral(); put(i, 0L) }
    else r.giveUp()
  override def writeElementNull(i: Int): Unit = put(i, 0L)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, get(src, from))
}

final class LongWriter(ctx: WriteContext)
    extends IntegralWriter(ctx, "BIGINT", Long.MinValue, Long.MaxValue, slot = 9) {
  protected def store(i: Int, v: Long): Unit = vec.putLong(i, v)
  protected def get(src: Vec, row: Int): Long = src.getLong(row)
}

final class IntWriter(ctx: WriteContext)
    extends IntegralWriter(ctx, "INT", Int.MinValue, Int.MaxValue, slot = 5) {
  protected def store(i: Int, v: Long): Unit = vec.putInt(i, v.toInt)
  protected def get(src: Vec, row: Int): Long = src.getInt(row).toLong
}

final class ShortWriter(ctx: WriteContext)
    extends IntegralWriter(ctx, "SMALLINT", Short.MinValue, Short.MaxValue, slot = 3) {
  protected def store(i: Int, v: Long): Unit = vec.putShort(i, v.toShort)
  protected def get(src: Vec, row: Int): Long = src.getShort(row).toLong
}

final class ByteWriter(ctx: WriteContext)
    extends IntegralWriter(ctx, "TINYINT", Byte.MinValue, Byte.MaxValue, slot = 2) {
  protected def store(i: Int, v: Long): Unit = vec.putByte(i, v.toByte)
  protected def get(src: Vec, row: Int): Long = src.getByte(row).toLong
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
  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (r.isNumber(c)) put(i, r.doubleValue(r.readNumber(c)))
    else if (c == 't') { r.trueLiteral(); put(i, 1.0) }
    else if (c == 'f') { r.falseLiteral(); put(i, 0.0) }
    else r.giveUp()
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
  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (c == 't') { r.trueLiteral(); put(i, true) }
    else if (c == 'f') { r.falseLiteral(); put(i, false) }
    else if (r.isNumber(c)) put(i, r.doubleValue(r.readNumber(c)) != 0.0)
    else r.giveUp()
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
  private[source] def put(i: Int, b: Array[Byte]): Unit = put(i, b, 0, b.length)
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT if ctx.o.extendedTypes => put(i, ctx.extendedOrJsonText(p))
    case JsonToken.START_OBJECT | JsonToken.START_ARRAY => put(i, ctx.jsonText(p))
    case _ => put(i, p.getText.getBytes(UTF_8))
  }
  private def put(i: Int, b: Array[Byte], from: Int, len: Int): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putByteArray(i, b, from, len); ctx.bytes += len + slot
  }
  /** Strings decoded, other scalars as their text; objects and arrays (JSON text, which is
   * compacted) are the Jackson path's. */
  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (c == '"') { r.readStringValue(); put(i, r.stringBytes, 0, r.stringLen) }
    else if (r.isNumber(c)) { r.readNumber(c); put(i, r.bytes, r.numberFrom, r.numberLen) }
    else if (c == 't') { r.trueLiteral(); put(i, StringWriter.True) }
    else if (c == 'f') { r.falseLiteral(); put(i, StringWriter.False) }
    else r.giveUp()
  override def writeElementNull(i: Int): Unit = put(i, Array.emptyByteArray)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBinary(from))
}

private object StringWriter {
  val True: Array[Byte] = "true".getBytes(UTF_8)
  val False: Array[Byte] = "false".getBytes(UTF_8)
}

final class BinaryWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private def put(i: Int, b: Array[Byte]): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putByteArray(i, b, 0, b.length); ctx.bytes += b.length + slot
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.VALUE_STRING =>
      val b = try java.util.Base64.getDecoder.decode(p.getText.trim) catch {
        case _: IllegalArgumentException => invalid(p, t, "VARBINARY", "not base64")
      }
      put(i, b)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) => write(p, vt, i); endExtended(p)
      case None => mismatch(p, t, "VARBINARY")
    }
    case _ => mismatch(p, t, "VARBINARY")
  }
  override def writeElementNull(i: Int): Unit = put(i, Array.emptyByteArray)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBinary(from))
}

final class DecimalWriter(ctx: WriteContext, dt: DecimalType) extends ColumnWriter(ctx) {
  /** Up to 18 digits a long (or int); wider ones are stored as bytes (8 for offset and length). */
  def slot: Int = 9
  private def put(i: Int, v: java.math.BigDecimal): Unit = {
    val d = try Decimal(v) catch { case _: ArithmeticException => throw new ValueMismatch(s"$v does not fit ${dt.sql}") }
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
  override def writeElementNull(i: Int): Unit = put(i, java.math.BigDecimal.ZERO)
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
    case JsonToken.VALUE_NUMBER_INT => // days since 1970-01-01
      val days = longValue(p, t, "DATE")
      if (days.isValidInt) put(i, days.toInt) else invalid(p, t, "DATE", "out of range")
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) => write(p, vt, i); endExtended(p)
      case None => mismatch(p, t, "DATE")
    }
    case _ => mismatch(p, t, "DATE")
  }
  override def writeElementNull(i: Int): Unit = put(i, 0)
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
    Math.addExact(Math.multiplyExact(inst.getEpochSecond, 1000000L), (inst.getNano / 1000).toLong)
  }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_STRING =>
      val s = p.getText.trim
      if (s.isEmpty) writeNull(i)
      else {
        val us = try parse(s) catch {
          case _: java.time.DateTimeException => mismatch(p, t, "TIMESTAMP")
          case _: ArithmeticException => invalid(p, t, "TIMESTAMP", "out of range")
        }
        put(i, us)
      }
    case JsonToken.VALUE_NUMBER_INT => put(i, micros(p, t, longValue(p, t, "TIMESTAMP")))
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT => extended(p) match {
      case Some((_, vt)) =>
        if (vt == JsonToken.START_OBJECT) { // {"$date": {"$numberLong": "..."}}
          p.nextToken()
          val nt = p.nextToken()
          val ms = nt match {
            case JsonToken.VALUE_NUMBER_INT => longValue(p, nt, "TIMESTAMP")
            case JsonToken.VALUE_STRING =>
              try p.getText.trim.toLong catch { case _: NumberFormatException => invalid(p, nt, "TIMESTAMP", "not epoch milliseconds") }
            case _ => mismatch(p, nt, "TIMESTAMP")
          }
          put(i, micros(p, nt, ms)); endExtended(p)
        } else write(p, vt, i)
        endExtended(p)
      case None => mismatch(p, t, "TIMESTAMP")
    }
    case _ => mismatch(p, t, "TIMESTAMP")
  }
  /** Epoch milliseconds as microseconds. */
  private def micros(p: JsonParser, t: JsonToken, ms: Long): Long =
    try Math.multiplyExact(ms, 1000L) catch { case _: ArithmeticException => invalid(p, t, "TIMESTAMP", "out of range") }
  override def writeElementNull(i: Int): Unit = put(i, 0L)
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
    else {
      val (v, m) = try ScanVectors.parseVariant(p) catch {
        case e: RuntimeException if VariantErrors.isSizeLimit(e) => invalid(p, t, "VARIANT", "larger than Spark's variant size limit")
      }
      put(i, v, m)
    }
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
 *
 * `full` is the unpruned struct discovery found at this path, given only when discovery was
 * sampled (sampleRecords) and no provided schema types the path: a key outside it first
 * appeared after the sampled records and has no column, so the record is refused (or skipped
 * with skipInvalidRecords) rather than losing the value silently.
 */
class StructWriter(ctx: WriteContext, val schema: StructType, full: DataType = null) extends ColumnWriter(ctx) {
  private val fullStruct: StructType = full match {
    case s: StructType if ctx.o.sampleRecords >= 0 => s
    case _ => null
  }
  /** Folded keys (Names.fold) discovery saw at this path (null: not checked). */
  private val known: java.util.HashSet[String] =
    if (fullStruct == null) null
    else new java.util.HashSet[String](fullStruct.fieldNames.map(Names.fold).toSeq.asJava)
  val children: Array[ColumnWriter] = {
    // the sampled types by folded name (a linear search per field was quadratic in width)
    val sampled = new JHashMap[String, DataType]()
    if (fullStruct != null) fullStruct.fields.reverseIterator.foreach(f => sampled.put(Names.fold(f.name), f.dataType))
    schema.fields.map(f => ColumnWriter.forField(f, ctx, if (fullStruct == null) null else sampled.get(Names.fold(f.name))))
  }
  private val exact = new JHashMap[String, Integer]()
  private val lower = new JHashMap[String, Integer]()
  schema.fields.zipWithIndex.foreach { case (f, i) =>
    exact.put(f.name, i)
    lower.putIfAbsent(Names.fold(f.name), i)
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
   * keys: -1, late keys: [[StructWriter.Late]]) are remembered too, so skipping a key costs
   * one lookup. */
  protected def index(name: String): Int = {
    val ix = exact.get(name)
    if (ix != null) return ix.intValue
    val lname = Names.fold(name)
    val lo = lower.get(lname)
    val found =
      if (lo != null) lo.intValue
      else if (known != null && !known.contains(lname)) StructWriter.Late
      else -1
    if (exact.size < Node.SpellingCacheSize) exact.put(name, found)
    found
  }

  /** A key with no column: skipped, unless it appeared only after the sampled records. */
  private def skipMember(p: JsonParser, ix: Int): Unit = {
    if (ix == StructWriter.Late) throw new ValueMismatch(
      s"key '${p.currentName()}' did not appear in the records used for discovery " +
        s"(option sampleRecords=${ctx.o.sampleRecords}), so it has no column: raise sampleRecords " +
        "or name it in the provided schema (option schema)")
    p.skipChildren()
  }

  /** Write the members of the object whose START_OBJECT is current. */
  def writeMembers(p: JsonParser, i: Int): Unit = {
    java.util.Arrays.fill(seen, false)
    var t = p.nextToken()
    while (t == JsonToken.FIELD_NAME) {
      val ix = index(p.currentName())
      val vt = p.nextToken()
      if (ix < 0) skipMember(p, ix)
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
      if (ix < 0) skipMember(p, ix)
      else if (rejected && !f.reads(ix)) p.skipChildren()
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
    case JsonToken.VALUE_STRING => writeEmpty(i) // Drill: a string where a map was is {} (DRILL-7821)
    case _ => mismatch(p, t, schema.simpleString)
  }

  /** The empty map {} (Drill's maps are never null: their members are). */
  private def writeEmpty(i: Int): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); ctx.bytes += slot
    children.foreach(_.writeNull(i))
  }

  /** Mark the maps and arrays under this struct that the file being read never gives a value
   * (`paths` as [[Node.fileNullPaths]] makes them; `prefix`: this struct's path). */
  def markFileNulls(paths: java.util.Set[String], prefix: String): Unit = {
    var c = 0
    while (c < children.length) {
      val name = Names.fold(schema.fields(c).name)
      val path = if (prefix.isEmpty) name else s"$prefix${Node.PathSep}$name"
      StructWriter.markFileNulls(children(c), paths, path)
      c += 1
    }
  }

  /** For the byte reader: each spelling met at this path with its column, by its bytes. */
  private val byName = new KeyIndex[StructWriter.Name]
  /** The name that came first in the last object read (see [[StructWriter.Name.next]]). */
  private var firstName: StructWriter.Name = _

  /** The current member name of `r`, after `prev` (null: the first). Objects mostly repeat
   * their members' order, so the name that followed `prev` last time is tried first (one
   * word compare), then the table. */
  private def nameOf(r: ByteReader, prev: StructWriter.Name): StructWriter.Name = {
    val guess = if (prev == null) firstName else prev.next
    if (guess != null && r.nameIs(guess.spelling, guess.word)) return guess
    val b = r.bytes
    val h = r.nameHash
    var nm = byName.get(h, r.nameWord, b, r.nameFrom, r.nameLen)
    if (nm == null) {
      val spelling = java.util.Arrays.copyOfRange(b, r.nameFrom, r.nameFrom + r.nameLen)
      nm = new StructWriter.Name(spelling, r.nameWord, index(new String(spelling, UTF_8)))
      byName.put(h, r.nameWord, spelling, nm)
    }
    if (prev == null) firstName = nm else prev.next = nm
    nm
  }

  /** [[writeMembers]] from the byte reader, after the object's '{'. */
  def writeMembersBytes(r: ByteReader, i: Int): Unit = {
    java.util.Arrays.fill(seen, false)
    var prev: StructWriter.Name = null
    var more = r.firstMember()
    while (more) {
      prev = nameOf(r, prev)
      val ix = prev.ix
      val c = r.value()
      if (ix >= 0) { children(ix).writeBytes(r, c, i); seen(ix) = true }
      else if (ix == StructWriter.Late) r.giveUp() // the Jackson path names the key
      else r.skip(c)
      more = r.nextMember()
    }
    var c = 0
    while (c < children.length) { if (!seen(c)) children(c).writeNull(i); c += 1 }
  }

  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (c == '{') {
      r.enter()
      vec.reserve(i + 1); vec.putNotNull(i); ctx.bytes += slot
      writeMembersBytes(r, i)
      r.leave()
    } else if (c == '"') { r.skip(c); writeEmpty(i) }
    else r.giveUp()
  override def writeNull(i: Int): Unit =
    if (fileNull) {
      vec.reserve(i + 1); vec.putNull(i); ctx.bytes += slot
      children.foreach(_.writeNull(i))
    } else writeEmpty(i)
  def copy(src: Vec, from: Int, to: Int): Unit = {
    vec.reserve(to + 1)
    if (src.isNullAt(from)) vec.putNull(to) else vec.putNotNull(to)
    var c = 0
    while (c < children.length) { children(c).copy(src.getChild(c).asInstanceOf[Vec], from, to); c += 1 }
  }
}

object StructWriter {
  private[source] def markFileNulls(w: ColumnWriter, paths: java.util.Set[String], path: String): Unit = {
    w.fileNull = paths.contains(path)
    w match {
      case s: StructWriter => s.markFileNulls(paths, path)
      case a: ArrayWriter => markFileNulls(a.elem, paths, s"$path${Node.PathSep}[]")
      case d: DefaultWriter => markFileNulls(d.inner, paths, path)
      case _ => ()
    }
  }

  /** [[StructWriter.index]] of a key discovery never saw (sampled discovery only). */
  final val Late = -2

  /** A member name's spelling as bytes (first 8 as `word`), its column `ix` (as
   * [[StructWriter.index]] gives it), and the name that followed it last time. */
  final class Name(val spelling: Array[Byte], val word: Long, val ix: Int) {
    var next: Name = _
  }
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
  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (c == '[') {
      r.enter()
      val start = next
      var e = r.firstElement()
      while (e != ByteReader.End) {
        val at = next
        next += 1
        if (e == 'n') { r.nullLiteral(); elem.writeElementNull(at) } else elem.writeBytes(r, e, at)
        e = r.nextElement()
      }
      putEntries(i, start, next - start)
      r.leave()
    } else r.giveUp()
  override def writeNull(i: Int): Unit =
    if (fileNull) { vec.reserve(i + 1); vec.putNull(i); vec.putArray(i, next, 0); ctx.bytes += slot }
    else putEntries(i, next, 0)
  def copy(src: Vec, from: Int, to: Int): Unit = {
    if (src.isNullAt(from)) { vec.reserve(to + 1); vec.putNull(to); vec.putArray(to, next, 0); ctx.bytes += slot; return }
    val n = src.getArrayLength(from)
    val off = src.getArrayOffset(from)
    val start = next
    next += n
    var j = 0
    while (j < n) { elem.copy(src.arrayData().asInstanceOf[Vec], off + j, start + j); j += 1 }
    putEntries(to, start, n)
  }
}

/** MAP<VARCHAR, T> from a provided schema: every member of the object is one entry; a
 * duplicate key keeps its first position and its last value (last wins, as everywhere). */
final class MapWriter(ctx: WriteContext, val value: ColumnWriter) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private val key = new StringWriter(ctx)
  private val entryOf = new JHashMap[String, Integer]()
  private var next = 0
  override def bind(v: Vec): Unit = {
    vec = v; key.bind(v.getChild(0).asInstanceOf[Vec]); value.bind(v.getChild(1).asInstanceOf[Vec])
  }
  override def newBatch(): Unit = { next = 0; value.newBatch() }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.START_OBJECT =>
      val start = next
      entryOf.clear()
      var e = p.nextToken()
      while (e == JsonToken.FIELD_NAME) {
        val name = p.currentName()
        val prev = entryOf.putIfAbsent(name, next)
        if (prev == null) {
          key.put(next, name.getBytes(UTF_8))
          value.write(p, p.nextToken(), next)
          next += 1
        } else value.write(p, p.nextToken(), prev.intValue) // overwrites the earlier value
        e = p.nextToken()
      }
      putEntries(i, start, next - start)
    case JsonToken.VALUE_NULL => writeNull(i)
    case _ => mismatch(p, t, "MAP")
  }
  override def writeNull(i: Int): Unit =
    if (fileNull) { vec.reserve(i + 1); vec.putNull(i); vec.putArray(i, next, 0); ctx.bytes += slot }
    else putEntries(i, next, 0)
  def copy(src: Vec, from: Int, to: Int): Unit = {
    if (src.isNullAt(from)) { vec.reserve(to + 1); vec.putNull(to); vec.putArray(to, next, 0); ctx.bytes += slot; return }
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
 * A NOT NULL column of a provided schema: a missing or null value, and one its type reads as
 * null (an empty string in a number column), becomes the column's `default` (Drill's
 * `default '...'`), else the type's zero value (0, "", false, empty array): Spark trusts the
 * column to hold no nulls.
 */
final class DefaultWriter(ctx: WriteContext, val inner: ColumnWriter, f: StructField)
  extends ColumnWriter(ctx) {
  private val fill: Vec = ColumnWriter.fillValue(f)
  def slot: Int = inner.slot
  override def rowSlot: Int = inner.rowSlot
  override def bind(v: Vec): Unit = { vec = v; inner.bind(v) }
  override def newBatch(): Unit = inner.newBatch()
  def write(p: JsonParser, t: JsonToken, i: Int): Unit =
    if (t == JsonToken.VALUE_NULL) writeNull(i) else orFill(i)(inner.write(p, t, i))
  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    orFill(i)(inner.writeBytes(r, c, i))
  /** Write a non-null value; one the type reads as null (an empty string in a number column)
   * is replaced by the fill value. */
  private def orFill(i: Int)(writeValue: => Unit): Unit = {
    val before = ctx.bytes
    writeValue
    if (vec.isNullAt(i)) { ctx.bytes = before; writeNull(i) }
  }
  override def writeNull(i: Int): Unit = inner.copy(fill, 0, i)
  override def writeElementNull(i: Int): Unit = writeNull(i)
  def copy(src: Vec, from: Int, to: Int): Unit = inner.copy(src, from, to)
}
