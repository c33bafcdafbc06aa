package drillspark.catalog

/**
 * Marks drillspark's own catalogs (`dfs`), whose relations the analyzer extension resolves
 * early so the missing-column rule can see their schemas.
 */
trait DrillCatalog
