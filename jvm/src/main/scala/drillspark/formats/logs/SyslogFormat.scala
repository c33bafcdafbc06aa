package drillspark.formats.logs

import java.time.{OffsetDateTime, ZoneOffset}
import java.time.format.DateTimeParseException

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-syslog")`: RFC 5424 syslog files as Drill reads them. */
final class SyslogSource extends FormatSource {
  override def reader: FormatReader = SyslogFormat
}

/** One RFC 5424 message: the header's fields (null for `-`), structured data, the message. */
final case class SyslogEvent(pri: Int, time: java.lang.Long, host: String, app: String, procId: String,
    msgId: String, data: Seq[(String, Seq[(String, String)])], message: String) {
  /** Every SD parameter of the message, later elements winning (Drill's one map of them). */
  def params: Seq[(String, String)] = {
    val m = mutable.LinkedHashMap.empty[String, String]
    data.foreach(_._2.foreach { case (k, v) => m(k) = v })
    m.toSeq
  }
}

/**
 * Drill's `syslog` format (contrib/format-syslog): one RFC 5424 message a line, in the columns
 * `event_date` (TIMESTAMP in UTC, milliseconds), `severity_code`, `facility_code` (INT),
 * `severity`, `facility` (their names), `ip` (the HOSTNAME field), `app_name`, `process_id`,
 * `message_id`, `structured_data_text` (Drill's text of the SD elements), then the parameters of
 * every SD element as one map `structured_data` — or, with `flattenStructuredData`, as VARCHAR
 * columns `structured_data_<name>` after `message`. A line that is not a syslog message fails
 * the read naming the file and line (Drill 1.22 fails on it whatever `maxErrors` says).
 */
object SyslogFormat extends FormatReader {
  override val typeName = "syslog"
  override val extensions: Seq[String] = Seq("syslog")

  private val Severities = Array("EMERG", "ALERT", "CRIT", "ERR", "WARNING", "NOTICE", "INFO", "DEBUG")
  private val Facilities = Array("KERN", "USER", "MAIL", "DAEMON", "AUTH", "SYSLOG", "LPR", "NEWS", "UUCP",
    "CRON", "AUTHPRIV", "FTP", "NTP", "AUDIT", "ALERT", "CLOCK") ++ (0 to 7).map(i => s"LOCAL$i")

  private val Head: Seq[StructField] = Seq(
    StructField("event_date", TimestampNTZType), StructField("severity_code", IntegerType),
    StructField("facility_code", IntegerType), StructField("severity", StringType), StructField("facility", StringType),
    StructField("ip", StringType), StructField("app_name", StringType), StructField("process_id", StringType),
    StructField("message_id", StringType), StructField("structured_data_text", StringType))

  private val Message = StructField("message", StringType)
  val StructuredData = "structured_data"

