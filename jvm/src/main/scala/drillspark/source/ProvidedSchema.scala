package drillspark.source

import java.nio.charset.StandardCharsets
import java.util.Locale
import java.util.regex.Pattern

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.types._

import drillspark.source.input.{InputFiles, JsonInput}
import drillspark.source.write.{ColumnWriter, WriteContext}

/**
 * A provided schema (Drill's CREATE SCHEMA): option `schema` as DDL text, or the table root's
 * `.drill.schema` file (Drill's JSON form, or DDL text). Columns are `name type [not null]
 * [default 'value']`; the default fills missing and null values of a NOT NULL column.
 */
object ProvidedSchema {

  /** Split on commas that are not inside <>, (), quotes or backticks. */
  private def splitTop(s: String): Seq[String] = {
    val out = ArrayBuffer[String]()
    val cur = new StringBuilder
    var depth = 0
    var quote: Char = 0
    s.foreach { c =>
      if (quote != 0) { cur += c; if (c == quote) quote = 0 }
      else c match {
        case '\'' | '"' | '`' => quote = c; cur += c
        case '<' | '(' => depth += 1; cur += c
        case '>' | ')' => depth -= 1; cur += c
        case ',' if depth == 0 => out += cur.toString; cur.clear()
        case _ => cur += c
      }
    }
    if (cur.toString.trim.nonEmpty) out += cur.toString
    out.toSeq.map(_.trim).filter(_.nonEmpty)
  }

  private val DefaultRe = """(?is)^(.*?)\s+default\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+)(.*)$""".r

  /** A Drill type name's row of the table python/drillspark/rules/drill_types.tsv (packed into
   * the jar by tools/build_jar.py), which the Python side reads too (spark/drill_types.drill_type):
   * its Spark type (a decimal: the digits used when the name has none), where a provided schema
   * takes it (`drill`, `spark`, `refused`) and a note (for a refused name, Drill's error). */
  private[source] final case class DrillTypeName(spark: DataType, schema: String, note: String)

  private[source] lazy val TypeNames: Map[String, DrillTypeName] =
    RulesTable.rows("drill_types.tsv", 4)
      .map(r => r(0) -> DrillTypeName(DataType.fromJson("\"" + r(1) + "\""), r(2), r(3))).toMap

  private val Word = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*")
  private val Gap = Pattern.compile("\\s+")
  private val Digits = Pattern.compile("\\s*\\(\\s*(\\d+)\\s*(?:,\\s*(-?\\d+)\\s*)?\\)")
  private val Member = Pattern.compile("\\s*:")

  private def at(p: Pattern, t: String, from: Int): Option[java.util.regex.Matcher] = {
    val m = p.matcher(t).region(from, t.length)
    if (m.lookingAt()) Some(m) else None
  }

  /** One unquoted stretch of type text with each Drill type name (one word, or two:
   * `CHARACTER VARYING`, `INTERVAL DAY`) replaced by its Spark type from the table; other words
   * (`STRUCT`, `ARRAY`, `MAP`, `NOT NULL`, Spark's own names) are left to Spark's DDL parser. A
   * word followed by ':' is a struct member's name, not a type. Digits after a name count for a
   * decimal only: Drill's TIME and TIMESTAMP hold milliseconds whatever they are given. */
  private def sparkTypeWords(t: String): String = {
    val out = new StringBuilder
    val m = Word.matcher(t)
    var i = 0
    while (i < t.length && m.find(i)) {
      out ++= t.substring(i, m.start)
      val one = (m.group(), m.end)
      val two = at(Gap, t, m.end).flatMap(g => at(Word, t, g.end)).map(w => (m.group() + " " + w.group(), w.end))
      def known(n: (String, Int)) = TypeNames.contains(n._1.toUpperCase(Locale.ROOT))
      val (name, end) = two.filter(known).getOrElse(one)
      TypeNames.get(name.toUpperCase(Locale.ROOT)) match {
        case Some(row) if at(Member, t, end).isEmpty =>
          if (row.schema == "refused") throw new IllegalArgumentException(
            s"type $name is not taken by a provided schema (Drill: ${row.note})")
          val digits = at(Digits, t, end)
          val typ = (row.spark, digits) match {
            case (_: DecimalType, Some(d)) => // as spark/drill_types.drill_type: at most 38 digits, 0 <= scale <= precision
              val p = math.min(d.group(1).toInt, 38)
              DecimalType(p, math.max(0, math.min(Option(d.group(2)).fold(0)(_.toInt), p)))
            case (other, _) => other
          }
          out ++= typ.sql
          i = digits.fold(end)(_.end)
        case _ => out ++= one._1; i = one._2
      }
    }
    out ++= t.substring(math.min(i, t.length))
    out.toString
  }

  /** End (exclusive) of the quoted stretch starting at `from` (quote doubled inside: kept). */
  private def quoteEnd(s: String, from: Int): Int = {
    val q = s.charAt(from)
    var i = from + 1
    while (i < s.length && s.charAt(i) != q) i += 1
    math.min(i + 1, s.length)
  }

  /** One column's text with Drill type names rewritten: the column name (first word, or a
   * backquoted name) and quoted text (member names, comments) are left as they are. */
  private def sparkColumnText(col: String): String = {
    val nameEnd = if (col.startsWith("`")) {
      var e = quoteEnd(col, 0)
      while (e < col.length && col.charAt(e) == '`') e = quoteEnd(col, e) // `` inside a name
      e
    } else col.indexWhere(_.isWhitespace) match { case -1 => col.length; case k => k }
    val out = new StringBuilder(col.substring(0, nameEnd))
    var i = nameEnd
    while (i < col.length) {
      val q = col.indexWhere(c => c == '`' || c == '\'' || c == '"', i)
      val stop = if (q < 0) col.length else q
      out ++= sparkTypeWords(col.substring(i, stop))
      if (q >= 0) { val e = quoteEnd(col, q); out ++= col.substring(q, e); i = e } else i = stop
    }
    out.toString
  }

