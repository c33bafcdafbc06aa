package drillspark.source.write

import java.nio.charset.StandardCharsets.{ISO_8859_1, UTF_8}

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import com.fasterxml.jackson.core.exc.InputCoercionException

import drillspark.source.bytes.ByteReader

/**
 * One scalar JSON value (a number, a string, true or false) as either input path presents it:
 * Jackson's current token ([[JacksonScalar]]) or the value the byte reader just read
 * ([[BytesScalar]]). Each column writer's conversion is written once, against this
 * ([[ScalarWriter.writeScalar]]), so the two paths cannot convert a value differently. Values
 * are as Jackson reports them: the byte side's numbers are exact copies of Jackson's.
 */
sealed abstract class Scalar {
  /** [[Scalar.Integer]], [[Scalar.Float]], [[Scalar.Text]], [[Scalar.True]] or [[Scalar.False]]. */
  def kind: Int
  /** An integer's value; one outside BIGINT does not fit column type `what`. */
  def longValue(what: String): Long
  /** A number's value as a double (Jackson's getDoubleValue: an integer converts from its long). */
  def doubleValue: Double
  /** A number's exact value. */
  def decimalValue: java.math.BigDecimal
  /** A string's contents; a number or literal as it was written. */
  def text: String
  /** [[text]] as UTF-8: `textBytes(textFrom until textFrom + textLen)`, valid until the reader
   * moves on. */
  def utf8(): Unit
  var textBytes: Array[Byte] = Array.emptyByteArray
  var textFrom = 0
  var textLen = 0
  /** How a message shows the value. */
  def found: String = s"'$text'"

  protected final def utf8Of(b: Array[Byte], from: Int, len: Int): Unit = { textBytes = b; textFrom = from; textLen = len }
}

object Scalar {
  final val Integer = 0
  final val Float = 1
  final val Text = 2
  final val True = 3
  final val False = 4

  private[write] val TrueText: Array[Byte] = "true".getBytes(UTF_8)
  private[write] val FalseText: Array[Byte] = "false".getBytes(UTF_8)
}

/** The scalar token under a Jackson parser (`at` sets it; one instance per reader). */
final class JacksonScalar private[write] () extends Scalar {
  private var p: JsonParser = _
  private var k = 0

  /** `t` must be a scalar token: VALUE_NUMBER_INT / FLOAT, VALUE_STRING, VALUE_TRUE / FALSE. */
  def at(parser: JsonParser, t: JsonToken): Scalar = {
    p = parser
    k = t match {
      case JsonToken.VALUE_NUMBER_INT => Scalar.Integer
      case JsonToken.VALUE_NUMBER_FLOAT => Scalar.Float
      case JsonToken.VALUE_TRUE => Scalar.True
      case JsonToken.VALUE_FALSE => Scalar.False
      case _ => Scalar.Text
    }
    this
  }

  def kind: Int = k
  def longValue(what: String): Long =
    try p.getLongValue catch {
      case _: InputCoercionException => throw new ValueMismatch(s"$found does not fit column type $what (out of range)")
    }
  def doubleValue: Double = p.getDoubleValue
  def decimalValue: java.math.BigDecimal = p.getDecimalValue
  def text: String = p.getText
  def utf8(): Unit = { val b = p.getText.getBytes(UTF_8); utf8Of(b, 0, b.length) }
}

/** The scalar the byte reader reads next (`read`; one instance per reader). A value the byte
 * reader does not take exactly (an integer beyond BIGINT) gives the split back to the Jackson
 * path, which reports it. */
final class BytesScalar private[write] () extends Scalar {
  private var r: ByteReader = _
  private var k = 0

  /** Read the value whose first byte `c` was read from `r`: false (nothing read) when it is not
   * a scalar (an object or array; a JSON null is the writers' before any conversion). */
  def read(reader: ByteReader, c: Int): Boolean = {
    r = reader
    if (c == '"') { r.readStringValue(); k = Scalar.Text; true }
    else if (r.isNumber(c)) { k = if (r.readNumber(c)) Scalar.Float else Scalar.Integer; true }
    else if (c == 't') { r.trueLiteral(); k = Scalar.True; true }
    else if (c == 'f') { r.falseLiteral(); k = Scalar.False; true }
    else false
  }

  def kind: Int = k
  def longValue(what: String): Long = r.longValue()
  def doubleValue: Double = r.doubleValue(k == Scalar.Float)
  def decimalValue: java.math.BigDecimal = new java.math.BigDecimal(text)
  def text: String = k match {
    case Scalar.Text => new String(r.stringBytes, 0, r.stringLen, UTF_8)
    case Scalar.True => "true"
    case Scalar.False => "false"
    case _ => new String(r.bytes, r.numberFrom, r.numberLen, ISO_8859_1)
  }
  def utf8(): Unit = k match {
    case Scalar.Text => utf8Of(r.stringBytes, 0, r.stringLen)
    case Scalar.True => utf8Of(Scalar.TrueText, 0, Scalar.TrueText.length)
    case Scalar.False => utf8Of(Scalar.FalseText, 0, Scalar.FalseText.length)
    case _ => utf8Of(r.bytes, r.numberFrom, r.numberLen)
  }
}
