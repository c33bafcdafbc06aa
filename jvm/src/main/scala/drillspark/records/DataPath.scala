package drillspark.records

import com.fasterxml.jackson.core.{JsonFactoryBuilder, JsonParser, JsonProcessingException, JsonToken}
import com.fasterxml.jackson.core.json.JsonReadFeature

import drillspark.source.input.{DrillScanException, JsonInput}

/**
 * Where a response's records are (Drill's `dataPath`, `results` or `data/items`): the value at
 * that path is kept and every other byte becomes a space (newlines stay), so the `drill`
 * reader sees only those records, at the same line, column and byte as in the response; its
 * errors point into the response as served. No value is re-encoded (a number keeps its text).
 */
object DataPath {
  private val factory = {
    val f = new JsonFactoryBuilder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
      .enable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES).enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build()
    f.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE)
    f
  }

  /** The body with only the value at `path` left (all of it for an empty path), and the
   * number of records there: an array's elements, else 1 (0 when the path leads nowhere or to
   * null). `place` names the response in errors. */
  def select(place: String, body: Array[Byte], path: String): (Array[Byte], Int) = select(place, body, path, Int.MaxValue)

  /** As above, with the records of an array after the first `keep` blanked too (a paginator's
   * `maxRecords` reached inside a page); the count is still of all the records there. */
  def select(place: String, body: Array[Byte], path: String, keep: Int): (Array[Byte], Int) = {
    val steps = Option(path).toSeq.flatMap(_.split('/')).map(_.trim).filter(_.nonEmpty)
    val p = factory.createParser(body)
    try {
      var t = p.nextToken()
      var found = t != null
      steps.foreach { step =>
        if (found) {
          if (t != JsonToken.START_OBJECT) { found = false; p.skipChildren() }
          else {
            var hit = false
            t = p.nextToken()
            while (!hit && t == JsonToken.FIELD_NAME) {
              if (p.currentName() == step) { hit = true; t = p.nextToken() }
              else { p.nextToken(); p.skipChildren(); t = p.nextToken() }
            }
            found = hit
          }
        }
      }
      if (!found || t == JsonToken.VALUE_NULL) return (blank(body, 0, 0), 0)
      val from = p.currentTokenLocation().getByteOffset
      var records = 1
      var cut = (-1L, -1L) // the bytes of the records past `keep`
      if (t == JsonToken.START_ARRAY) {
        records = 0
        if (keep <= 0) cut = (p.currentLocation().getByteOffset, -1L)
        while (p.nextToken() != JsonToken.END_ARRAY) {
          records += 1
          p.skipChildren()
          if (records == keep) cut = (p.currentLocation().getByteOffset, -1L)
        }
        if (cut._1 >= 0) cut = (cut._1, p.currentTokenLocation().getByteOffset)
      } else p.skipChildren()
      val to = p.currentLocation().getByteOffset
      val kept = if (steps.isEmpty) body else blank(body, from.toInt, to.toInt)
      (if (cut._1 >= 0 && cut._2 > cut._1) blankInside(kept, cut._1.toInt, cut._2.toInt) else kept, records)
    } catch {
      case e: JsonProcessingException =>
        val at = e.getLocation
        val where = if (at == null) place else JsonInput.where(place, at.getLineNr, at.getColumnNr, at.getByteOffset, 0)
        throw new DrillScanException(s"drill: $where: ${JsonInput.describe(e)}")
    } finally p.close()
  }

  /** `body` with bytes inside [from, to) turned into spaces, newlines kept. */
  private def blankInside(body: Array[Byte], from: Int, to: Int): Array[Byte] = {
    val out = body.clone()
    var i = from
    while (i < to) {
      if (out(i) != '\n' && out(i) != '\r') out(i) = ' '
      i += 1
    }
    out
  }

  /** `body` with bytes outside [from, to) turned into spaces, newlines kept. */
  private def blank(body: Array[Byte], from: Int, to: Int): Array[Byte] = {
    val out = body.clone()
    var i = 0
    while (i < out.length) {
      if ((i < from || i >= to) && out(i) != '\n' && out(i) != '\r') out(i) = ' '
      i += 1
    }
    out
  }
}