  /** The DDL without one pair of parentheses around the whole list, if it has them. */
  private def unwrap(ddl: String): String = {
    if (!ddl.startsWith("(") || !ddl.endsWith(")")) return ddl
    var depth = 0
    var i = 0
    while (i < ddl.length) {
      ddl.charAt(i) match {
        case '`' | '\'' | '"' => i = quoteEnd(ddl, i) - 1
        case '(' => depth += 1
        case ')' =>
          depth -= 1
          if (depth == 0) return if (i == ddl.length - 1) ddl.substring(1, i) else ddl
        case _ =>
      }
      i += 1
    }
    ddl
  }

  /** The columns of `ddl`. With `notNullNeedsDefault` false (the text reader's), a NOT NULL
   * column without a default is taken (an empty field leaves it NULL) instead of refused. */
  def parseDdl(ddl: String, notNullNeedsDefault: Boolean = true): StructType = {
    val text = unwrap(ddl.trim)
    StructType(splitTop(text).map { col =>
      val (body, default) = col match {
        case DefaultRe(b, d, rest) =>
          val v = if ((d.startsWith("'") && d.endsWith("'")) || (d.startsWith("\"") && d.endsWith("\"")))
            d.substring(1, d.length - 1).replace("\\'", "'") else d
          (b + rest, Some(v))
        case _ => (col, None)
      }
      val field = try StructType.fromDDL(sparkColumnText(body.trim)).fields match {
        case Array(f) => f
        case _ => throw new IllegalArgumentException(s"not one column: $body")
      } catch {
        case e: Exception => throw new IllegalArgumentException(
          s"drill: provided schema column '$col' cannot be parsed: ${e.getMessage.linesIterator.next()}")
      }
      val withDefault = default.fold(field)(d => field.copy(metadata =
        new MetadataBuilder().withMetadata(field.metadata).putString(ColumnWriter.DefaultKey, d).build()))
      checkReadable(withDefault)
      if (notNullNeedsDefault || default.nonEmpty) checkFill(withDefault)
      withDefault
    })
  }

  /** A type the JSON reader has no writer for (an INTERVAL: Drill's provided schema takes it) is
   * refused here, on the driver, naming the column, rather than when a task starts reading. */
  private def checkReadable(f: StructField): Unit =
    try ColumnWriter(f.dataType, new WriteContext(DrillOptions(Nil))) catch {
      case e: IllegalArgumentException => throw new IllegalArgumentException(
        s"drill: provided schema column ${f.name}: ${e.getMessage.stripPrefix("drill: ")}")
    }

  /** A NOT NULL column's default is read here, on the driver, so a bad one fails before the
   * query runs (naming the column) rather than in every task. */
  private def checkFill(f: StructField): Unit = {
    if (!f.nullable) ColumnWriter.fillValue(f).close()
    f.dataType match {
      case s: StructType => s.fields.foreach(checkFill)
      case _ =>
    }
  }

  /** Drill's `.drill.schema` JSON: {"schema": {"columns": [{"name", "type", "mode", "properties"}]}} */
  def parseSchemaFile(text: String, where: String): StructType = {
    val t = text.trim
    if (!t.startsWith("{")) return parseDdl(t)
    val root: JsonNode = try new ObjectMapper().readTree(t) catch {
      case e: Exception => throw new IllegalArgumentException(s"drill: $where is not valid JSON: ${e.getMessage}")
    }
    val cols = Option(root.path("schema").get("columns")).orElse(Option(root.get("columns")))
      .getOrElse(throw new IllegalArgumentException(s"drill: $where has no schema.columns list"))
    val ddl = cols.elements().asScala.map { c =>
      val name = c.path("name").asText()
      val typ = c.path("type").asText()
      val notNull = c.path("mode").asText("OPTIONAL").toUpperCase(Locale.ROOT) == "REQUIRED"
      val props = c.path("properties")
      val default = Option(props.get("drill.default")).orElse(Option(c.get("default"))).map(_.asText())
      s"`${name.replace("`", "``")}` $typ" + (if (notNull) " NOT NULL" else "") +
        default.map(d => " DEFAULT '" + d.replace("'", "\\'") + "'").getOrElse("")
    }.mkString(", ")
    parseDdl(ddl)
  }

  /** The provided schema: option `schema` first, else `.drill.schema` in the table root. */
  def find(conf: Configuration, o: DrillOptions, root: Option[Path]): Option[StructType] =
    o.schemaDdl.map(parseDdl(_)).orElse(root.flatMap { r =>
      val f = new Path(r, InputFiles.SchemaFileName)
      val fs = f.getFileSystem(conf)
      if (!fs.exists(f)) None
      else {
        val in = JsonInput.open(conf, f.toString, 0L, o)
        try Some(parseSchemaFile(new String(in.readAllBytes(), StandardCharsets.UTF_8), f.toString))
        finally in.close()
      }
    })

  /** Provided columns win (in their order); discovered columns the schema lacks follow. */
  def overlay(provided: StructType, discovered: StructType): StructType = {
    val names = provided.fields.map(f => Names.fold(f.name)).toSet
    StructType(provided.fields ++ discovered.fields.filterNot(f => names(Names.fold(f.name))))
  }
}
