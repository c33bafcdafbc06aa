package drillspark.formats.xml

import java.io.InputStream
import javax.xml.stream.{XMLInputFactory, XMLStreamConstants, XMLStreamException, XMLStreamReader}

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.{HeldPages, InputFile}

/** `spark.read.format("drill-xml")`: XML documents as Drill's xml format reads them. */
final class XmlSource extends FormatSource {
  override def reader: FormatReader = XmlFormat
}

/** An element's content within a row: text (every piece, in order) or a map of children. */
private[xml] sealed trait XValue
private[xml] final class XText extends XValue { val pieces = mutable.ArrayBuffer.empty[String] }
private[xml] final class XMap extends XValue { val entries = mutable.LinkedHashMap.empty[String, XValue] }

/** One row: the attributes under Drill's names, and the row element's children. */
private[xml] final class XRow {
  val attributes = mutable.LinkedHashMap.empty[String, java.lang.StringBuilder]
  val fields = new XMap
}

/**
 * Drill's `xml` format (contrib/format-xml). Each element at depth `dataLevel` (1: the root, so
 * the whole document is one row) is a row; its child elements are its columns, named as
 * written (namespace prefixes kept: `r:v`): an element's text, trimmed, is VARCHAR (with
 * `allTextMode` false the column's first value types it: a number DOUBLE, true/false BOOLEAN),
 * an element with children is a map (struct) of them, and an element repeated in one row or
 * map is one column holding their texts concatenated (the last value when typed). Empty or
 * blank elements make no column. Attributes go to the first column, the map `attributes`,
 * keyed `<element>_<name>`
 * with the path of enclosing maps as Drill builds it (a map's end resets that path: Drill's own
 * naming, kept). DTDs and external entities are refused (a file never reads another one).
 * A malformed document fails naming the file, line and column.
 */
object XmlFormat extends FormatReader {
  override val typeName = "xml"
  override val extensions: Seq[String] = Seq("xml")

  val Attributes = "attributes"

  private def dataLevel(o: FormatOptions): Int = {
    val level = o.int("dataLevel", 1)
    if (level < 1) throw FormatErrors.badConfig(typeName, s"option 'dataLevel' must be 1 or more, not $level")
    level
  }

  private def allText(o: FormatOptions): Boolean = o.bool("allTextMode", default = true)

