package drillspark.source.input

/**
 * Which records a line-aligned split [start, end) owns: those on the lines that *start* in it.
 * A split that does not start the file skips through the first newline at or after start - 1,
 * so a split's lines end where the next split's begin: just after the first newline at or
 * after end - 1 (`ownedEnd`). A record starting at or after `ownedEnd` is the next split's,
 * even when it starts after `end` on a line that began before it (indented lines, two objects
 * on a line, a comment before the object): that line is this split's, records and all.
 *
 * The readers feed every newline they pass (at or after end - 1 is enough) to [[newlineAt]];
 * until one is seen, everything read so far is on a line that began before `end`.
 */
final class SplitOwnership(end: Long) {
  /** First byte of the next split's first line; -1 until known (always, for a whole file). */
  var ownedEnd: Long = -1L
  private val watchFrom: Long = if (end > 0) end - 1 else Long.MaxValue

  def newlineAt(at: Long): Unit = if (ownedEnd < 0 && at >= watchFrom) ownedEnd = at + 1

  /** Bytes b(off until off + n) were read from absolute offset `at`. */
  def scan(at: Long, b: Array[Byte], off: Int, n: Int): Unit =
    if (ownedEnd < 0 && at + n > watchFrom) {
      var i = off + math.max(0L, watchFrom - at).toInt
      while (i < off + n && b(i) != '\n') i += 1
      if (i < off + n) ownedEnd = at + (i - off) + 1
    }

  /** True when what starts at `at` (a record, a top-level token) belongs to the next split. */
  def beyond(at: Long): Boolean = ownedEnd >= 0 && at >= ownedEnd
}

object Splits {
  /** Added to errors in a split that does not start the file: it may have started inside a
   * record that spans lines. */
  val SplitHint: String = " (this split starts inside the file, which was cut at line boundaries because " +
    "its first 64 KiB looked like JSON lines; if records span lines, set option splitFiles=false)"

  /** A record spanning lines runs into the next split's first line: the file is not JSON lines
   * after all. */
  def spansBoundary(file: String, recordStart: Long, nextSplit: Long): DrillScanException =
    new DrillScanException(s"drill: $file: the record starting at byte $recordStart spans several lines " +
      s"and runs into the next split, which starts at byte $nextSplit; the file was cut at line boundaries " +
      "because its first 64 KiB looked like JSON lines. Set option splitFiles=false to read such files whole.")
}
