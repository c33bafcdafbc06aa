package drillspark.source

/**
 * A table of python/drillspark/rules/ (packed into the jar by tools/build_jar.py), which the
 * Python side reads from the wheel: one owner for a Drill rule both halves need
 * (docs/architecture.md, "One owner per rule"). Tab-separated rows; blank and `#` lines skipped.
 */
private[drillspark] object RulesTable {
  def rows(name: String, columns: Int): Seq[Array[String]] = {
    val table = s"/drillspark/rules/$name"
    val in = getClass.getResourceAsStream(table)
    if (in == null) throw new IllegalStateException(s"drill: the extension jar lacks $table")
    try scala.io.Source.fromInputStream(in, "UTF-8").getLines()
      .filter(line => line.trim.nonEmpty && !line.startsWith("#"))
      .map { line =>
        val cells = line.split("\t", -1)
        if (cells.length != columns)
          throw new IllegalStateException(s"drill: $table: not $columns columns: ${cells.mkString(" | ")}")
        cells
      }.toVector
    finally in.close()
  }
}
