package drillspark.source.input

import java.io.{BufferedInputStream, BufferedReader, ByteArrayInputStream, FilterInputStream, IOException, InputStream,
  InputStreamReader, PushbackInputStream, SequenceInputStream}
import java.nio.channels.Channels
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.util.Locale
import java.util.zip.GZIPInputStream

import com.fasterxml.jackson.core.{JsonFactory, JsonFactoryBuilder, JsonParser, JsonProcessingException, StreamReadConstraints}
import com.fasterxml.jackson.core.json.JsonReadFeature
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream
import org.apache.commons.io.input.ReaderInputStream
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import drillspark.catalog.WorkspacePaths
import drillspark.source.DrillOptions

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

  /** Compression by file name suffix (lower case), and the codec each means. */
  val CompressionSuffixes: Seq[(String, String)] =
    Seq(".gz" -> "gz", ".bz2" -> "bz2", ".zst" -> "zst", ".zstd" -> "zst")

  private def suffixOf(name: String): Option[(String, String)] = {
    val n = name.toLowerCase(Locale.ROOT)
    CompressionSuffixes.find { case (s, _) => n.endsWith(s) }
  }

  def compression(name: String): Option[String] = suffixOf(name).map(_._2)

  def isCompressed(name: String): Boolean = suffixOf(name).isDefined

  /**
   * The file's bytes from `start`, decompressed by extension (compressed files start at 0).
   * In a confined workspace (option workspaceRoot) the file is opened by the workspace rule,
   * [[WorkspacePaths.open]]: this is the check made where the file is read (on an executor).
   * I/O failures (missing file, bad or truncated compressed data) become a
   * [[DrillScanException]] naming the file and the byte reached, here and on every later read.
   */
  def open(conf: Configuration, path: String, start: Long, o: DrillOptions): InputStream = {
    if (HeldPages.isPage(path)) return new ReadGuard(HeldPages.open(path, start), path, start, false)
    var raw: InputStream = null
    try {
      val p = new Path(path)
      val (in, seek) = o.workspaceRoot match {
        case Some(root) => // a confined workspace: checked again here, where the file is opened
          val ch = WorkspacePaths.open(o.workspace.getOrElse(root), root, path)
          raw = Channels.newInputStream(ch)
          (raw, (at: Long) => { ch.position(at); () })
        case None =>
          val st = p.getFileSystem(conf).open(p)
          raw = st
          (st, (at: Long) => st.seek(at))
      }
      var transcoded = false
      val text = compression(p.getName) match {
        case Some(codec) =>
          if (start > 0) seek(start)
          val decoded = codec match {
            case "gz" => new GZIPInputStream(in, 1 << 16)
            case "bz2" => new BZip2CompressorInputStream(new BufferedInputStream(in, 1 << 16), true)
            case _ => new com.github.luben.zstd.ZstdInputStream(in)
          }
          val peek = new PushbackInputStream(decoded, 4)
          val head = Encodings.head(peek)
          peek.unread(head)
          if (Encodings.onlyBom(head)) InputStream.nullInputStream()
          else Encodings.nonUtf8(head).fold(peek: InputStream) { cs => transcoded = true; Encodings.toUtf8(peek, cs, o) }
        case None =>
          val head = Encodings.head(in)
          if (Encodings.onlyBom(head)) InputStream.nullInputStream()
          else Encodings.nonUtf8(head) match {
            case Some(cs) => // positions are the UTF-8 text's: read from the start, skip to `start`
              transcoded = true
              val utf8 = Encodings.toUtf8(new SequenceInputStream(new ByteArrayInputStream(head), in), cs, o)
              utf8.skipNBytes(start)
              utf8
            case None if start > 0 => seek(start); in
            case None => new SequenceInputStream(new ByteArrayInputStream(head), in)
          }
      }
      new ReadGuard(text, path, start, transcoded)
    } catch {
      case e: Throwable =>
        if (raw != null) closeQuietly(raw, e)
        e match {
          case io: IOException => throw cannotRead(path, start, io)
          case _ => throw e
        }
    }
  }

  def cannotRead(path: String, at: Long, e: IOException): DrillScanException = e match {
    case _: CharacterCodingException => new DrillScanException(s"drill: $path (byte $at): cannot read: the file is " +
      "UTF-16 or UTF-32 (its first bytes say so; the byte is a position in its UTF-8 text) and holds an invalid " +
      "sequence at or after that point; " +
      "set option invalidUtf8=replace to read it as U+FFFD", e)
    case _ => new DrillScanException(s"drill: $path (byte $at): cannot read: ${Option(e.getMessage).getOrElse(e.toString)}", e)
  }

  /** Close `c` after `cause` was thrown, keeping a close failure as a suppressed exception. */
  def closeQuietly(c: AutoCloseable, cause: Throwable): Unit =
    try c.close() catch { case e: Exception => if (cause != null && (e ne cause)) cause.addSuppressed(e) }

  def parser(f: JsonFactory, in: InputStream, o: DrillOptions): JsonParser =
    if (o.replaceInvalidUtf8) {
      val dec = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE)
      f.createParser(new InputStreamReader(in, dec))
    } else f.createParser(in)

  /** "file:/x.json line 3, column 7 (byte 120)"; in a split that does not start the file,
   * "line 3 of the split starting at byte S" (S: the split's first line). Byte -1: unknown. */
  def where(file: String, line: Long, column: Long, byte: Long, splitStart: Long): String = {
    val lineInfo = if (splitStart <= 0) s" line $line" else s" line $line of the split starting at byte $splitStart"
    val byteInfo = if (byte >= 0) s" (byte $byte)" else ""
    s"$file$lineInfo, column $column$byteInfo"
  }

  /** Turn Jackson's error into ours, keeping its description but not its Source dump;
   * `utf8`: what a [[Utf8Guard]] found wrong where Jackson failed, if it did. */
  def describe(e: JsonProcessingException, utf8: String = null): String = {
    val m = Option(e.getOriginalMessage).getOrElse(e.toString)
    val low = m.toLowerCase(Locale.ROOT)
    if (low.contains("nesting depth")) s"nesting deeper than the limit (option maxDepth): $m"
    else if (utf8 != null) s"invalid UTF-8, $utf8; set option invalidUtf8=replace to read it as U+FFFD"
    else if (low.contains("utf-8") || low.contains("utf8"))
      s"invalid UTF-8 ($m); set option invalidUtf8=replace to replace bad bytes"
    else if (low.contains("non-standard token")) s"$m (option nanInf is false)"
    else s"malformed JSON: $m"
  }
}

