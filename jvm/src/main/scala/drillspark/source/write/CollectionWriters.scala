package drillspark.source.write

import java.nio.charset.StandardCharsets.UTF_8
import java.util.{HashMap => JHashMap}

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec

import drillspark.source.bytes.ByteReader

/** A repeated value: elements appended to the child vector; JSON null is an empty array. */
final class ArrayWriter(ctx: WriteContext, val elem: ColumnWriter) extends ColumnWriter(ctx) {
  def slot: Int = 9
  private var next = 0
  override def bind(v: Vec): Unit = { vec = v; elem.bind(v.arrayData().asInstanceOf[Vec]) }
  override def newBatch(): Unit = { next = 0; elem.newBatch() }
  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.START_ARRAY =>
      if (unseen) unsampled("an array where the file's sample had none")
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
    if (c == '[' && !unseen) {
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
