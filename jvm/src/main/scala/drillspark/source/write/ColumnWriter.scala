package drillspark.source.write

import com.fasterxml.jackson.core.{JsonFactory, JsonParser, JsonToken}
import com.fasterxml.jackson.core.io.JsonStringEncoder
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types._

import drillspark.source.DrillOptions
import drillspark.source.bytes.ByteReader
import drillspark.source.discovery.{Node, SchemaDiscovery}

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
  /** Only with exactSample (set with `fileNull`): the file's sample gave no value here
   * (`fileNull`, or the elements of an array it saw only empty), so a value here is a misfit:
   * reading every record would have typed it by this file too. */
  var unseen: Boolean = false
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
  protected def mismatch(p: JsonParser, t: JsonToken, what: String): Nothing = ColumnWriter.mismatch(found(p, t), what)
  protected def mismatch(s: Scalar, what: String): Nothing = ColumnWriter.mismatch(s.found, what)

  /** A value of the right kind that is out of range or unreadable (`why`). */
  protected def invalid(p: JsonParser, t: JsonToken, what: String, why: String): Nothing =
    throw new ValueMismatch(s"${found(p, t)} does not fit column type $what ($why)")
  protected def invalid(s: Scalar, what: String, why: String): Nothing =
    throw new ValueMismatch(s"${s.found} does not fit column type $what ($why)")

  /** exactSample: `what` was read where the sample saw something else (the reader marks it
   * [[DrillOptions.SampleMisfit]] and the caller reads again without a sample). */
  protected def unsampled(what: String): Nothing =
    throw new ValueMismatch(s"$what (option exactSample: the records used for discovery did not show it)")

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
}

object ColumnWriter {
  val DefaultKey = "drill.default"

  private def mismatch(found: String, what: String): Nothing =
    throw new ValueMismatch(s"$found does not fit column type $what " +
      "(the value did not appear in the records used for discovery: check options sampleRecords and schema)")

  /** A column's writer; a NOT NULL column (provided schema) fills its default for nulls.
   * `full` is the column's unpruned discovered type when late keys are checked (see
   * [[StructWriter]]), else null. */
  def forField(f: StructField, ctx: WriteContext, full: DataType = null): ColumnWriter = {
    val w = apply(f.dataType, ctx, full)
    if (f.nullable) w else new DefaultWriter(ctx, w, f)
  }

  /** Build the writer tree for a Spark type (`full`: as in [[forField]]). */
  def apply(dt: DataType, ctx: WriteContext, full: DataType = null): ColumnWriter = writer(dt, ctx, full) match {
    case s: ScalarWriter if ctx.o.exactSample && full != null => s.expect(full); s
    case w => w
  }

  private def writer(dt: DataType, ctx: WriteContext, full: DataType): ColumnWriter = dt match {
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
    case _: TimeType => new TimeWriter(ctx)
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

/**
 * A column of a scalar type. Its conversion of a JSON scalar (Drill's rules, e.g. a float into
 * BIGINT rounds, booleans are 1/0, numeric strings parse) is [[writeScalar]], written once and
 * called by both input paths: the Jackson path for a scalar token (after nulls and extended-type
 * wrappers), the byte reader for a scalar it read (objects and arrays give the split back).
 */
abstract class ScalarWriter(ctx: WriteContext) extends ColumnWriter(ctx) {
  /** The column type as messages name it. */
  protected def typeName: String
  /** The non-null scalar `s` into row `i` (or a mismatch naming [[typeName]]). */
  protected def writeScalar(s: Scalar, i: Int): Unit
  /** Extended-JSON wrappers (`{"$numberLong": "5"}`, option extendedTypes) hold this type. */
  protected def takesExtended: Boolean = true
  /** exactSample: by [[Scalar]] kind, whether a value leaves the sampled type as it is (see
   * [[drillspark.source.discovery.Node.keepsType]]); null: every kind is converted. */
  private var keeps: Array[Boolean] = _
  private[write] def expect(sampled: DataType): Unit = keeps = Array(
    Scalar.Integer -> Node.BIGINT, Scalar.Float -> Node.DOUBLE, Scalar.Text -> Node.STRING,
    Scalar.True -> Node.BOOL, Scalar.False -> Node.BOOL).sortBy(_._1).map(k => Node.keepsType(sampled, k._2, ctx.o))
  /** Whether `expect` was given a sampled type: then an object or array here is a misfit too. */
  protected final def checked: Boolean = keeps != null
  private def scalar(s: Scalar, i: Int): Unit = {
    if (keeps != null && !keeps(s.kind)) mismatch(s, typeName)
    writeScalar(s, i)
  }

  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.START_OBJECT if takesExtended => extended(p) match {
      case Some((_, vt)) => writeExtended(p, vt, i)
      case None => mismatch(p, t, typeName)
    }
    case JsonToken.VALUE_NUMBER_INT | JsonToken.VALUE_NUMBER_FLOAT | JsonToken.VALUE_STRING |
         JsonToken.VALUE_TRUE | JsonToken.VALUE_FALSE => scalar(ctx.jackson.at(p, t), i)
    case _ => mismatch(p, t, typeName)
  }

  /** An extended wrapper's value, whose first token `vt` is current; skips the wrapper's rest. */
  protected def writeExtended(p: JsonParser, vt: JsonToken, i: Int): Unit = { write(p, vt, i); endExtended(p) }

  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (ctx.fromBytes.read(r, c)) scalar(ctx.fromBytes, i) else r.giveUp()
}
