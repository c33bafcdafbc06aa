package drillspark.source.write

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types.StructField

import drillspark.source.bytes.ByteReader

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
