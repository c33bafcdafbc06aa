package drillspark.source.write

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec

/**
 * VARCHAR: strings as they are; other scalars as their JSON text (mixed-kind columns and
 * allTextMode); objects and arrays as compact JSON text (scalar-vs-complex conflicts), which
 * only the Jackson path writes (the byte reader hands such a value over).
 */
final class StringWriter(ctx: WriteContext) extends ScalarWriter(ctx) {
  def slot: Int = 9
  protected def typeName: String = "VARCHAR"
  private[write] def put(i: Int, b: Array[Byte]): Unit = put(i, b, 0, b.length)
  override def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.START_OBJECT if ctx.o.extendedTypes => put(i, ctx.extendedOrJsonText(p))
    case JsonToken.START_OBJECT | JsonToken.START_ARRAY =>
      if (checked) mismatch(p, t, typeName) // reading every record would make this JSON text
      put(i, ctx.jsonText(p))
    case _ => super.write(p, t, i)
  }
  private def put(i: Int, b: Array[Byte], from: Int, len: Int): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putByteArray(i, b, from, len); ctx.bytes += len + slot
  }
  protected def writeScalar(s: Scalar, i: Int): Unit = { s.utf8(); put(i, s.textBytes, s.textFrom, s.textLen) }
  override def writeElementNull(i: Int): Unit = put(i, Array.emptyByteArray)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBinary(from))
}

/** VARBINARY: a base64 string (`$binary` with extendedTypes); anything else does not fit. */
final class BinaryWriter(ctx: WriteContext) extends ScalarWriter(ctx) {
  def slot: Int = 9
  protected def typeName: String = "VARBINARY"
  private def put(i: Int, b: Array[Byte]): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); vec.putByteArray(i, b, 0, b.length); ctx.bytes += b.length + slot
  }
  protected def writeScalar(s: Scalar, i: Int): Unit =
    if (s.kind != Scalar.Text) mismatch(s, typeName)
    else {
      val b = try java.util.Base64.getDecoder.decode(s.text.trim) catch {
        case _: IllegalArgumentException => invalid(s, typeName, "not base64")
      }
      put(i, b)
    }
  override def writeElementNull(i: Int): Unit = put(i, Array.emptyByteArray)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBinary(from))
}
