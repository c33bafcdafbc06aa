package drillspark.source.read

import java.io.{BufferedReader, InputStreamReader, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.source.{DrillOptions, ScannerMode}
import drillspark.source.discovery.{Node, SchemaDiscovery}
import drillspark.source.input.{FileSplit, InputFile, InputFiles}

/**
 * The JSON reader's fuzzing entry point (tests/fuzz/test_json_reader_fuzz.py): a plain JVM, no
 * Spark session, reading one request per line on stdin and answering one JSON line on stdout.
 * A request `{"path": F, "options": {...}, "splitBytes": N}` reads file F as the `drill`
 * source would, every way it can be read, each on a fresh thread with a task thread's stack:
 * discovery then rows through the Jackson path (`jackson`) and through the byte path handing
 * over to Jackson (`fast`), the count path's structural scan (`count`), and, with `splitBytes`,
 * the fast path over the file cut into line-aligned splits of that size (`split`). Each
 * outcome is `{"schema", "rows", "records"}` or `{"error": "Class: message"}`; the Python
 * side checks that errors are the documented kinds and that the ways agree.
 */
object ReadProbe {
  private val mapper = new ObjectMapper()
  private val conf = new Configuration()
  /** A Spark task thread's stack (the JVM default for new threads on 64-bit Linux). */
  private val TaskStack = 1L << 20

  def main(args: Array[String]): Unit = {
    val out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8")
    System.setOut(System.err) // nothing else may write on the answer stream
    val in = new BufferedReader(new InputStreamReader(System.in, UTF_8))
    var line = in.readLine()
    while (line != null) {
      val answer = try answerTo(line) catch {
        case e: Throwable => mapper.createObjectNode().put("probe", s"probe failed: $e")
      }
      out.println(mapper.writeValueAsString(answer))
      line = in.readLine()
    }
  }

  private def answerTo(line: String): ObjectNode = {
    val req = mapper.readTree(line)
    val path = req.get("path").asText()
    val opts = new java.util.HashMap[String, String]()
    Option(req.get("options")).foreach(n => n.properties().asScala.foreach(e => opts.put(e.getKey, e.getValue.asText())))
    opts.put("path", path)
    val o = DrillOptions(new CaseInsensitiveStringMap(opts))
    val file = InputFile(path, Files.size(Paths.get(path)), 0L, Nil)
    val whole = Seq(FileSplit(file, 0L, -1L))
    val answer = mapper.createObjectNode()
    answer.set[ObjectNode]("jackson", onTaskThread(read(whole, o, ScannerMode.Jackson)))
    answer.set[ObjectNode]("fast", onTaskThread(read(whole, o, ScannerMode.Fast)))
    if (o.countScan && !o.skipInvalidRecords && !o.replaceInvalidUtf8)
      answer.set[ObjectNode]("count", onTaskThread(count(file, o)))
    val splitBytes = Option(req.get("splitBytes")).map(_.asLong()).getOrElse(0L)
    // cut where the source would (InputFiles.splits: a file whose head looks like JSON lines)
    if (splitBytes > 0 && file.length > splitBytes && o.splitFiles && !o.replaceInvalidUtf8 &&
        InputFiles.looksLineDelimited(conf, file, o)) {
      val splits = (0L until file.length by splitBytes).map(s => FileSplit(file, s, math.min(file.length, s + splitBytes)))
      answer.set[ObjectNode]("split", onTaskThread(read(splits, o, ScannerMode.Fast, discoverFrom = whole)))
    }
    answer
  }

  private def onTaskThread(body: => ObjectNode): ObjectNode = {
    var out: ObjectNode = null
    val t = new Thread(null, () => out = try body catch { case e: Throwable => failed(e) }, "probe-task", TaskStack)
    t.start(); t.join()
    out
  }

  private def failed(e: Throwable): ObjectNode = {
    val where = e.getStackTrace.take(12).mkString(" < ")
    mapper.createObjectNode().put("error", s"${e.getClass.getName}: ${e.getMessage}").put("at", where)
  }

  /** Discovery (of `discoverFrom`'s splits) then the rows of `splits`, read with `scanner`. */
  private def read(splits: Seq[FileSplit], o: DrillOptions, scanner: Int,
      discoverFrom: Seq[FileSplit] = null): ObjectNode = {
    val from = Option(discoverFrom).getOrElse(splits)
    var records = 0L
    val root = Node.root(from.head.file.path)
    from.foreach { s =>
      val found = SchemaDiscovery.discoverSplit(conf, s, o, scanner)
      Node.mergeInto(root, found.node, sameFile = true)
      records += found.records
    }
    SchemaDiscovery.checkConflicts(root, o)
    val schema = Node.structOf(root, o)
    val reader = new DrillPartitionReader(splits, schema, o.copy(readScanner = scanner), conf, None)
    val rows = mapper.createArrayNode()
    try {
      while (reader.next()) {
        val it = reader.get().rowIterator()
        while (it.hasNext) rows.add(show(it.next(), schema))
      }
    } finally reader.close()
    val out = mapper.createObjectNode().put("schema", schema.simpleString).put("records", records)
    out.set[ObjectNode]("rows", rows)
    out
  }

  private def count(file: InputFile, o: DrillOptions): ObjectNode = {
    val c = new RecordCounter(conf, file.path, 0L, -1L, o)
    var n = 0L
    try {
      var k = c.count(Int.MaxValue)
      while (k > 0) { n += k; k = c.count(Int.MaxValue) }
    } finally c.close()
    mapper.createObjectNode().put("records", n)
  }

  private def show(row: InternalRow, s: StructType): String =
    s.fields.indices.map { i =>
      val f = s.fields(i)
      s"${f.name}=${if (row.isNullAt(i)) "null" else show(row.get(i, f.dataType), f.dataType)}"
    }.mkString("{", ", ", "}")

  private def show(v: Any, dt: DataType): String = (v, dt) match {
    case (null, _) => "null"
    case (r: InternalRow, s: StructType) => show(r, s)
    case (a: ArrayData, at: ArrayType) =>
      (0 until a.numElements()).map(i => if (a.isNullAt(i)) "null" else show(a.get(i, at.elementType), at.elementType))
        .mkString("[", ", ", "]")
    case (m: MapData, mt: MapType) =>
      (0 until m.numElements()).map(i => show(m.keyArray().get(i, mt.keyType), mt.keyType) + ": " +
        (if (m.valueArray().isNullAt(i)) "null" else show(m.valueArray().get(i, mt.valueType), mt.valueType)))
        .mkString("{", ", ", "}")
    case (b: Array[Byte], _) => b.map(x => f"$x%02x").mkString("0x", "", "")
    case (d: java.lang.Double, _) => java.lang.Double.toString(d) // -0.0 and NaN spelled out
    case _ => v.toString
  }
}
