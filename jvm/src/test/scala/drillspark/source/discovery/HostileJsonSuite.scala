package drillspark.source.discovery

import java.io.ByteArrayInputStream
import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import org.apache.hadoop.conf.Configuration

import drillspark.testkit.{Checks, Suite}
import drillspark.source.{DrillOptions, ScannerMode}
import drillspark.source.input.{FileSplit, InputFile, Utf8Guard}

/**
 * Hostile JSON (issue #15) for schema discovery and the strict UTF-8 check under Jackson:
 * nesting of any depth is discovered on a thread with a small stack (the walk never recurses
 * past maxSchemaDepth: deeper values become JSON text), past maxDepth it is a located error;
 * a 100,000-key object is discovered whole; [[Utf8Guard]] accepts exactly what the JDK's
 * strict decoder accepts.
 */
object HostileJsonSuite extends Suite {
  val name = "hostile-json"

  private val conf = new Configuration()

  private def deepObjects(levels: Int): String =
    "{\"a\":" * (levels - 1) + "{\"a\":1}" + "}" * (levels - 1)

  private def write(dir: Path, name: String, text: String): InputFile = {
    val p = dir.resolve(name)
    Files.write(p, text.getBytes(UTF_8))
    InputFile(p.toString, Files.size(p), 0L, Nil)
  }

  /** `body` on a thread with a 512 KiB stack (a task thread's default is 1 MiB or less). */
  private def onSmallStack[T](body: => T): Either[Throwable, T] = {
    var out: Either[Throwable, T] = null
    val t = new Thread(null, () => out = try Right(body) catch { case e: Throwable => Left(e) }, "small-stack", 512L * 1024)
    t.start(); t.join()
    out
  }

  /** Struct levels from the root down member `a` to the first node that is not a struct. */
  private def typedLevels(root: Node): (Int, Node) = {
    var n = root
    var levels = 1
    while (n.kind == Node.STRUCT && n.members != null && n.members.containsKey("a")) {
      n = n.members.get("a").node; levels += 1
    }
    (levels, n)
  }

  private def deep(c: Checks, dir: Path): Unit = {
    for (levels <- Seq(50, 300, 1000); scanner <- Seq(ScannerMode.Fast, ScannerMode.Jackson)) {
      val f = write(dir, s"deep$levels.json", deepObjects(levels) + "\n{\"b\": 2}\n")
      val o = DrillOptions(paths = Seq(f.path))
      val what = s"$levels levels, scanner $scanner"
      onSmallStack(SchemaDiscovery.discoverSplit(conf, FileSplit(f, 0L, -1L), o, scanner)) match {
        case Left(e) => c.check(false, s"$what: $e")
        case Right(found) =>
          c.equal(found.records, 2L, s"$what: records")
          val (typed, last) = typedLevels(found.node)
          if (levels <= o.maxSchemaDepth) c.equal((typed, last.kind), (levels + 1, Node.BIGINT), s"$what: typed levels")
          else {
            // the member at level maxSchemaDepth holds the maps below it as JSON text
            c.equal((typed, last.kind), (o.maxSchemaDepth + 1, Node.DEEP), s"$what: typed levels")
            c.check(last.deepAt != null && last.deepAt.endsWith(s"deep$levels.json line 1"), s"$what: deepAt ${last.deepAt}")
            c.equal(Node.toSpark(last, o), org.apache.spark.sql.types.StringType, s"$what: type")
          }
      }
    }
    for (levels <- Seq(1001, 20000); scanner <- Seq(ScannerMode.Fast, ScannerMode.Jackson)) {
      val f = write(dir, s"deep$levels.json", deepObjects(levels) + "\n")
      val o = DrillOptions(paths = Seq(f.path))
      val got = onSmallStack(SchemaDiscovery.discoverSplit(conf, FileSplit(f, 0L, -1L), o, scanner))
      val msg = got.left.toOption.map(e => s"${e.getClass.getSimpleName}: ${e.getMessage}").getOrElse("no error")
      c.check(msg.startsWith("DrillScanException") && msg.contains(s"deep$levels.json line 1, column 5002") &&
        msg.contains("option maxDepth"), s"$levels levels, scanner $scanner: $msg")
    }
    // a shallow scalar and a deep map at one path: JSON text (not a type conflict), merged too
    val a = write(dir, "m1.json", "{\"x\": {\"y\": 1}}\n")
    val b = write(dir, "m2.json", "{\"x\": {\"y\": {\"z\": [1]}}}\n")
    val o = DrillOptions(paths = Nil, maxSchemaDepth = 2)
    val na = SchemaDiscovery.discoverSplit(conf, FileSplit(a, 0L, -1L), o).node
    val nb = SchemaDiscovery.discoverSplit(conf, FileSplit(b, 0L, -1L), o).node
    Node.mergeInto(na, nb)
    val y = na.members.get("x").node.members.get("y").node
    c.equal(y.kind, Node.DEEP, "merged scalar and deep map")
    c.check(na.conflicts.isEmpty, s"merged: no type conflict, got ${na.conflicts}")
  }

