package drillspark.source.write

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.drillspark.compat.ScanVectors
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types._

import drillspark.source.DrillOptions
import drillspark.source.bytes.{ByteReader, GiveUp}
import drillspark.source.input.{FileSplit, InputFile, JsonInput}
import drillspark.testkit.{Checks, Suite}

/**
 * Drill's value conversions (the column writers' `writeScalar`, one per type family), each
 * rule through both input paths: the Jackson token path and the byte reader. Every case writes
 * the same records `{"v": ...}` into a column of the given type both ways and checks the
 * Jackson outcome (the values, or the error) and that the byte reader gives the same outcome,
 * or hands the split over where it is meant to (the reader then reads it with Jackson). Edge
 * values: overflow, -0, 1e309, NaN, huge strings, nulls, kinds changing from record to record.
 */
object ConversionsSuite extends Suite {
  val name = "conversions"

  private val conf = new Configuration()
  private val HandedOver = "<handed over>"

  /** The column's rows as text ("null" for null), or "error: <message>", read from `records`. */
  private def read(dt: DataType, records: Seq[String], bytes: Boolean, dir: Path, o: DrillOptions): String = {
    val schema = new StructType().add("v", dt)
    val vs = ScanVectors.allocate(records.size + 1, schema)
    val w = new StructWriter(new WriteContext(o), schema)
    w.newBatch()
    w.bindChildren(vs)
    val text = records.map(v => s"""{"v": $v}""").mkString("\n") + "\n"
    try {
      if (bytes) {
        val f = dir.resolve(s"c${System.nanoTime()}.json")
        Files.write(f, text.getBytes(UTF_8))
        val r = new ByteReader(conf, FileSplit(InputFile(f.toString, Files.size(f), 0L, Nil), 0L, -1L), o)
        try records.indices.foreach { i => r.next(); w.writeMembersBytes(r, i); r.finishRecord() }
        finally { r.close(); Files.delete(f) }
      } else {
        val p = JsonInput.factory(o).createParser(text)
        try records.indices.foreach { i => p.nextToken(); w.writeMembers(p, i) } finally p.close()
      }
      records.indices.map(i => show(vs(0), dt, i)).mkString(", ")
    } catch {
      case GiveUp => HandedOver
      case e: ValueMismatch => s"error: ${e.getMessage}"
    } finally vs.foreach(_.close())
  }

  private def show(v: Vec, dt: DataType, i: Int): String =
    if (v.isNullAt(i)) "null"
    else dt match {
      case LongType => v.getLong(i).toString
      case IntegerType => v.getInt(i).toString
      case ShortType => v.getShort(i).toString
      case ByteType => v.getByte(i).toString
      case DoubleType => v.getDouble(i).toString
      case FloatType => v.getFloat(i).toString
      case BooleanType => v.getBoolean(i).toString
      case StringType => v.getUTF8String(i).toString
      case d: DecimalType => v.getDecimal(i, d.precision, d.scale).toString
      case DateType => s"day ${v.getInt(i)}"
      case TimestampType => s"${v.getLong(i)} us"
      case BinaryType => s"bytes '${new String(v.getBinary(i), UTF_8)}'"
      case a: ArrayType =>
        val (off, n) = (v.getArrayOffset(i), v.getArrayLength(i))
        (off until off + n).map(j => show(v.arrayData().asInstanceOf[Vec], a.elementType, j)).mkString("[", " ", "]")
      case s: StructType =>
        s.fields.indices.map(c => s"${s.fields(c).name}=${show(v.getChild(c).asInstanceOf[Vec], s.fields(c).dataType, i)}")
          .mkString("{", " ", "}")
      case other => s"<${other.sql}>"
    }

  /** Records of `dt` read both ways: Jackson gives `want`; the byte reader the same, or hands
   * the split over when `handsOver`. */
  private def rule(c: Checks, dir: Path, dt: DataType, records: Seq[String], want: String,
      handsOver: Boolean = false, o: DrillOptions = DrillOptions(Nil)): Unit = {
    val what = s"${dt.sql} from ${records.mkString(", ")}"
    val jackson = read(dt, records, bytes = false, dir, o)
    if (want.startsWith("error: ")) c.check(jackson.startsWith(want), s"$what, Jackson path: got '$jackson', want '$want...'")
    else c.equal(jackson, want, s"$what, Jackson path")
    val bytes = read(dt, records, bytes = true, dir, o)
    c.equal(bytes, if (handsOver) HandedOver else jackson, s"$what, byte path")
  }

  private def q(s: String): String = "\"" + s + "\""