  /** The schema tree: a leaf (typed by its first value; text once a later one does not fit) or a map. */
  private sealed trait SNode
  private final class SLeaf(var dataType: DataType) extends SNode
  private final class SMap extends SNode { val children = mutable.LinkedHashMap.empty[String, SNode] }

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val attrs = mutable.LinkedHashSet.empty[String]
    val top = new SMap
    val typed = !allText(options)
    files.foreach { f =>
      val rows = XmlRows(f, dataLevel(options), conf)
      try rows.foreach { r =>
        attrs ++= r.attributes.keys
        merge(top, r.fields, typed)
      } finally rows.close()
    }
    StructType(StructField(Attributes, StructType(attrs.toSeq.map(StructField(_, StringType)))) +:
      top.children.toSeq.map { case (n, node) => StructField(n, sparkType(node)) })
  }

  private def merge(into: SMap, value: XMap, typed: Boolean): Unit = value.entries.foreach {
    case (name, m: XMap) => into.children.get(name) match {
      case Some(s: SMap) => merge(s, m, typed)
      case _ => val s = new SMap; into.children(name) = s; merge(s, m, typed) // a map wins over text
    }
    case (name, t: XText) => into.children.get(name) match {
      case Some(_: SMap) =>
      case Some(l: SLeaf) => t.pieces.foreach(p => if (!fits(l.dataType, p)) l.dataType = StringType)
      case None =>
        val l = new SLeaf(if (typed) firstType(t.pieces.head) else StringType)
        into.children(name) = l
        t.pieces.foreach(p => if (!fits(l.dataType, p)) l.dataType = StringType)
    }
  }

  /** Drill types a column by its first value: a plain number DOUBLE, true/false BOOLEAN. */
  private def firstType(v: String): DataType =
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) BooleanType
    else if (v.nonEmpty && v.toDoubleOption.isDefined && !v.exists(c => c.isLetter && c != 'e' && c != 'E')) DoubleType
    else StringType

  /**
   * A later value keeps the column's type if Drill reads it as that type (NaN and Infinity are
   * numbers then). One that does not (Drill fails on `x` in a DOUBLE column, reads `yes` as
   * false in a BOOLEAN one) makes the column VARCHAR: no value is lost (docs/formats.md).
   */
  private def fits(t: DataType, v: String): Boolean = t match {
    case DoubleType => v.toDoubleOption.isDefined
    case BooleanType => v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")
    case _ => true
  }

  private def sparkType(n: SNode): DataType = n match {
    case l: SLeaf => l.dataType
    case m: SMap => StructType(m.children.toSeq.map { case (k, c) => StructField(k, sparkType(c)) })
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val rows = XmlRows(file, dataLevel(options), conf)
    new Iterator[InternalRow] with AutoCloseable {
      override def hasNext: Boolean = rows.hasNext
      override def next(): InternalRow = {
        val r = rows.next()
        new GenericInternalRow(schema.fields.map[Any] { f =>
          if (f.name == Attributes) f.dataType match {
            case st: StructType => new GenericInternalRow(st.fieldNames.map[Any](k =>
              r.attributes.get(k).map(b => UTF8String.fromString(b.toString)).orNull))
            case _ => null
          } else value(r.fields.entries.get(f.name), f.dataType, rows, f.name)
        })
      }
      override def close(): Unit = rows.close()
    }
  }

  /** A value in Spark's form; a missing map is a map of nulls (Drill's `{}`). */
  private def value(v: Option[XValue], t: DataType, rows: XmlRows, name: String): Any = (v, t) match {
    case (_, st: StructType) =>
      val m = v.collect { case x: XMap => x }
      new GenericInternalRow(st.fields.map[Any](c => value(m.flatMap(_.entries.get(c.name)), c.dataType, rows, c.name)))
    case (Some(x: XText), StringType) => UTF8String.fromString(x.pieces.mkString)
    case (Some(x: XText), DoubleType) =>
      val last = x.pieces.last
      last.toDoubleOption.getOrElse(throw FormatErrors.badData(typeName, rows.path, s"near line ${rows.line}",
        s"element <$name> holds '$last', not the number its column (DOUBLE) takes"))
    case (Some(x: XText), BooleanType) => x.pieces.last.equalsIgnoreCase("true")
    case (Some(x: XText), _) => UTF8String.fromString(x.pieces.mkString)
    case _ => null
  }
}

