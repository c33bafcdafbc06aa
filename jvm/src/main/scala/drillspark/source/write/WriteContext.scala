package drillspark.source.write

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8

import com.fasterxml.jackson.core.{JsonFactory, JsonFactoryBuilder, JsonGenerator, JsonParser, JsonToken, StreamWriteConstraints}
import com.fasterxml.jackson.core.json.JsonWriteFeature

import drillspark.source.DrillOptions
import drillspark.source.discovery.SchemaDiscovery

/** A value that does not fit its column (the reader adds file, line and column). */
final class ValueMismatch(message: String) extends RuntimeException(message)

/** Shared state of one reader's writers: the byte budget of the batch being filled. */
final class WriteContext(val o: DrillOptions) {
  var bytes: Long = 0L
  /** The split being read is its whole file, so the file's discovery was its sample's. */
  var wholeFile: Boolean = true
  /** The scalar under the Jackson parser, and the one the byte reader reads: reused by every
   * writer of this reader (a value is converted before the reader moves on). */
  private[write] val jackson = new JacksonScalar
  private[write] val fromBytes = new BytesScalar
  private val textOut = new ByteArrayOutputStream(256)
  private var textGen: JsonGenerator = newTextGen()

  /** Each value is its own text: no root separator between values, and NaN/Infinity are
   * written bare, as they were read (Jackson's defaults write " " and "NaN"). */
  private def newTextGen(): JsonGenerator = {
    val g = WriteContext.TextFactory.createGenerator(textOut)
    g.setRootValueSeparator(null)
    g
  }

  /** Write one value's text; a failure mid-value (malformed input) leaves the generator inside
   * an open structure, so it is replaced before the error goes on. */
  private def text(body: JsonGenerator => Unit): Array[Byte] = {
    textOut.reset()
    try body(textGen) catch {
      case e: Throwable => textGen = newTextGen(); throw e
    }
    textGen.flush()
    textOut.toByteArray
  }

  /** The JSON text of the value under the parser (objects and arrays compact). */
  def jsonText(p: JsonParser): Array[Byte] = text(_.copyCurrentStructure(p))

  /** An extended-JSON wrapper's value as text ($oid, ...), else the object's JSON text. */
  def extendedOrJsonText(p: JsonParser): Array[Byte] = {
    val t1 = p.nextToken()
    if (t1 == JsonToken.FIELD_NAME && SchemaDiscovery.ExtendedKinds.contains(p.currentName())) {
      p.nextToken()
      val text = if (p.currentToken().isScalarValue) p.getText.getBytes(UTF_8) else jsonText(p)
      WriteContext.skipToObjectEnd(p)
      text
    } else text { g =>
      g.writeStartObject()
      var t = t1
      while (t == JsonToken.FIELD_NAME) {
        g.writeFieldName(p.currentName())
        p.nextToken()
        g.copyCurrentStructure(p)
        t = p.nextToken()
      }
      g.writeEndObject()
    }
  }
}

object WriteContext {
  /** JSON text is written as deep as the parser read it (maxDepth is the parser's limit). */
  private val TextFactory: JsonFactory =
    new JsonFactoryBuilder().disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
      .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(DrillOptions.MaxDepth + 1).build())
      .build()

  /** Skip the remaining members of an object whose current token is a member's value (or its
   * last token), up to and including its END_OBJECT. */
  def skipToObjectEnd(p: JsonParser): Unit = {
    var t = p.nextToken()
    while (t != JsonToken.END_OBJECT) { p.nextToken(); p.skipChildren(); t = p.nextToken() }
  }
}
