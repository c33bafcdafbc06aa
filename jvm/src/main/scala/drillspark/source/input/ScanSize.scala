package drillspark.source.input

import java.util.{Locale, OptionalLong}

import org.apache.spark.sql.connector.read.Statistics

import drillspark.functions.DrillConf

/**
 * What a scan of some files tells Spark's planner of its size (a DSv2 scan's
 * `SupportsReportStatistics`): the files' total length, so that a join with a small file is
 * planned as a broadcast of that side (under spark.sql.autoBroadcastJoinThreshold) instead of a
 * shuffle of both (issue 37: BI charts join small files). The row count stays unknown: it is
 * known only once the records are parsed.
 *
 * No size when a length says little of the rows: a stream-compressed file (a 1 MB `.gz` may
 * hold 50 MB of records) or a page fetched where it is read (its length is an estimate). Spark
 * then assumes a large input (spark.sql.defaultSizeInBytes), as it did for every drill scan.
 * The length is not scaled down to the columns read (Spark's own file scans do): a text's
 * length is the safe side of its rows' size.
 *
 * On by default (spark.drillspark.scanStatistics=false turns it off): it was opt-in while a
 * cancel of the broadcast nested-loop join that sizes allow left its task running, which
 * compat's InterruptibleNestedLoops fixed (docs/scan.md).
 */
object ScanSize {
  /** Compressed by a suffix, beyond the codecs the readers decode ([[JsonInput.CompressionSuffixes]]). */
  private val OtherCompressed = Seq(".zip", ".xz", ".lz4", ".snappy", ".deflate", ".br", ".lzo")

  /** The files' total length in bytes, if every length is a fair size of its rows. */
  def bytes(files: Seq[InputFile]): Option[Long] =
    if (files.exists(f => HeldPages.isFetched(f) || compressed(f.path))) None
    else Some(files.iterator.map(f => math.max(0L, f.length)).sum)

  private def compressed(path: String): Boolean = {
    val n = path.toLowerCase(Locale.ROOT)
    JsonInput.isCompressed(n) || OtherCompressed.exists(n.endsWith)
  }

  /** Spark's statistics of a scan of `files`: their size when known, the row count unknown. */
  def statistics(files: Seq[InputFile]): Statistics =
    statistics(if (DrillConf.flag(DrillConf.ScanStatistics, default = true)) bytes(files) else None)

  def statistics(size: Option[Long]): Statistics = new Statistics {
    override def sizeInBytes(): OptionalLong = size.fold(OptionalLong.empty())(OptionalLong.of)
    override def numRows(): OptionalLong = OptionalLong.empty()
  }
}