  def run(c: Checks): Unit = {
    val dir = Files.createTempDirectory("drillspark-conversions-")
    try {
      integral(c, dir); floating(c, dir); decimal(c, dir); bool(c, dir); text(c, dir); time(c, dir)
      binary(c, dir); complex(c, dir)
    } finally Files.delete(dir)
  }

  private val NotInSample = "(the value did not appear in the records used for discovery"

  private def integral(c: Checks, d: Path): Unit = {
    // integers as they are, floats rounded half up, booleans 1/0, numeric strings trimmed
    rule(c, d, LongType, Seq("1", "-0", "1.5", "-1.5", "2.4999", "true", "false", q(" 42 "), q(""), "null"),
      "1, 0, 2, -1, 2, 1, 0, 42, null, null")
    rule(c, d, LongType, Seq("9223372036854775807", "-9223372036854775808"), "9223372036854775807, -9223372036854775808")
    // beyond BIGINT: Jackson names it; the byte reader hands such a number over
    rule(c, d, LongType, Seq("9223372036854775808"), "error: '9223372036854775808' does not fit column type BIGINT (out of range)",
      handsOver = true)
    // a float beyond BIGINT rounds to its end (Math.round), 1e309 is +Infinity first
    rule(c, d, LongType, Seq("1e309", "-1e309", "1e19"), "9223372036854775807, -9223372036854775808, 9223372036854775807")
    rule(c, d, LongType, Seq(q("12x")), s"error: '12x' does not fit column type BIGINT $NotInSample")
    rule(c, d, LongType, Seq("{\"a\": 1}"), "error: an object does not fit column type BIGINT", handsOver = true)
    rule(c, d, IntegerType, Seq("2147483647", q("-2147483648")), "2147483647, -2147483648")
    rule(c, d, IntegerType, Seq("2147483648"), "error: 2147483648 does not fit column type INT")
    rule(c, d, ShortType, Seq("-32768", "32767.4"), "-32768, 32767")
    rule(c, d, ByteType, Seq("127", "128"), "error: 128 does not fit column type TINYINT")
    rule(c, d, ByteType, Seq("-128", "true", "null"), "-128, 1, null")
  }

  private def floating(c: Checks, d: Path): Unit = {
    // an integer converts from its long (so -0 is 0.0), a float is read exactly as Jackson does
    rule(c, d, DoubleType, Seq("1", "-0", "-0.0", "0.1", "1e309", "-1e309", "4.9e-325", "123456789012345678901234567890"),
      "1.0, 0.0, -0.0, 0.1, Infinity, -Infinity, 0.0, 1.2345678901234568E29")
    rule(c, d, DoubleType, Seq("2.2250738585072011e-308", "0.30000000000000004", "1.7976931348623157E308", "9007199254740993"),
      "2.225073858507201E-308, 0.30000000000000004, 1.7976931348623157E308, 9.007199254740992E15")
    // strings parse as Java does (NaN, Infinity, exponents); booleans 1.0 / 0.0; "" is null
    rule(c, d, DoubleType, Seq(q("1e309"), q(" NaN "), q("-Infinity"), q("2.5"), "true", "false", q("")),
      "Infinity, NaN, -Infinity, 2.5, 1.0, 0.0, null")
    rule(c, d, DoubleType, Seq(q("one")), s"error: 'one' does not fit column type DOUBLE $NotInSample")
    rule(c, d, DoubleType, Seq("[1]"), "error: an array does not fit column type DOUBLE", handsOver = true)
    // FLOAT: the same rule, the double rounded to float
    rule(c, d, FloatType, Seq("0.1", "1e39", q("3.5"), "-0.0", "16777217"), "0.1, Infinity, 3.5, -0.0, 1.6777216E7")
    rule(c, d, FloatType, Seq(q("x")), s"error: 'x' does not fit column type FLOAT $NotInSample")
  }

  private def decimal(c: Checks, d: Path): Unit = {
    val dec = DecimalType(38, 10)
    rule(c, d, dec, Seq("1", "-0", "0.1", "1e5", "12345678901234567890123456", q(" 12.5 "), q("")),
      "1.0000000000, 0E-10, 0.1000000000, 100000.0000000000, 12345678901234567890123456.0000000000, 12.5000000000, null")
    // exact: no double rounding in between
    rule(c, d, dec, Seq("0.30000000000000000001"), "0.3000000000")
    rule(c, d, dec, Seq("1e309"), "error: 1E+309 does not fit DECIMAL(38,10)")
    rule(c, d, DecimalType(5, 2), Seq("999.994", "1000"), "error: 1000 does not fit DECIMAL(5,2)")
    rule(c, d, dec, Seq("true"), s"error: 'true' does not fit column type DECIMAL(38,10) $NotInSample")
  }

