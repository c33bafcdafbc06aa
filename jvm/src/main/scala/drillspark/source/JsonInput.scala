package drillspark.source

import java.io.{BufferedInputStream, InputStream, InputStreamReader}
import java.nio.charset.{CodingErrorAction, StandardCharsets}
import java.util.Locale
import java.util.zip.GZIPInputStream

import com.fasterxml.jackson.core.{JsonFactory, JsonFactoryBuilder, JsonParser, JsonProcessingException, StreamReadConstraints}
import com.fasterxml.jackson.core.json.JsonReadFeature
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/** A malformed or unreadable input: the message names the file, line, column and byte. */
final class DrillScanException(message: String, cause: Throwable = null)
  extends RuntimeException(message, cause)

/** Opening JSON files: Drill's relaxed syntax, compression by extension, UTF-8 policy. */
object JsonInput {
  def factory(o: DrillOptions): JsonFactory = {
    val b = new JsonFactoryBuilder()
      .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
      .enable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES)
      .streamReadConstraints(StreamReadConstraints.builder()
        .maxNestingDepth(o.maxDepth).maxStringLength(Int.MaxValue).maxNumberLength(100000).build())
    if (o.nanInf) b.enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
    if (o.escapeAnyChar) b.enable(JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER)
    val f = b.build()
    // the record stream owns the input and restarts parsers on it after a bad record
    f.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE)
    f
  }

  def compression(name: String): Option[String] = {
    val n = name.toLowerCase(Locale.ROOT)
    if (n.endsWith(".gz")) Some("gz")
    else if (n.endsWith(".bz2")) Some("bz2")
    else if (n.endsWith(".zst") || n.endsWith(".zstd")) Some("zst")
    else None
  }

  /** The file's bytes from `start`, decompressed by extension (compressed files start at 0). */
  def open(conf: Configuration, path: String, start: Long): InputStream = {
    val p = new Path(path)
    val raw = p.getFileSystem(conf).open(p)
    if (start > 0) raw.seek(start)
    compression(p.getName) match {
      case Some("gz") => new GZIPInputStream(raw, 1 << 16)
      case Some("bz2") => new BZip2CompressorInputStream(new BufferedInputStream(raw, 1 << 16), true)
      case Some("zst") => new com.github.luben.zstd.ZstdInputStream(raw)
      case _ => raw
    }
  }

  def parser(f: JsonFactory, in: InputStream, o: DrillOptions): JsonParser =
    if (o.replaceInvalidUtf8) {
      val dec = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE)
      f.createParser(new InputStreamReader(in, dec))
    } else f.createParser(in)

  /** "file:/x.json line 3, column 7 (byte 120): <what>" */
  def where(file: String, p: JsonParser, baseOffset: Long): String = {
    val loc = if (p == null) null else p.currentLocation()
    if (loc == null) file
    else {
      val byte = loc.getByteOffset
      val lineInfo = if (baseOffset == 0) s" line ${loc.getLineNr}, column ${loc.getColumnNr}"
        else s" line ${loc.getLineNr} of the split starting at byte $baseOffset, column ${loc.getColumnNr}"
      val byteInfo = if (byte >= 0) s" (byte ${baseOffset + byte})" else ""
      s"$file$lineInfo$byteInfo"
    }
  }

  def error(file: String, p: JsonParser, baseOffset: Long, what: String, cause: Throwable = null)
      : DrillScanException =
    new DrillScanException(s"drill: ${where(file, p, baseOffset)}: $what", cause)

  /** Turn Jackson's error into ours, keeping its description but not its Source dump. */
  def describe(e: JsonProcessingException): String = {
    val m = Option(e.getOriginalMessage).getOrElse(e.toString)
    val low = m.toLowerCase(Locale.ROOT)
    if (low.contains("nesting depth")) s"nesting deeper than the limit (option maxDepth): $m"
    else if (low.contains("utf-8") || low.contains("utf8"))
      s"invalid UTF-8 ($m); set option invalidUtf8=replace to replace bad bytes"
    else if (low.contains("non-standard token")) s"$m (option nanInf is false)"
    else s"malformed JSON: $m"
  }
}
