package drillspark.records

import com.fasterxml.jackson.core.io.JsonStringEncoder

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.expressions.aggregate.{Aggregation, Count, CountStar, Sum}
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader, PartitionReaderFactory, Scan}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.source.Names
import drillspark.source.discovery.Node
import drillspark.source.input.DrillScanException

/**
 * Simple aggregates of a `mongo` scan asked of the server as aggregation pipelines, page by
 * page: COUNT(*), COUNT(field) and SUM(integer field), AVG (Spark splits it into SUM and COUNT),
 * grouped by fields whose values were all integers, all strings or all booleans (the rule the
 * pushed filters follow, [[MongoQuery]]). Each page answers its groups' partial results and
 * Spark's final aggregate merges them (a partial push-down, as Spark's JDBC source does).
 *
 * Each aggregate is a pipeline of its own (`$match` of the page's `_id` range and the field not
 * null, then `$group` with one `$sum`): FerretDB, the tests' server, answers a `$group` of two
 * accumulators after a `$match` wrongly (the second one 0) and has no `$cond`, `$min`, `$max`,
 * `$avg` or `$literal`; one `$sum` per pipeline is what both it and MongoDB answer alike. A
 * SUM of no values is NULL in SQL and 0 in MongoDB, so a sum's pipeline matches non-null values
 * only and a group it does not return is NULL; the groups themselves come from a COUNT(*)
 * pipeline. MIN and MAX are not asked (FerretDB cannot answer them, so they could not be
 * checked against the documents).
 */
object MongoAggregate {
  private def quoted(s: String): String = "\"" + new String(JsonStringEncoder.getInstance.quoteAsString(s)) + "\""

  /** One aggregate: the condition its pipeline adds to the page's range ("" none), its `$sum`. */
  final case class Pushed(cond: String, acc: String, sum: Boolean, shown: String)

  /** The pushed aggregation: group-by paths and types, the aggregates, the scan's schema. */
  final case class Plan(groups: Seq[(String, DataType)], aggs: Seq[Pushed], schema: StructType) {
    /** `$group`'s `_id`: null (one group), else `{"g0": "$path", ...}`. */
    def groupId: String =
      if (groups.isEmpty) "null"
      else groups.zipWithIndex.map { case ((p, _), i) => s""""g$i": ${quoted("$" + p)}""" }.mkString("{", ", ", "}")

    /** The pipelines a page runs: its groups (COUNT(*)) first, then each other aggregate's. */
    def pipelines: Seq[Pushed] = Pushed("", """{"$sum": 1}""", sum = false, "count(*)") +: aggs

    def shown: String =
      s"aggregate: group by $groupId, ${aggs.map(_.shown).mkString("[", ", ", "]")}"
  }

  private val Groupable = Set(Node.INT, Node.BIGINT, Node.STRING, Node.BOOL)
  private val Countable = Groupable + Node.DOUBLE

  /** The type Spark's schema gives the column at `parts` (names matched as Drill's). */
  private def typeAt(schema: StructType, parts: Seq[String]): Option[DataType] =
    parts.foldLeft(Option[DataType](schema)) {
      case (Some(s: StructType), p) => s.fields.find(f => Names.fold(f.name) == Names.fold(p)).map(_.dataType)
      case _ => None
    }

  private def column(root: Node, e: Any, kinds: Set[Int]): Option[(String, Seq[String])] = e match {
    case r: NamedReference =>
      val name = r.fieldNames().map(p => "`" + p.replace("`", "``") + "`").mkString(".")
      MongoQuery.field(root, name).filter(f => kinds(f._2.kind)).map(f => (f._1, r.fieldNames().toSeq))
    case _ => None
  }

  /** The plan of `aggregation` over a collection of discovered tree `root`, or None when any
   * part of it cannot be asked (then Spark aggregates every document, as before). */
  def plan(root: Node, schema: StructType, aggregation: Aggregation): Option[Plan] = {
    val groups = aggregation.groupByExpressions().toSeq.map { e =>
      column(root, e, Groupable).flatMap { case (path, parts) =>
        typeAt(schema, parts).filter(Seq(IntegerType, LongType, StringType, BooleanType).contains(_)).map(path -> _)
      }
    }
    val aggs = aggregation.aggregateExpressions().toSeq.map {
      case _: CountStar => Some(Pushed("", """{"$sum": 1}""", sum = false, "count(*)"))
      case c: Count if !c.isDistinct => column(root, c.column(), Countable).map { case (p, _) =>
        Pushed(s"""{${quoted(p)}: {"$$ne": null}}""", """{"$sum": 1}""", sum = false, s"count($p)")
      }
      case s: Sum if !s.isDistinct => column(root, s.column(), Set(Node.INT, Node.BIGINT)).map { case (p, _) =>
        Pushed(s"""{${quoted(p)}: {"$$ne": null}}""", s"""{"$$sum": ${quoted("$" + p)}}""", sum = true, s"sum($p)")
      }
      case _ => None
    }
    if (groups.exists(_.isEmpty) || aggs.exists(_.isEmpty)) return None
    val fields = groups.flatten.zipWithIndex.map { case ((_, t), i) => StructField(s"group_$i", t) } ++
      aggs.flatten.zipWithIndex.map { case (a, i) => StructField(s"agg_$i", LongType, nullable = a.sum) }
    Some(Plan(groups.flatten, aggs.flatten, StructType(fields)))
  }

