package drillspark.source.discovery

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration

import drillspark.testkit.{Checks, Suite}
import drillspark.source.{DrillOptions, ScannerMode}
import drillspark.source.input.{FileSplit, InputFile}

/**
 * Schema discovery straight from the bytes against the Jackson token pass, on random strict
 * JSON lines (nesting, arrays, escapes, non-ASCII, every number form, scalar/struct conflicts):
 * the same schema, the same conflict records (file and line), the same record count; and the
 * split rule: cut anywhere, the splits' records add up to the file's and their merged schema is
 * the file's.
 */
object DiscoverySuite extends Suite {
  val name = "discovery"

  private final class Gen(rnd: scala.util.Random) {
    private val keys = Seq("a", "b", "id", "naïve", "ключ", "member_with_a_long_name", "x y", "😀")

    def record(): String = obj(0)

    private def obj(depth: Int): String =
      (1 to rnd.nextInt(5)).map(_ => keys(rnd.nextInt(keys.size))).distinct
        .map(k => "\"" + k + "\": " + value(depth + 1)).mkString("{", ", ", "}")

    private def value(depth: Int): String = rnd.nextInt(if (depth > 4) 7 else 10) match {
      case 0 => "null"
      case 1 => if (rnd.nextBoolean()) "true" else "false"
      case 2 => (rnd.nextInt(2000) - 1000).toString
      case 3 => Seq("12345678901234", "-0", "0", "3000000000")(rnd.nextInt(4))
      case 4 => Seq("1.5", "-0.25", "1e5", "2.5E-3", "1E+2", "123456789.123456789")(rnd.nextInt(6))
      case 5 | 6 => text()
      case 7 | 8 => obj(depth)
      case _ => (0 until rnd.nextInt(4)).map(_ => value(depth + 1)).mkString("[", ",", "]")
    }

    private def text(): String = "\"" + (0 until rnd.nextInt(12)).map { _ =>
      rnd.nextInt(12) match {
        case 0 => "\\n"; case 1 => "\\\""; case 2 => "\\u00e9"; case 3 => "\\\\"; case 4 => "é"
        case 5 => "ж"; case 6 => "😀"; case 7 => "\\ud83d\\ude00"; case _ => rnd.alphanumeric.head.toString
      }
    }.mkString + "\""
  }

  def run(c: Checks): Unit = {
    val dir = Files.createTempDirectory("drillspark-discovery-")
    val conf = new Configuration()
    val rnd = new scala.util.Random(5)
    val gen = new Gen(rnd)
    try {
      for (n <- 1 to 60) {
        val lines = (1 to 1 + rnd.nextInt(60)).map(_ => gen.record())
        val sep = if (n % 5 == 0) "\r\n" else "\n"
        val path = dir.resolve(s"f$n.json")
        Files.write(path, lines.mkString("", sep, if (n % 7 == 0) "" else sep).getBytes(UTF_8))
        val file = InputFile(path.toString, Files.size(path), 0L, Nil)
        val o = DrillOptions(paths = Seq(path.toString))
        def found(s: Long, e: Long, mode: Int) = SchemaDiscovery.discoverSplit(conf, FileSplit(file, s, e), o, mode)
        def schema(node: Node) = Node.structOf(node, o)
        val jackson = found(0, file.length, ScannerMode.Jackson)
        val bytes = found(0, file.length, ScannerMode.BytesOnly)
        c.equal(bytes.records, jackson.records, s"$path: records, bytes vs Jackson")
        c.equal(bytes.records, lines.size.toLong, s"$path: records")
        c.equal(schema(bytes.node).json, schema(jackson.node).json, s"$path: schema and conflicts, bytes vs Jackson")
        for (mode <- Seq(ScannerMode.Jackson, ScannerMode.Fast)) {
          val cuts = (0L +: Seq.fill(3)(1L + rnd.nextInt(file.length.toInt)).sorted :+ file.length).distinct
          val parts = cuts.zip(cuts.tail).map { case (s, e) => found(s, e, mode) }
          c.equal(parts.map(_.records).sum, lines.size.toLong, s"$path split at $cuts (scanner $mode): records")
          // as SchemaDiscovery does: a file's later splits fold into its first (sameFile)
          val merged = parts.head.node
          parts.tail.foreach(p => Node.mergeInto(merged, p.node, sameFile = true))
          c.equal(schema(merged).simpleString, schema(jackson.node).simpleString,
            s"$path split at $cuts (scanner $mode): merged schema")
        }
      }
    } finally {
      Files.list(dir).forEach(p => Files.delete(p))
      Files.delete(dir)
    }
  }
}
