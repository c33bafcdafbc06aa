package drillspark

/** A typed aggregate whose state for one group stays bounded (one value: drillspark's MIN, MAX
 * and ANY_VALUE of a VARCHAR), so a hash aggregate may hold many groups of it in memory; one
 * whose state grows with its group's rows (COLLECT_LIST, MEDIAN) is sorted instead
 * (compat.BoundedHashAggregates). */
trait BoundedAggregateState
