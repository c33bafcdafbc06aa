package drillspark.formats.logs

import java.io.{BufferedReader, InputStream, InputStreamReader}
import java.nio.charset.{CodingErrorAction, StandardCharsets}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.io.compress.CompressionCodecFactory

import drillspark.formats.{FormatErrors, FormatReader}
import drillspark.source.input.{HeldPages, InputFile}

/** One line of a log file and its number (from 1), the place every log error names. */
final case class NumberedLine(number: Long, text: String)

/**
 * The lines of one text file, decompressed by extension (Hadoop's codecs: .gz, .bz2, ...),
 * UTF-8 (a malformed byte becomes U+FFFD, as Drill's text readers do); `\n`, `\r\n` or `\r`
 * ends a line. Closing the iterator closes the file.
 */
final class LineInput(in: InputStream) extends Iterator[NumberedLine] with AutoCloseable {
  private val reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
    .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE)), 1 << 16)
  private var number = 0L
  private var pending: String = reader.readLine()

  override def hasNext: Boolean = {
    if (pending == null) close()
    pending != null
  }

  override def next(): NumberedLine = {
    if (!hasNext) throw new NoSuchElementException("no more lines")
    number += 1
    val line = NumberedLine(number, pending)
    pending = reader.readLine()
    line
  }

  override def close(): Unit = reader.close()
}

object LineInput {
  /** The file's stream, decompressed when its extension names a Hadoop codec; a page of
   * records from no file (an HTTP answer, [[HeldPages]]) is read from the bytes it holds. */
  def open(file: InputFile, conf: Configuration): InputStream = {
    if (HeldPages.isPage(file.path)) return HeldPages.open(file.path, 0L)
    val p = new Path(file.path)
    val raw = p.getFileSystem(conf).open(p)
    Option(new CompressionCodecFactory(conf).getCodec(p)) match {
      case Some(codec) => codec.createInputStream(raw)
      case None => raw
    }
  }

  /** The lines of `file`; an unreadable file fails naming it. */
  def lines(reader: FormatReader, file: InputFile, conf: Configuration): LineInput =
    try new LineInput(open(file, conf))
    catch {
      case e: java.io.IOException =>
        throw FormatErrors.badData(reader.typeName, file.path, "", FormatErrors.describe(e))
    }
}
