package drillspark.source.input

import drillspark.testkit.{Checks, Suite}

/** How a scan's bytes are cut into input partitions: whole waves over the cores, so no core
 * idles while another reads a last, lone partition. */
object SplitPlanSuite extends Suite {
  val name = "split-plan"

  private val MiB = 1L << 20

  /** The partitions' sizes (bytes read, the open cost left out) of `files` on `cores`. */
  private def plan(files: Seq[Long], cores: Int, maxPartition: Long = 128 * MiB): Seq[Long] = {
    val split = InputFiles.balancedSplitBytes(files.sum, maxPartition, cores)
    // what InputFiles.splits does for JSON-lines files larger than the split size
    val splits = files.zipWithIndex.flatMap { case (len, i) =>
      val f = InputFile(s"f$i", len, 0L, Nil)
      if (len <= split) Seq(FileSplit(f, 0L, -1L))
      else (0L until len by split).map(s => FileSplit(f, s, math.min(len, s + split)))
    }
    InputFiles.pack(splits, split).map(_.map(s => (if (s.end < 0) s.file.length else s.end) - s.start).sum)
  }

  /** The bytes of the busiest core when the partitions run in order on `cores`. */
  private def makespan(parts: Seq[Long], cores: Int): Long = {
    val load = Array.fill(cores)(0L)
    parts.foreach { p => val i = load.indexOf(load.min); load(i) += p }
    load.max
  }

  def run(c: Checks): Unit = {
    // eight 37.5 MiB files on 2 cores (the 300 MiB benchmark): 3 + 3 + 2 files before
    val eight = Seq.fill(8)(300 * MiB / 8)
    val parts = plan(eight, 2)
    c.equal(parts.size % 2, 0, s"whole waves on 2 cores (partitions $parts)")
    c.equal(makespan(parts, 2), 150 * MiB, "each core reads half the bytes")
    c.equal(parts.sum, 300 * MiB, "every byte is read once")
    // 1 GiB in eight 128 MiB files: one file per partition, four waves, as before
    c.equal(InputFiles.balancedSplitBytes(1024 * MiB, 128 * MiB, 2), 128 * MiB, "1 GiB keeps 128 MiB splits")
    // one large file: cut into a multiple of the cores
    val one = plan(Seq(300 * MiB), 2)
    c.equal(one.size, 4, s"300 MiB in one file on 2 cores (partitions $one)")
    c.check(makespan(one, 2) <= 150 * MiB + 1, s"one file's ranges balance: $one")
    // uneven files still balance within one small file's size
    val uneven = plan(Seq(200 * MiB, 10 * MiB), 2)
    c.check(makespan(uneven, 2) <= 110 * MiB, s"a large and a small file on 2 cores: $uneven")
    // never below the open cost, never above maxPartitionBytes
    c.equal(InputFiles.balancedSplitBytes(1000L, 128 * MiB, 8), InputFiles.OpenCost, "tiny data: the open cost")
    c.equal(InputFiles.balancedSplitBytes(100L << 30, 128 * MiB, 2), 128 * MiB, "huge data: maxPartitionBytes")
    c.equal(InputFiles.balancedSplitBytes(0L, 128 * MiB, 2), InputFiles.OpenCost, "no data")
  }
}
