package drillspark.source.write

import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec

/** BOOLEAN: true and false; a number is true unless 0; a string is true when it says so in any
 * case (an empty string is null); extended-type wrappers hold no boolean. */
final class BoolWriter(ctx: WriteContext) extends ScalarWriter(ctx) {
  def slot: Int = 2
  protected def typeName: String = "BOOLEAN"
  override protected def takesExtended: Boolean = false
  private def put(i: Int, v: Boolean): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putBoolean(i, v); ctx.bytes += slot }
  protected def writeScalar(s: Scalar, i: Int): Unit = s.kind match {
    case Scalar.True => put(i, true)
    case Scalar.False => put(i, false)
    case Scalar.Integer | Scalar.Float => put(i, s.doubleValue != 0.0)
    case _ =>
      val text = s.text.trim
      if (text.isEmpty) writeNull(i) else put(i, java.lang.Boolean.parseBoolean(text))
  }
  override def writeElementNull(i: Int): Unit = put(i, false)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getBoolean(from))
}
