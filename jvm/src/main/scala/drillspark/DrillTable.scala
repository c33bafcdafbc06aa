package drillspark

/**
 * Marks the tables that read through drillspark (the `drill` source and the `dfs` catalog).
 * Drill-only analyzer rules (missing columns resolve to nulls) apply to plans that read one
 * of these, and leave every other Spark query exactly as Spark would run it.
 */
trait DrillTable
