package drillspark.source.write

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import org.apache.spark.sql.drillspark.compat.{ScanVectors, VariantErrors}
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec

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
