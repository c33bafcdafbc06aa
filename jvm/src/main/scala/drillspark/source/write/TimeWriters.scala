package drillspark.source.write

import java.time.{Instant, LocalDate, LocalDateTime, LocalTime, OffsetDateTime, ZoneOffset}

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec

/** DATE: ISO-8601 text (its first 10 characters), or days since 1970-01-01; an empty string is
 * null. */
final class DateWriter(ctx: WriteContext) extends ScalarWriter(ctx) {
  def slot: Int = 5
  protected def typeName: String = "DATE"
  private def put(i: Int, days: Int): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putInt(i, days); ctx.bytes += slot }
  protected def writeScalar(s: Scalar, i: Int): Unit = s.kind match {
    case Scalar.Text =>
      val text = s.text.trim
      if (text.isEmpty) writeNull(i)
      else try put(i, LocalDate.parse(text.take(10)).toEpochDay.toInt) catch {
        case _: java.time.DateTimeException => mismatch(s, typeName)
      }
    case Scalar.Integer =>
      val days = s.longValue(typeName)
      if (days.isValidInt) put(i, days.toInt) else invalid(s, typeName, "out of range")
    case _ => mismatch(s, typeName)
  }
  override def writeElementNull(i: Int): Unit = put(i, 0)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getInt(from))
}

/** TIME (a provided schema's; Spark's TIME holds nanoseconds of the day): ISO-8601 text,
 * `03:04:05` or `03:04:05.123`, kept to milliseconds as Drill's TIME holds them (Drill 1.22 reads
 * `03:04:05.123456` as 03:04:05.123); an empty string is null. */
final class TimeWriter(ctx: WriteContext) extends ScalarWriter(ctx) {
  def slot: Int = 9
  protected def typeName: String = "TIME"
  private def put(i: Int, nanos: Long): Unit = { vec.reserve(i + 1); vec.putNotNull(i); vec.putLong(i, nanos); ctx.bytes += slot }
  protected def writeScalar(s: Scalar, i: Int): Unit = s.kind match {
    case Scalar.Text =>
      val text = s.text.trim
      if (text.isEmpty) writeNull(i)
      else {
        val nanos = try LocalTime.parse(text).toNanoOfDay catch {
          case _: java.time.DateTimeException => mismatch(s, typeName)
        }
        put(i, nanos - nanos % 1000000L)
      }
    case _ => mismatch(s, typeName)
  }
  override def writeElementNull(i: Int): Unit = put(i, 0L)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getLong(from))
}

/** TIMESTAMP (UTC; Drill's TIMESTAMP, Spark's TIMESTAMP_NTZ, and Spark's TIMESTAMP alike: both
 * hold microseconds since 1970-01-01 00:00 UTC, so the same value reads as the same wall-clock
 * time in UTC): ISO-8601 text, or epoch milliseconds (Mongo's `$date`, also as
 * `{"$date": {"$numberLong": "..."}}`); an empty string is null. */
final class TimestampWriter(ctx: WriteContext) extends ScalarWriter(ctx) {
  def slot: Int = 9
  protected def typeName: String = "TIMESTAMP"
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
  protected def writeScalar(s: Scalar, i: Int): Unit = s.kind match {
    case Scalar.Text =>
      val text = s.text.trim
      if (text.isEmpty) writeNull(i)
      else {
        val us = try parse(text) catch {
          case _: java.time.DateTimeException => mismatch(s, typeName)
          case _: ArithmeticException => invalid(s, typeName, "out of range")
        }
        put(i, us)
      }
    case Scalar.Integer => put(i, micros(s, s.longValue(typeName)))
    case _ => mismatch(s, typeName)
  }
  /** `{"$date": {"$numberLong": "..."}}`: epoch milliseconds as a number or a string. */
  override protected def writeExtended(p: JsonParser, vt: JsonToken, i: Int): Unit = {
    if (vt == JsonToken.START_OBJECT) {
      p.nextToken()
      val nt = p.nextToken()
      val ms = nt match {
        case JsonToken.VALUE_NUMBER_INT => ctx.jackson.at(p, nt).longValue(typeName)
        case JsonToken.VALUE_STRING =>
          try p.getText.trim.toLong catch {
            case _: NumberFormatException => invalid(ctx.jackson.at(p, nt), typeName, "not epoch milliseconds")
          }
        case _ => mismatch(p, nt, typeName)
      }
      put(i, micros(ctx.jackson.at(p, nt), ms)); endExtended(p)
    } else write(p, vt, i)
    endExtended(p)
  }
  /** Epoch milliseconds as microseconds. */
  private def micros(s: Scalar, ms: Long): Long =
    try Math.multiplyExact(ms, 1000L) catch { case _: ArithmeticException => invalid(s, typeName, "out of range") }
  override def writeElementNull(i: Int): Unit = put(i, 0L)
  def copy(src: Vec, from: Int, to: Int): Unit =
    if (src.isNullAt(from)) writeNull(to) else put(to, src.getLong(from))
}
