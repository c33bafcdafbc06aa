package drillspark.source

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.types.{StructField, StructType}

import drillspark.source.discovery.{Node, SchemaDiscovery}
import drillspark.source.input.FileSplit
import drillspark.source.read.DrillPartitionReader

/**
 * The row readers alone, the byte reader against the Jackson path, in one JVM with alternating
 * rounds (JIT warm for both): each round reads every file (whole, one task per file) on
 * `threads` threads into column batches, projecting `columns` (comma-separated dotted paths,
 * or `*`). Reports wall and thread CPU seconds, so a busy machine shows in the wall time only.
 * Run as `java -cp CLASSPATH drillspark.source.ReadBench threads rounds columns file...`;
 * prints `READ <fast|jackson> <wall> <cpu> <rows>` per round and reader.
 */
object ReadBench {
  def main(args: Array[String]): Unit = {
    val conf = new Configuration()
    val files = ScannerBench.files(args.drop(3).toSeq)
    val o = DrillOptions(files.map(_.path))
    val root = Node.root("")
    files.foreach(f => Node.mergeInto(root, SchemaDiscovery.discoverSplit(conf, FileSplit(f, 0L, -1L), o).node))
    val full = Node.structOf(root, o)
    val schema = if (args(2) == "*") full else prune(full, args(2).split(",").toSeq.map(_.split("\\.").toList))
    ScannerBench.alternate("READ", "READ_ONLY", args(0).toInt, args(1).toInt, files, ScannerMode.Fast) { (mode, f) =>
      val r = new DrillPartitionReader(Seq(FileSplit(f, 0L, -1L)), schema, o.copy(readScanner = mode), conf, None)
      var rows = 0L
      try while (r.next()) rows += r.get().numRows() finally r.close()
      rows
    }
  }

  /** The struct with only the given paths (as Spark's nested column pruning asks for them). */
  private def prune(s: StructType, paths: Seq[List[String]]): StructType = StructType(s.fields.flatMap { f =>
    val mine = paths.filter(_.head.equalsIgnoreCase(f.name))
    if (mine.isEmpty) None
    else if (mine.exists(_.tail.isEmpty)) Some(f)
    else f.dataType match {
      case st: StructType => Some(StructField(f.name, prune(st, mine.map(_.tail)), f.nullable, f.metadata))
      case _ => Some(f)
    }
  })
}
