package drillspark.source

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A source whose table is resolved once per load: Spark asks [[inferSchema]] for the schema and
 * then [[getTable]] for the table of the same options, and both must come from one listing (a
 * file added in between would otherwise be read with a schema that never saw it) and one schema
 * read. The sources (drill, the formats, drill-parquet, drill-mongo) say how to [[resolve]].
 */
abstract class LoadsOnce[T <: Table] extends TableProvider {

  /** The table of `options` (`schema`: the one given, when not the one inferred here). */
  protected def resolve(options: CaseInsensitiveStringMap, schema: Option[StructType]): T

  private var resolved: (Map[String, String], T) = _

  // Table.schema() is deprecated for columns(); each of these tables overrides it (its schema
  // is what it is built from), and inferSchema's contract is a StructType
  @scala.annotation.nowarn("cat=deprecation")
  override def inferSchema(options: CaseInsensitiveStringMap): StructType = {
    val table = resolve(options, None)
    resolved = (options.asCaseSensitiveMap().asScala.toMap, table)
    table.schema()
  }

  @scala.annotation.nowarn("cat=deprecation")
  override def getTable(schema: StructType, partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val last = resolved
    resolved = null
    if (last != null && last._1 == properties.asScala.toMap && last._2.schema() == schema) last._2
    else resolve(new CaseInsensitiveStringMap(properties), Option(schema))
  }
}
