package drillspark.source.bytes

import org.apache.hadoop.conf.Configuration

import drillspark.source.DrillOptions
import drillspark.source.input.FileSplit

/**
 * The records of one split read straight from the bytes (the reader's fast path): the column
 * writers pull each value through `writeBytes` (see [[ColumnWriter]]), so a projected value is
 * decoded once into its vector and an unprojected subtree is skipped by the byte scanner
 * without tokens. It reads strict JSON only: on anything else (see [[ByteScanner]]), a value a
 * writer does not convert itself, or a value that does not fit its column, it throws
 * [[GiveUp]] and [[DrillPartitionReader]] hands the rest of the split to the Jackson path
 * (which skips the records already read, then reads or reports the rest as it always does).
 */
final class ByteReader(conf: Configuration, split: FileSplit, o: DrillOptions)
    extends ByteScanner(conf, split, o) {
  /** Records started, the current one included. */
  var records = 0L
  private var started = false
  /** Nesting of the value being read (the record's members are at depth 1). */
  private var depth = 1

  /** Move into the next record (its '{' read); false at the end of the split. */
  def next(): Boolean = {
    if (!started) { started = true; begin() }
    if (!nextRecord()) return false
    records += 1
    depth = 1
    true
  }

  /** After the record's members: the split rule's check of where it ended. */
  def finishRecord(): Unit = endRecord()

  /** Inside an object: true with the next member's name scanned, false at its '}'. */
  def firstMember(): Boolean = {
    val c = skipWs()
    if (c == '}') false
    else { if (c != '"') giveUp(); scanKey(); true }
  }

  def nextMember(): Boolean = {
    val c = skipWs()
    if (c == '}') false
    else {
      if (c != ',' || skipWs() != '"') giveUp()
      scanKey()
      true
    }
  }

  /** The first byte of the current member's value. */
  def value(): Int = memberValue()

  /** Inside an array: the first byte of the next element, or [[ByteReader.End]] at its ']'. */
  def firstElement(): Int = {
    val c = skipWs()
    if (c == ']') ByteReader.End else c
  }

  def nextElement(): Int = {
    val c = skipWs()
    if (c == ']') ByteReader.End
    else { if (c != ',') giveUp(); skipWs() }
  }

  /** Around an object or array value, as Jackson counts nesting toward maxDepth. */
  def enter(): Unit = { if (depth >= depthLimit) giveUp(); depth += 1 }
  def leave(): Unit = depth -= 1

  /** Skip a value nobody reads (still validated). */
  def skip(c: Int): Unit = skipValue(c, depth)

  def nullLiteral(): Unit = literal('u', 'l', 'l')
  def trueLiteral(): Unit = literal('r', 'u', 'e')
  def falseLiteral(): Unit = { literal('a', 'l', 's'); if (read() != 'e') giveUp() }

  def isNumber(c: Int): Boolean = c == '-' || (c >= '0' && c <= '9')

  /** Read a number whose first byte `c` was read; true when it is a float. Its text is
   * `bytes[numberFrom, numberFrom + numberLen)` until the next read. */
  def readNumber(c: Int): Boolean = number(c)
  def bytes: Array[Byte] = buf
  def numberFrom: Int = numFrom
  def numberLen: Int = numLen

  /** The last number, an integer, as a long (Jackson's getLongValue); one outside BIGINT is
   * the Jackson path's to report. */
  def longValue(): Long = {
    var p = numFrom
    val e = numFrom + numLen
    val neg = buf(p) == '-'
    if (neg) p += 1
    if (e - p > 18) {
      try java.lang.Long.parseLong(new String(buf, numFrom, numLen, java.nio.charset.StandardCharsets.ISO_8859_1))
      catch { case _: NumberFormatException => giveUp() }
    } else {
      var v = 0L
      while (p < e) { v = v * 10 + (buf(p) - '0'); p += 1 }
      if (neg) -v else v
    }
  }

  /** The last number as a double, exactly as Jackson's getDoubleValue: an integer converts
   * from its long value, a float is the correctly rounded value of its text (Clinger's fast
   * path when exact, else the JDK's parser). */
  def doubleValue(float: Boolean): Double = {
    if (!float) {
      return if (numLen - (if (buf(numFrom) == '-') 1 else 0) <= 18) longValue().toDouble
      else java.lang.Double.parseDouble(numberText)
    }
    var p = numFrom
    val e = numFrom + numLen
    val neg = buf(p) == '-'
    if (neg) p += 1
    var mant = 0L
    var digits = 0
    var scale = 0
    var c = buf(p)
    while (p < e && c != 'e' && c != 'E') {
      if (c == '.') scale = -1 // from here on, digits are fractional
      else {
        if (mant != 0 || c != '0') digits += 1
        mant = mant * 10 + (c - '0')
        if (scale < 0) scale -= 1
        if (digits > 15) return java.lang.Double.parseDouble(numberText)
      }
      p += 1
      if (p < e) c = buf(p)
    }
    var exp = if (scale < 0) scale + 1 else 0
    if (p < e) { // the exponent
      p += 1
      val eneg = buf(p) == '-'
      if (buf(p) == '-' || buf(p) == '+') p += 1
      var x = 0
      while (p < e) { x = x * 10 + (buf(p) - '0'); p += 1; if (x > 400) return java.lang.Double.parseDouble(numberText) }
      exp += (if (eneg) -x else x)
    }
    val m = mant.toDouble // exact: at most 15 digits
    val v =
      if (mant == 0) 0.0
      else if (exp == 0) m
      else if (exp > 0 && exp <= 22) m * ByteReader.Pow10(exp)
      else if (exp < 0 && exp >= -22) m / ByteReader.Pow10(-exp)
      else return java.lang.Double.parseDouble(numberText)
    if (neg) -v else v
  }

  private def numberText: String = new String(buf, numFrom, numLen, java.nio.charset.StandardCharsets.ISO_8859_1)

  /** Read a string value after its opening quote; its UTF-8 is `stringBytes[0, stringLen)`. */
  def readStringValue(): Unit = readString()
  def stringBytes: Array[Byte] = str
  def stringLen: Int = strLen

  /** The current member name (for a writer's name lookup): `bytes[nameFrom, nameFrom + nameLen)`. */
  def nameFrom: Int = keyFrom
  def nameLen: Int = keyLen
  def nameHash: Int = keyHash
  def nameIs(spelling: Array[Byte], word: Long): Boolean = keyIs(spelling, word)
  def nameWord: Long = keyWord
}

object ByteReader {
  /** [[ByteReader.firstElement]] / [[ByteReader.nextElement]] at the array's end. */
  final val End = -2

  private val Pow10: Array[Double] = Array.tabulate(23)(i => math.pow(10, i))
}
