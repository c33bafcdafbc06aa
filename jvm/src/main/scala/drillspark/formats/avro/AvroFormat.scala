package drillspark.formats.avro

import java.math.{BigDecimal => JBigDecimal, BigInteger}
import java.nio.ByteBuffer
import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.Schema.Type
import org.apache.avro.file.DataFileStream
import org.apache.avro.generic.{GenericDatumReader, GenericFixed, GenericRecord, IndexedRecord}
import org.apache.avro.util.Utf8
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-avro")`: Avro container files as Drill 1.22 reads them. */
final class AvroSource extends FormatSource {
  override def reader: FormatReader = AvroFormat
}

/**
 * Drill's `avro` format, read with Avro's own library. Drill's mapping (pinned against Drill
 * 1.22 in tests/formats/test_avro.py): record -> MAP (struct), array -> ARRAY, map -> DICT
 * (Spark map of strings), enum -> VARCHAR, fixed and bytes -> VARBINARY, `null` -> VARCHAR,
 * a union of one type with null -> that type, nullable (a field of any other type is NOT NULL);
 * logical types: decimal -> VARDECIMAL, date -> DATE, time-millis/-micros -> TIME (Drill keeps
 * milliseconds), timestamp-* -> TIMESTAMP (UTC wall clock), local-timestamp-* -> BIGINT (Drill
 * 1.22 knows no such logical type), uuid -> VARCHAR; a null array is empty. Any other union is refused in Drill's words. The columns of a table are the first
 * file's, then each later file's new ones; one column's type must agree across files.
 */