/**
 * JSON text in UTF-16 or UTF-32, which Jackson (and so Drill) takes from a file's first four
 * bytes (JSON's own rule, RFC 4627 section 3: where the zero bytes of ASCII characters are, or
 * a byte order mark): such a file is read as its UTF-8 text, so every reader (the byte path,
 * Jackson's byte parser, the count scan) sees the same bytes and byte positions (those of
 * the UTF-8 text). Left to Jackson alone, such a file was read by a character parser without
 * byte positions while the count scan and the byte path read bytes.
 */
private object Encodings {
  def head(in: InputStream): Array[Byte] = in.readNBytes(4)

  /** A file that is a UTF-8 byte order mark and nothing else: empty (Jackson skips a mark only
   * when a fourth byte follows, and failed on the third byte; the byte path read no records). */
  def onlyBom(b: Array[Byte]): Boolean =
    b.length == 3 && (b(0) & 0xff) == 0xEF && (b(1) & 0xff) == 0xBB && (b(2) & 0xff) == 0xBF

  def nonUtf8(b: Array[Byte]): Option[java.nio.charset.Charset] = {
    def u(i: Int): Int = if (i < b.length) b(i) & 0xff else -1
    val bom32 = b.length == 4 && ((u(0) == 0 && u(1) == 0 && u(2) == 0xFE && u(3) == 0xFF) ||
      (u(0) == 0xFF && u(1) == 0xFE && u(2) == 0 && u(3) == 0))
    val name =
      if (bom32) Some("UTF-32")
      else if (b.length >= 2 && ((u(0) == 0xFE && u(1) == 0xFF) || (u(0) == 0xFF && u(1) == 0xFE))) Some("UTF-16")
      else if (b.length == 4 && u(0) == 0 && u(1) == 0 && u(2) == 0 && u(3) != 0) Some("UTF-32BE")
      else if (b.length == 4 && u(0) != 0 && u(1) == 0 && u(2) == 0 && u(3) == 0) Some("UTF-32LE")
      else if (b.length >= 2 && u(0) == 0 && u(1) != 0) Some("UTF-16BE")
      else if (b.length >= 2 && u(0) != 0 && u(1) == 0) Some("UTF-16LE")
      else None
    name.map(java.nio.charset.Charset.forName)
  }

  def toUtf8(in: InputStream, cs: java.nio.charset.Charset, o: DrillOptions): InputStream = {
    val bad = if (o.replaceInvalidUtf8) CodingErrorAction.REPLACE else CodingErrorAction.REPORT
    val reader = new InputStreamReader(in, cs.newDecoder().onMalformedInput(bad).onUnmappableCharacter(bad))
    ReaderInputStream.builder().setReader(new BufferedReader(reader, 1 << 14)).setCharset(StandardCharsets.UTF_8).get()
  }
}

/** Reports an I/O failure of the stream below (file system, decompressor) as a
 * [[DrillScanException]] naming the file and the byte reached, so no raw JVM exception without
 * a file name escapes; Jackson sees it as a runtime exception and lets it through.
 * `transcoded`: the file is UTF-16 or UTF-32, read as its UTF-8 text ([[Encodings]]). */
private[input] final class ReadGuard(in: InputStream, path: String, from: Long, val transcoded: Boolean)
  extends FilterInputStream(in) {
  private var at = from
  private def failed(e: IOException): Nothing = throw JsonInput.cannotRead(path, at, e)
  override def read(): Int = {
    val b = try in.read() catch { case e: IOException => failed(e) }
    if (b >= 0) at += 1
    b
  }
  override def read(b: Array[Byte], off: Int, len: Int): Int = {
    val n = try in.read(b, off, len) catch { case e: IOException => failed(e) }
    if (n > 0) at += n
    n
  }
  override def skip(n: Long): Long = {
    val s = try in.skip(n) catch { case e: IOException => failed(e) }
    at += s
    s
  }
  override def available(): Int = try in.available() catch { case e: IOException => failed(e) }
}