  /** The partial rows of one page: its groups, each with its aggregates' values. */
  def rows(plan: Plan, page: MongoRange): Seq[InternalRow] = {
    // one pipeline per distinct aggregate (COUNT(*) asked by the query is the groups' own)
    val distinct = plan.pipelines.map(p => (p.cond, p.acc)).distinct
    val answered = distinct.map { case (cond, acc) =>
      val p = Pushed(cond, acc, sum = false, "")
      val stages = Seq(
        MongoPages.rangeFilter(page.low, page.high, p.cond) match {
          case "" => ""
          case m => s"""{"$$match": $m}"""
        },
        s"""{"$$group": {"_id": ${plan.groupId}, "v": ${p.acc}}}""").filter(_.nonEmpty)
      try MongoPages.aggregate(page.uri, page.db, page.coll, stages, page.batchSize)
      catch {
        case e: DrillScanException => throw e
        case e: Exception => throw new DrillScanException(s"${page.place}: ${e.getClass.getSimpleName}: ${e.getMessage}", e)
      }
    }
    val results = plan.pipelines.map(p => answered(distinct.indexOf((p.cond, p.acc))))
    // the groups, in the server's order; null and a missing field are one group (both null)
    val keys = scala.collection.mutable.LinkedHashMap[Seq[Any], Array[Any]]()
    results.zip(plan.pipelines).zipWithIndex.foreach { case ((docs, p), i) =>
      docs.foreach { doc =>
        val k = key(plan, doc.get("_id"), page)
        val values = if (i == 0) keys.getOrElseUpdate(k, Array.fill[Any](plan.pipelines.size)(null)) else keys.get(k).orNull
        if (values != null) {
          val v = number(doc.get("v"), p, page)
          values(i) = if (values(i) == null) v else values(i).asInstanceOf[Long] + v
        }
      }
    }
    keys.toSeq.map { case (k, values) =>
      val aggs = plan.pipelines.indices.drop(1).map { i =>
        if (values(i) == null && !plan.pipelines(i).sum) 0L else values(i) // COUNT of none is 0
      }
      new GenericInternalRow((k ++ aggs).toArray): InternalRow
    }
  }

  private def key(plan: Plan, id: AnyRef, page: MongoRange): Seq[Any] = plan.groups.zipWithIndex.map { case ((path, t), i) =>
    val v = id match {
      case m: java.util.Map[_, _] => m.asInstanceOf[java.util.Map[String, AnyRef]].get(s"g$i")
      case _ => null
    }
    (t, v) match {
      case (_, null) => null
      case (StringType, s: String) => UTF8String.fromString(s)
      case (IntegerType, n: java.lang.Integer) => n.intValue
      case (LongType, n @ (_: java.lang.Integer | _: java.lang.Long)) => n.asInstanceOf[Number].longValue
      case (BooleanType, b: java.lang.Boolean) => b.booleanValue
      case _ => throw new DrillScanException(s"${page.place}: the server grouped $path by $v, " +
        s"which is not of the column's type $t (the collection changed since the query was planned?)")
    }
  }

  private def number(v: AnyRef, p: Pushed, page: MongoRange): Long = v match {
    case n @ (_: java.lang.Integer | _: java.lang.Long) => n.asInstanceOf[Number].longValue
    case other => throw new DrillScanException(s"${page.place}: the server's ${p.shown} is $other, " +
      "not a BIGINT (a sum past BIGINT's range?)")
  }
}

/** A page's partial aggregates, one Spark task each. */
final case class MongoAggregatePartition(page: MongoRange) extends InputPartition

/** The scan of a pushed aggregation: each page's groups from the server, merged by Spark. */
final class MongoAggregateScan(plan: MongoAggregate.Plan, pages: Seq[MongoRange], table: String)
  extends Scan with Batch {
  override def readSchema(): StructType = plan.schema
  override def description(): String = s"mongo [$table] pages: ${pages.size}, pushed: ${plan.shown}"
  override def toBatch: Batch = this
  override def planInputPartitions(): Array[InputPartition] =
    pages.map(p => MongoAggregatePartition(p): InputPartition).toArray
  override def createReaderFactory(): PartitionReaderFactory = new MongoAggregateReaders(plan)
}

final class MongoAggregateReaders(plan: MongoAggregate.Plan) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val page = partition.asInstanceOf[MongoAggregatePartition].page
    new PartitionReader[InternalRow] {
      private lazy val rows = MongoAggregate.rows(plan, page).iterator
      private var current: InternalRow = _
      override def next(): Boolean = rows.hasNext && { current = rows.next(); true }
      override def get(): InternalRow = current
      override def close(): Unit = ()
    }
  }
}
