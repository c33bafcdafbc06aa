package drillspark.source

import org.apache.hadoop.conf.Configuration

import drillspark.source.discovery.SchemaDiscovery
import drillspark.source.input.FileSplit

/**
 * Discovery alone, the byte scanner against the Jackson token pass, in one JVM with alternating
 * rounds (JIT warm for both): each round discovers every file (whole, one task per file) on
 * `threads` threads with one scanner, then the other. Run as
 * `java -cp CLASSPATH drillspark.source.DiscoveryBench threads rounds file...`;
 * prints `DISCOVERY <fast|jackson> <wall seconds> <thread CPU seconds> <records>` per round and
 * scanner (a busy machine shows in the wall time only).
 */
object DiscoveryBench {
  def main(args: Array[String]): Unit = {
    val conf = new Configuration()
    val files = ScannerBench.files(args.drop(2).toSeq)
    val o = DrillOptions(files.map(_.path))
    ScannerBench.alternate("DISCOVERY", "DISCOVERY_ONLY", args(0).toInt, args(1).toInt, files, ScannerMode.BytesOnly) {
      (mode, f) => SchemaDiscovery.discoverSplit(conf, FileSplit(f, 0L, -1L), o, mode).records
    }
  }
}
