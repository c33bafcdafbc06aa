package drillspark.source.write

import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types.{Decimal, DecimalType}

/**
 * BIGINT, INT, SMALLINT and TINYINT columns: one rule (an integer as it is, a float rounded,
 * booleans 1/0, a numeric string parsed, an empty string null), four widths; a value outside
 * the width does not fit.
 */
sealed abstract class IntegralWriter(
    ctx: WriteContext, protected val typeName: String, min: Long, max: Long, val slot: Int) extends ScalarWriter(ctx) {
  /** Store a value already checked against the column's range. */
  protected def store(i: Int, v: Long): Unit
  protected def get(src: Vec, row: Int): Long
  private def put(i: Int, v: Long): Unit = {
    if (v > max || v < min) throw new ValueMismatch(s"$v does not fit column type $typeName")
    vec.reserve(i + 1); vec.putNotNull(i); store(i, v); ctx.bytes += slot
  }
  protected def writeScalar(s: Scalar, i: Int): Unit = s.kind match {
    case Scalar.Integer => put(i, s.longValue(typeName))
    case Scalar.Float => put(i, math.round(s.doubleValue))
    case Scalar.True => put(i, 1L)
    case Scalar.False => put(i, 0L)
    case _ =>
      val text = s.text.trim
      if (text.isEmpty) writeNull(i)
      else try put(i, text.toLong) catch { case _: NumberFormatException => mismatch(s, typeName) }
  }
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

/**
 * DOUBLE and FLOAT columns: one rule (a number's double value, booleans 1.0/0.0, a string
 * parsed as Java does, NaN and Infinity included, an empty string null); FLOAT stores the
 * double rounded to float.
 */
sealed abstract class FloatingWriter(ctx: WriteContext) extends ScalarWriter(ctx) {
  protected def store(i: Int, v: Double): Unit
  private def put(i: Int, v: Double): Unit = { vec.reserve(i + 1); vec.putNotNull(i); store(i, v); ctx.bytes += slot }
  protected def writeScalar(s: Scalar, i: Int): Unit = s.kind match {
    case Scalar.Integer | Scalar.Float => put(i, s.doubleValue)
    case Scalar.True => put(i, 1.0)
    case Scalar.False => put(i, 0.0)
    case _ =>
      val text = s.text.trim
      if (text.isEmpty) writeNull(i)
      else try put(i, text.toDouble) catch { case _: NumberFormatException => mismatch(s, typeName) }
  }
  override def writeElementNull(i: Int): Unit = put(i, 0.0)
}

final class DoubleWriter(ctx: WriteContext) extends FloatingWriter(ctx) {
  def slot: Int = 9
  protected def typeName: String = "DOUBLE"
  protected def store(i: Int, v: Double): Unit = vec.putDouble(i, v)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else { vec.reserve(to + 1); vec.putNotNull(to); store(to, src.getDouble(from)); ctx.bytes += slot }
}

final class FloatWriter(ctx: WriteContext) extends FloatingWriter(ctx) {
  def slot: Int = 5
  protected def typeName: String = "FLOAT"
  protected def store(i: Int, v: Double): Unit = vec.putFloat(i, v.toFloat)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else { vec.reserve(to + 1); vec.putNotNull(to); vec.putFloat(to, src.getFloat(from)); ctx.bytes += slot }
}

/** DECIMAL(p, s): a number's exact value, a numeric string parsed, an empty string null; a
 * value that does not fit the precision does not fit the column. */
final class DecimalWriter(ctx: WriteContext, dt: DecimalType) extends ScalarWriter(ctx) {
  /** Up to 18 digits a long (or int); wider ones are stored as bytes (8 for offset and length). */
  def slot: Int = 9
  protected def typeName: String = dt.sql
  private def put(i: Int, v: java.math.BigDecimal): Unit = {
    val d = try Decimal(v) catch { case _: ArithmeticException => throw new ValueMismatch(s"$v does not fit ${dt.sql}") }
    if (!d.changePrecision(dt.precision, dt.scale)) throw new ValueMismatch(s"$v does not fit ${dt.sql}")
    vec.reserve(i + 1); vec.putNotNull(i); vec.putDecimal(i, d, dt.precision)
    ctx.bytes += slot + (if (dt.precision > Decimal.MAX_LONG_DIGITS) 16 else 0)
  }
  protected def writeScalar(s: Scalar, i: Int): Unit = s.kind match {
    case Scalar.Integer | Scalar.Float => put(i, s.decimalValue)
    case Scalar.Text =>
      val text = s.text.trim
      if (text.isEmpty) writeNull(i)
      else try put(i, new java.math.BigDecimal(text)) catch { case _: NumberFormatException => mismatch(s, typeName) }
    case _ => mismatch(s, typeName)
  }
  override def writeElementNull(i: Int): Unit = put(i, java.math.BigDecimal.ZERO)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to)
    else put(to, src.getDecimal(from, dt.precision, dt.scale).toJavaBigDecimal)
}