  private def wide(c: Checks, dir: Path): Unit = {
    val keys = 100000
    val f = write(dir, "wide.json", (0 until keys).map(i => f"\"k$i%06d\":$i").mkString("{", ",", "}\n"))
    for (scanner <- Seq(ScannerMode.Fast, ScannerMode.Jackson)) {
      val o = DrillOptions(paths = Seq(f.path))
      val found = SchemaDiscovery.discoverSplit(conf, FileSplit(f, 0L, -1L), o, scanner)
      val names = Node.structOf(found.node, o).fieldNames
      c.equal((names.length, names.head, names.last), (keys, "k000000", "k099999"), s"wide, scanner $scanner")
    }
  }

  private val decoder = StandardCharsets.UTF_8.newDecoder()
    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)

  private def jdk(b: Array[Byte]): Boolean =
    try { decoder.reset(); decoder.decode(ByteBuffer.wrap(b)); true }
    catch { case _: CharacterCodingException => false }

  /** The guard passes `b` through unchanged and finds nothing wrong. */
  private def guard(b: Array[Byte], chunk: Int): Boolean = {
    val g = new Utf8Guard(new ByteArrayInputStream(b), 0L)
    val out = new Array[Byte](b.length + 1)
    var n = 0
    var r = 0
    while (r >= 0) {
      r = g.read(out, n, math.min(chunk, out.length - n))
      if (r > 0) n += r
    }
    g.problems.isEmpty && n == b.length && java.util.Arrays.equals(out.take(n), b)
  }

  private def utf8(c: Checks): Unit = {
    var disagree = 0
    def same(b: Array[Byte]): Unit = {
      val (j, g1, g2) = (jdk(b), guard(b, 1), guard(b, 4096))
      if (j != g1 || j != g2) {
        disagree += 1
        if (disagree <= 20) c.check(false, s"${b.map(x => f"${x & 0xff}%02X").mkString(" ")}: JDK $j, guard $g1 / $g2")
      }
    }
    for (a <- 0 to 255) same(Array(a.toByte))
    for (a <- 0 to 255; b <- 0 to 255) same(Array(a.toByte, b.toByte))
    for (a <- 0xE0 to 0xF4; b <- 0x70 to 0xCF; d <- Seq(0x00, 0x7F, 0x80, 0xBF, 0xC0))
      same(Array(a.toByte, b.toByte, d.toByte))
    for (a <- 0xF0 to 0xF4; b <- Seq(0x80, 0x8F, 0x90, 0xBF); d <- Seq(0x80, 0xBF, 0xC0); e <- Seq(0x7F, 0x80, 0xBF))
      same(Array(a.toByte, b.toByte, d.toByte, e.toByte))
    c.equal(disagree, 0, "sequences where the guard and the JDK disagree")
    // what the message names
    val g = new Utf8Guard(new ByteArrayInputStream("a\u00e9".getBytes(UTF_8) ++ Array(0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xE2, 0x82).map(_.toByte)), 100L)
    val out = new Array[Byte](16)
    var r = 0
    while (r >= 0) r = g.read(out, 0, out.length)
    c.equal(g.problems.toArray.toSeq, Seq(
      "an overlong encoding: bytes c0 at byte 103", "a continuation byte without a lead byte: bytes af at byte 104",
      "a UTF-16 surrogate encoded in UTF-8: bytes ed a0 at byte 105",
      "a continuation byte without a lead byte: bytes 80 at byte 107",
      "a sequence cut short by the end of the input: bytes e2 82 at byte 108"), "guard problems")
  }

  def run(c: Checks): Unit = {
    val dir = Files.createTempDirectory("drillspark-hostile-")
    try { deep(c, dir); wide(c, dir); utf8(c) }
    finally Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(p => Files.delete(p))
  }
}