object AvroFormat extends FormatReader {
  override val typeName = "avro"
  override val extensions: Seq[String] = Seq("avro")

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    var fields = Vector.empty[StructField]
    files.zipWithIndex.foreach { case (f, k) =>
      val own = sparkStruct(fileSchema(f, conf), f.path)
      own.fields.foreach { field =>
        fields.indexWhere(_.name.equalsIgnoreCase(field.name)) match {
          case -1 => fields :+= (if (k == 0) field else field.copy(nullable = true))
          case i if fields(i).dataType == field.dataType =>
            if (field.nullable) fields = fields.updated(i, fields(i).copy(nullable = true))
          case i => throw FormatErrors.badData(typeName, f.path, s"column ${field.name}",
            s"its type ${field.dataType.sql} differs from ${fields(i).dataType.sql} in the table's earlier files")
        }
      }
      // a column an earlier file has and this one lacks is null here
      fields = fields.map(c => if (own.fields.exists(_.name.equalsIgnoreCase(c.name))) c else c.copy(nullable = true))
    }
    StructType(fields)
  }

  private def open(f: InputFile, conf: Configuration): DataFileStream[GenericRecord] = {
    val p = new Path(f.path)
    val in = p.getFileSystem(conf).open(p)
    try new DataFileStream[GenericRecord](in, new GenericDatumReader[GenericRecord]())
    catch {
      case NonFatal(e) =>
        in.close()
        throw FormatErrors.badData(typeName, f.path, "header", s"not an Avro container file (${FormatErrors.describe(e)})")
    }
  }

  private def fileSchema(f: InputFile, conf: Configuration): Schema = {
    val s = open(f, conf)
    try s.getSchema finally s.close()
  }

  /** The columns of a file's top-level schema, which must be a record. */
  def sparkStruct(s: Schema, file: String): StructType = {
    if (s.getType != Type.RECORD) throw FormatErrors.badData(typeName, file, "schema",
      s"the top-level schema is ${s.getType.getName.toLowerCase(Locale.ROOT)}, not a record")
    StructType(s.getFields.asScala.map(f => field(f.name, f.schema, file)).toSeq)
  }

  private def field(name: String, s: Schema, file: String): StructField = {
    val (inner, nullable) = unwrap(s, name, file)
    StructField(name, sparkType(inner, name, file), nullable)
  }

  /** A union with null (or of one type) as its type and whether it may be null. */
  private def unwrap(s: Schema, column: String, file: String): (Schema, Boolean) = s.getType match {
    case Type.UNION =>
      val types = s.getTypes.asScala.toSeq
      types.filterNot(_.getType == Type.NULL) match {
        case Seq() => (Schema.create(Type.NULL), true)
        case Seq(one) => (one, types.size > 1)
        case _ => throw FormatErrors.badData(typeName, file, s"column $column",
          "UNSUPPORTED_OPERATION ERROR: 'complex union' type is not supported")
      }
    case Type.NULL => (s, true)
    case _ => (s, false)
  }

  private def sparkType(s: Schema, column: String, file: String): DataType = {
    Option(s.getLogicalType).map(_.getName) match {
      case Some("decimal") =>
        val d = s.getLogicalType.asInstanceOf[LogicalTypes.Decimal]
        return DecimalType(math.min(d.getPrecision, DecimalType.MAX_PRECISION), math.min(d.getScale, DecimalType.MAX_SCALE))
      case Some("date") if s.getType == Type.INT => return DateType
      case Some("time-millis" | "time-micros") => return TimeType(3)
      // Drill 1.22 reads local-timestamp-millis/micros as their BIGINT, not as timestamps
      case Some(t) if t.startsWith("timestamp-") => return TimestampNTZType
      case _ =>
    }
    s.getType match {
      case Type.RECORD => StructType(s.getFields.asScala.map(f => field(f.name, f.schema, file)).toSeq)
      case Type.ARRAY =>
        val (e, n) = unwrap(s.getElementType, column, file)
        ArrayType(sparkType(e, column, file), n)
      case Type.MAP =>
        val (v, n) = unwrap(s.getValueType, column, file)
        MapType(StringType, sparkType(v, column, file), n)
      case Type.UNION => sparkType(unwrap(s, column, file)._1, column, file)
      case Type.ENUM | Type.STRING | Type.NULL => StringType
      case Type.FIXED | Type.BYTES => BinaryType
      case Type.INT => IntegerType
      case Type.LONG => LongType
      case Type.FLOAT => FloatType
      case Type.DOUBLE => DoubleType
      case Type.BOOLEAN => BooleanType
    }
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType,
      conf: Configuration): Iterator[InternalRow] = {
    val stream = open(file, conf)
    val fileSchema = stream.getSchema
    val indexes = schema.fields.map(f => fileSchema.getFields.asScala.indexWhere(_.name.equalsIgnoreCase(f.name)))
    val converters = schema.fields.zip(indexes).map { case (f, i) =>
      if (i < 0) null else converter(fileSchema.getFields.get(i).schema, f.dataType)
    }
    new Iterator[InternalRow] with AutoCloseable {
      private var record: GenericRecord = _
      private var n = 0L
      private var closed = false
      override def hasNext: Boolean = !closed && {
        val more = guard(stream.hasNext)
        // Avro's stream ends quietly at a block cut short (an EOF inside it); a second look
        // then still sees that block's records pending: the file is truncated
        if (!more && guard(stream.hasNext)) {
          close()
          throw FormatErrors.badData(typeName, file.path, s"record ${n + 1}",
            "the file ends inside a block of records: it is truncated")
        }
        if (!more) close()
        more
      }
      override def next(): InternalRow = {
        record = guard(stream.next(record))
        n += 1
        val out = new Array[Any](schema.size)
        var c = 0
        while (c < out.length) {
          if (indexes(c) >= 0) out(c) = guard(converters(c)(record.get(indexes(c))))
          c += 1
        }
        new GenericInternalRow(out)
      }
      private def guard[T](body: => T): T =
        try body
        catch { case NonFatal(e) =>
          close()
          throw FormatErrors.badData(typeName, file.path, s"record ${n + 1}", FormatErrors.describe(e))
        }
      override def close(): Unit = if (!closed) { closed = true; stream.close() }
    }
  }

  /** A function from an Avro value of schema `s` to Spark's internal value of `dt`. */
  private def converter(s: Schema, dt: DataType): AnyRef => Any = {
    val inner = if (s.getType == Type.UNION) s.getTypes.asScala.find(_.getType != Type.NULL).getOrElse(s) else s
    val logical = Option(inner.getLogicalType).map(_.getName).getOrElse("")
    def nullSafe(f: AnyRef => Any): AnyRef => Any = v => if (v == null) null else f(v)
    (dt, logical) match {
      case (d: DecimalType, _) => nullSafe { v =>
        val scale = inner.getLogicalType.asInstanceOf[LogicalTypes.Decimal].getScale
        val bytes = v match {
          case b: ByteBuffer => val dup = b.duplicate(); val a = new Array[Byte](dup.remaining()); dup.get(a); a
          case f: GenericFixed => f.bytes()
        }
        Decimal(new JBigDecimal(new BigInteger(bytes), scale), d.precision, d.scale)
      }
      case (_: TimeType, "time-millis") => nullSafe(v => v.asInstanceOf[Integer].longValue * 1000000L)
      case (_: TimeType, _) => nullSafe(v => v.asInstanceOf[java.lang.Long].longValue / 1000L * 1000000L)
      case (TimestampNTZType, l) if l.endsWith("-millis") => nullSafe(v => v.asInstanceOf[java.lang.Long].longValue * 1000L)
      case (TimestampNTZType, l) if l.endsWith("-nanos") => nullSafe(v => Math.floorDiv(v.asInstanceOf[java.lang.Long].longValue, 1000L))
      case (TimestampNTZType, _) => nullSafe(identity)
      case (StringType, _) => nullSafe {
        case u: Utf8 => UTF8String.fromBytes(u.getBytes, 0, u.getByteLength)
        case other => UTF8String.fromString(other.toString)
      }
      case (BinaryType, _) => nullSafe {
        case b: ByteBuffer => val dup = b.duplicate(); val a = new Array[Byte](dup.remaining()); dup.get(a); a
        case f: GenericFixed => f.bytes().clone()
      }
      case (st: StructType, _) =>
        val fs = inner.getFields.asScala.toIndexedSeq
        val convs = st.fields.zip(fs).map { case (f, af) => converter(af.schema, f.dataType) }
        nullSafe { v =>
          val r = v.asInstanceOf[IndexedRecord]
          val out = new Array[Any](convs.length)
          var i = 0
          while (i < out.length) { out(i) = convs(i)(r.get(i)); i += 1 }
          new GenericInternalRow(out)
        }
      case (ArrayType(et, _), _) =>
        val conv = converter(inner.getElementType, et)
        // a null array (a union with null) is empty, as in Drill, whose arrays are never NULL
        v => new GenericArrayData(if (v == null) Array.empty[Any]
          else v.asInstanceOf[java.util.Collection[AnyRef]].asScala.map(conv).toArray)
      case (MapType(_, vt, _), _) =>
        val conv = converter(inner.getValueType, vt)
        nullSafe { v =>
          val m = v.asInstanceOf[java.util.Map[AnyRef, AnyRef]].asScala.toSeq
          ArrayBasedMapData(m.map(kv => UTF8String.fromString(kv._1.toString): Any).toArray, m.map(kv => conv(kv._2)).toArray)
        }
      case _ => nullSafe(identity)
    }
  }
}