  private def flatten(o: FormatOptions): Boolean = o.bool("flattenStructuredData", default = false)

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val names = mutable.LinkedHashSet.empty[String]
    files.foreach(f => events(f, conf).foreach(e => names ++= e.params.map(_._1)))
    val params = names.toSeq.map(StructField(_, StringType))
    if (flatten(options)) StructType(Head ++ Seq(Message) ++ params.map(p => p.copy(name = s"${StructuredData}_${p.name}")))
    else StructType(Head ++ Seq(StructField(StructuredData, StructType(params)), Message))
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val flat = flatten(options)
    val prefix = StructuredData + "_"
    events(file, conf).map { e =>
      lazy val params = e.params.toMap
      new GenericInternalRow(schema.fields.map[Any] { f =>
        f.name match {
          case "event_date" => e.time
          case "severity_code" => e.pri % 8
          case "facility_code" => e.pri / 8
          case "severity" => UTF8String.fromString(Severities(e.pri % 8))
          case "facility" => UTF8String.fromString(Facilities.lift(e.pri / 8).getOrElse(s"${e.pri / 8}"))
          case "ip" => str(e.host)
          case "app_name" => str(e.app)
          case "process_id" => str(e.procId)
          case "message_id" => str(e.msgId)
          case "structured_data_text" => if (e.data.isEmpty) null else UTF8String.fromString(dataText(e.data))
          case "message" => str(e.message)
          case StructuredData if !flat => f.dataType match {
            case st: StructType => new GenericInternalRow(st.fieldNames.map[Any](n => str(params.getOrElse(n, null))))
            case _ => null
          }
          case n if flat && n.startsWith(prefix) => str(params.getOrElse(n.substring(prefix.length), null))
          case _ => null
        }
      })
    }
  }

  private def str(s: String): UTF8String = if (s == null) null else UTF8String.fromString(s)

  /** Drill's text of the SD elements: Java's Map text of id -> [name=value, ...]. */
  private def dataText(data: Seq[(String, Seq[(String, String)])]): String =
    data.map { case (id, ps) => s"$id=${ps.map { case (k, v) => s"$k=$v" }.mkString("[", ", ", "]")}" }.mkString("{", ", ", "}")

  private def events(file: InputFile, conf: Configuration): Iterator[SyslogEvent] = {
    val lines = LineInput.lines(this, file, conf)
    lines.filter(_.text.trim.nonEmpty).map { l =>
      try parse(l.text) catch {
        case e: SyslogSyntax => throw FormatErrors.badData(typeName, file.path, s"line ${l.number}",
          s"${e.getMessage}: ${if (l.text.length > 200) l.text.take(200) + "..." else l.text}")
      }
    }
  }

  private final class SyslogSyntax(message: String) extends RuntimeException(message)

  /** One RFC 5424 line: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD [MSG]`. */
  def parse(line: String): SyslogEvent = {
    var i = 0
    def fail(why: String): Nothing = throw new SyslogSyntax(why)
    if (!line.startsWith("<")) fail("Missing < to start PRI")
    val close = line.indexOf('>')
    if (close < 2 || close > 4) fail("Bad PRI (a number in <...> of at most 3 digits)")
    val pri = line.substring(1, close).toIntOption.filter(p => p >= 0 && p <= 191).getOrElse(fail("Bad PRI (0 to 191)"))
    i = close + 1
    def token(what: String): String = {
      if (i >= line.length) fail(s"the line ends before its $what")
      val end = line.indexOf(' ', i) match { case -1 => line.length case e => e }
      val t = line.substring(i, end)
      i = math.min(end + 1, line.length + 1)
      if (t.isEmpty) fail(s"an empty $what")
      if (t == "-") null else t
    }
    val version = token("version")
    if (version != "1") fail(s"not an RFC 5424 message (version '$version', expected 1)")
    val stamp = token("timestamp")
    val time: java.lang.Long = if (stamp == null) null else try {
      val t = OffsetDateTime.parse(stamp).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime
      t.toEpochSecond(ZoneOffset.UTC) * 1000000L + t.getNano / 1000000 * 1000L
    } catch { case _: DateTimeParseException => fail(s"Invalid timestamp: \"$stamp\"") }
    val host = token("hostname")
    val app = token("app-name")
    val proc = token("procid")
    val msgId = token("msgid")
    if (i >= line.length) fail("the line ends before its structured data")
    val data = mutable.ArrayBuffer.empty[(String, Seq[(String, String)])]
    if (line.charAt(i) == '-') i += 1
    else {
      while (i < line.length && line.charAt(i) == '[') {
        i += 1
        val idEnd = indexOfAny(line, i, " ]")
        if (idEnd < 0) fail("an unclosed structured data element")
        val id = line.substring(i, idEnd)
        i = idEnd
        val params = mutable.ArrayBuffer.empty[(String, String)]
        while (i < line.length && line.charAt(i) == ' ') {
          i += 1
          val eq = line.indexOf('=', i)
          if (eq < 0 || eq + 1 >= line.length || line.charAt(eq + 1) != '"') fail(s"a bad parameter in [$id ...]")
          val name = line.substring(i, eq)
          val v = new StringBuilder
          i = eq + 2
          while (i < line.length && line.charAt(i) != '"') {
            if (line.charAt(i) == '\\' && i + 1 < line.length && "\"\\]".indexOf(line.charAt(i + 1)) >= 0) i += 1
            v += line.charAt(i)
            i += 1
          }
          if (i >= line.length) fail(s"an unclosed parameter value in [$id ...]")
          i += 1
          params += name -> v.toString
        }
        if (i >= line.length || line.charAt(i) != ']') fail(s"an unclosed structured data element [$id ...")
        i += 1
        data += id -> params.toSeq
      }
      if (data.isEmpty) fail("bad structured data (neither - nor [...])")
    }
    val message = if (i >= line.length) null else {
      if (line.charAt(i) != ' ') fail("no space between the structured data and the message")
      val m = line.substring(i + 1)
      if (m.startsWith("\uFEFF")) m.substring(1) else m
    }
    SyslogEvent(pri, time, host, app, proc, msgId, data.toSeq, message)
  }

  private def indexOfAny(s: String, from: Int, chars: String): Int = {
    var i = from
    while (i < s.length && chars.indexOf(s.charAt(i)) < 0) i += 1
    if (i < s.length) i else -1
  }
}