/** The rows of one XML file, streamed with StAX. */
private[xml] final class XmlRows(val path: String, in: InputStream, level: Int) extends Iterator[XRow] with AutoCloseable {
  private val factory = XMLInputFactory.newInstance()
  factory.setProperty(XMLInputFactory.SUPPORT_DTD, false)
  factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false)
  factory.setProperty(XMLInputFactory.IS_COALESCING, true)
  // Drill names elements and attributes as written (`r:v`, `xmlns:q` an attribute like any other)
  factory.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, false)
  private val xml: XMLStreamReader = try factory.createXMLStreamReader(in) catch {
    case e: XMLStreamException => in.close(); throw malformed(e)
  }
  private var depth = 0
  private var pending: XRow = _
  private var finished = false

  def line: Int = xml.getLocation.getLineNumber

  private def malformed(e: XMLStreamException): RuntimeException = {
    val at = Option(e.getLocation).map(l => s"line ${l.getLineNumber}, column ${l.getColumnNumber}").getOrElse("")
    val why = Option(e.getMessage).getOrElse("malformed XML").replaceAll("(?s)^ParseError at \\[row,col\\]:\\[\\d+,\\d+\\]\\s*Message:\\s*", "")
    FormatErrors.badData(XmlFormat.typeName, path, at, s"malformed XML: ${why.trim}")
  }

  /** A name with its prefix (a parser that is not namespace-aware may keep it in the local name). */
  private def qualified(prefix: String, local: String): String =
    if (prefix == null || prefix.isEmpty || local.contains(':')) local else s"$prefix:$local"

  private def elementName: String = qualified(xml.getPrefix, xml.getLocalName)

  private def step(): Int = try xml.next() catch { case e: XMLStreamException => throw malformed(e) }

  /** An element being read inside a row: its name, text pieces and children (if any). */
  private final class Frame(val name: String) {
    val text = new XText
    var map: XMap = _
  }

  private def advance(): XRow = {
    while (!finished) {
      val event = if (xml.hasNext) step() else { finished = true; XMLStreamConstants.END_DOCUMENT }
      event match {
        case XMLStreamConstants.START_ELEMENT =>
          depth += 1
          if (depth == level) return readRow()
        case XMLStreamConstants.END_ELEMENT => depth -= 1
        case XMLStreamConstants.END_DOCUMENT => finished = true
        case _ =>
      }
    }
    null
  }

  /** The row element the reader stands on, to its end. */
  private def readRow(): XRow = {
    val row = new XRow
    val rowName = elementName
    var prefix = ""
    def attributes(element: String): Unit = (0 until xml.getAttributeCount).foreach { i =>
      val attr = qualified(xml.getAttributePrefix(i), xml.getAttributeLocalName(i))
      row.attributes.getOrElseUpdate(s"$prefix${element}_$attr", new java.lang.StringBuilder)
        .append(xml.getAttributeValue(i))
    }
    attributes(rowName)
    val stack = mutable.Stack.empty[Frame]
    var rowDone = false
    while (!rowDone) {
      step() match {
        case XMLStreamConstants.START_ELEMENT =>
          depth += 1
          stack.headOption.foreach { parent =>
            if (parent.map == null) { parent.map = new XMap; prefix = prefix + parent.name + "_" }
          }
          attributes(elementName)
          stack.push(new Frame(elementName))
        case XMLStreamConstants.CHARACTERS | XMLStreamConstants.CDATA =>
          if (stack.nonEmpty && !xml.isWhiteSpace) stack.head.text.pieces += xml.getText
        case XMLStreamConstants.END_ELEMENT =>
          depth -= 1
          if (stack.isEmpty) rowDone = true
          else {
            val done = stack.pop()
            val parent = if (stack.isEmpty) row.fields else stack.head.map
            if (done.map != null) {
              prefix = "" // Drill's attribute path restarts after a map ends
              parent.entries.get(done.name) match {
                case Some(m: XMap) => mergeMaps(m, done.map)
                case _ => parent.entries(done.name) = done.map
              }
            } else {
              // Drill trims an element's text; an element with only blanks has no value
              val text = done.text.pieces.mkString.trim
              done.text.pieces.clear()
              if (text.nonEmpty) parent.entries.get(done.name) match {
                case Some(t: XText) => t.pieces += text
                case Some(_: XMap) =>
                case None => done.text.pieces += text; parent.entries(done.name) = done.text
              }
            }
          }
        case XMLStreamConstants.END_DOCUMENT => rowDone = true; finished = true
        case _ =>
      }
    }
    row
  }

  private def mergeMaps(into: XMap, from: XMap): Unit = from.entries.foreach {
    case (k, m: XMap) => into.entries.get(k) match {
      case Some(old: XMap) => mergeMaps(old, m)
      case _ => into.entries(k) = m
    }
    case (k, t: XText) => into.entries.get(k) match {
      case Some(old: XText) => old.pieces ++= t.pieces
      case Some(_: XMap) =>
      case None => into.entries(k) = t
    }
  }

  override def hasNext: Boolean = {
    if (pending == null && !finished) pending = advance()
    pending != null
  }

  override def next(): XRow = {
    if (!hasNext) throw new NoSuchElementException("no more rows")
    val r = pending
    pending = null
    r
  }

  override def close(): Unit = try xml.close() finally in.close()
}

private[xml] object XmlRows {
  def apply(file: InputFile, level: Int, conf: Configuration): XmlRows = {
    val in = if (HeldPages.isPage(file.path)) HeldPages.open(file.path, 0L) else {
      val p = new Path(file.path)
      p.getFileSystem(conf).open(p)
    }
    new XmlRows(HeldPages.shown(file.path), in, level)
  }
}