  private def bool(c: Checks, d: Path): Unit = {
    rule(c, d, BooleanType, Seq("true", "false", "0", "-0.0", "2.5", q("TRUE"), q("yes"), q(" "), "null"),
      "true, false, false, false, true, true, false, null, null")
    // no extended type holds a boolean: an object does not fit
    rule(c, d, BooleanType, Seq("{}"), "error: an object does not fit column type BOOLEAN", handsOver = true)
  }

  private def text(c: Checks, d: Path): Unit = {
    // strings as they are, other scalars as written (allTextMode, mixed kinds)
    rule(c, d, StringType, Seq(q("héllo"), "1.50", "-0", "1e309", "true", "false", q(""), "null", q("\\ud83d\\ude00 \\n")),
      "héllo, 1.50, -0, 1e309, true, false, , null, \ud83d\ude00 \n")
    val huge = "x" * 200000 + "ж" * 50000
    rule(c, d, StringType, Seq(q(huge), "12345678901234567890123456789"), s"$huge, 12345678901234567890123456789")
    // objects and arrays as compact JSON text: the Jackson path's
    rule(c, d, StringType, Seq("{\"a\": [1, 2]}"), "{\"a\":[1,2]}", handsOver = true)
    // allTextMode types every scalar VARCHAR: the same text, whatever the kind in each record
    rule(c, d, StringType, Seq("1", q("a"), "2.50", "false", "null"), "1, a, 2.50, false, null",
      o = DrillOptions(Nil, allTextMode = true))
  }

  private def time(c: Checks, d: Path): Unit = {
    rule(c, d, DateType, Seq(q("2024-02-29"), q("2024-02-29T23:59:59Z"), "19782", "-1", q("")),
      "day 19782, day 19782, day 19782, day -1, null")
    rule(c, d, DateType, Seq(q("2024-02-30")), s"error: '2024-02-30' does not fit column type DATE $NotInSample")
    rule(c, d, DateType, Seq("3000000000"), "error: '3000000000' does not fit column type DATE (out of range)")
    rule(c, d, DateType, Seq("1.5"), s"error: '1.5' does not fit column type DATE $NotInSample")
    rule(c, d, TimestampType, Seq(q("2024-01-01T00:00:00Z"), q("2024-01-01 00:00:01"), q("2024-01-01T02:00:00+02:00"), "1700000000000"),
      "1704067200000000 us, 1704067201000000 us, 1704067200000000 us, 1700000000000000 us")
    rule(c, d, TimestampType, Seq("9223372036854776"), "error: '9223372036854776' does not fit column type TIMESTAMP (out of range)")
    rule(c, d, TimestampType, Seq(q("soon")), s"error: 'soon' does not fit column type TIMESTAMP $NotInSample")
  }

  private def binary(c: Checks, d: Path): Unit = {
    rule(c, d, BinaryType, Seq(q("aGk="), q(" aGk= "), "null"), "bytes 'hi', bytes 'hi', null")
    rule(c, d, BinaryType, Seq(q("!!")), "error: '!!' does not fit column type VARBINARY (not base64)")
    rule(c, d, BinaryType, Seq("1"), s"error: '1' does not fit column type VARBINARY $NotInSample")
  }

  private def complex(c: Checks, d: Path): Unit = {
    // a null inside an array is the element type's zero value; a null array is []
    rule(c, d, ArrayType(LongType), Seq("[1, null, 2.5, \"3\"]", "null", "[]"), "[1 0 3 3], [], []")
    rule(c, d, ArrayType(StringType), Seq("[null, \"a\", 1]"), "[ a 1]")
    rule(c, d, ArrayType(LongType), Seq("5"), "error: '5' does not fit column type ARRAY", handsOver = true)
    // a map (struct): members by folded name, last duplicate wins, a null map and a string
    // where a map was (DRILL-7821) are {} with null members
    val st = new StructType().add("a", LongType).add("b", StringType)
    rule(c, d, st, Seq("{\"A\": 1, \"b\": \"x\", \"a\": 2}", "null", "\"text\"", "{}"),
      "{a=2 b=x}, {a=null b=null}, {a=null b=null}, {a=null b=null}")
    // MAP<VARCHAR, T> (provided schema): each member an entry; the Jackson path's
    rule(c, d, MapType(StringType, LongType), Seq("{\"k\": 1}"), "<MAP<STRING, BIGINT>>", handsOver = true)
    // kinds changing from record to record in one column: each record by the same rule
    rule(c, d, LongType, Seq("1", "\"2\"", "2.5", "true", "null", "-0", "\"\""), "1, 2, 3, 1, null, 0, null")
    rule(c, d, DoubleType, Seq("1", "\"2\"", "2.5", "false", "null", "1e309"), "1.0, 2.0, 2.5, 0.0, null, Infinity")
  }
}
