package drillspark.records

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory}
import org.apache.spark.sql.sources.{And, EqualTo, Filter, GreaterThan, GreaterThanOrEqual, In, LessThan,
  LessThanOrEqual, Or}

import drillspark.source.input.DrillScanException

/**
 * The one owner of the rule "pushed conjuncts -> offset ranges" of a Kafka read (Drill's
 * KafkaPushDownFilterIntoScan, docs/storage.md "Push-down"), for both doors: drillspark.sql's
 * scan selection hands its `pushed` items here as JSON (spark/storage/kafka.py, through
 * [[KafkaPages.plan]]), and Spark's own door turns Spark's filters into the same items
 * ([[items]], the catalog's scan builder). An item is `[column, op, value]` (column one of
 * kafkaPartitionId, kafkaMsgOffset, kafkaMsgTimestamp in any case; op one of =, <, <=, >, >=,
 * in; value an integer, a list of them for in) or `["or", [[item, ...], ...]]`, an OR of ANDs
 * read as the union of its sides' ranges, each side also bound by the other conjuncts. A
 * timestamp bound only moves a partition's start (the broker's time index, offsetsForTimes); an
 * upper timestamp bound and IN on offsets or timestamps narrow nothing, as in Drill.
 */
object KafkaPushDown {
  val Columns: Seq[String] = Seq("kafkaPartitionId", "kafkaMsgOffset", "kafkaMsgTimestamp")
  val Ops: Seq[String] = Seq("=", "<", "<=", ">", ">=", "in")
  /** An AND of ORs multiplies out; past this many ranges, an OR narrows nothing. */
  val MaxRanges = 64

  private val Json = new ObjectMapper()

  /** One range the pushed items allow: partition ids (None: any) within [pFrom, pTo), offsets
   * within [oFrom, oTo), messages stamped at tFrom ms or later (-1: any). */
  final case class Allowed(ids: Option[Set[Long]], pFrom: Long, pTo: Long, oFrom: Long, oTo: Long, tFrom: Long) {
    def admits(id: Int): Boolean = ids.forall(_.contains(id.toLong)) && id >= pFrom && id < pTo

    /** What both this and `b` allow. */
    def and(b: Allowed): Allowed = Allowed(
      (ids, b.ids) match { case (Some(x), Some(y)) => Some(x & y); case (x, y) => x.orElse(y) },
      math.max(pFrom, b.pFrom), math.min(pTo, b.pTo), math.max(oFrom, b.oFrom), math.min(oTo, b.oTo),
      math.max(tFrom, b.tFrom))

    /** As EXPLAIN and the tests show it ("all" when nothing narrows the read). */
    def describe: String = {
      def bound(v: Long, none: Long) = if (v == none) "" else v.toString
      val out = ids.toSeq.map(s => s"partitions ${s.toSeq.sorted.mkString("[", ", ", "]")}") ++
        Seq(("partition ids", pFrom, pTo), ("offsets", oFrom, oTo)).collect {
          case (what, low, high) if low != Long.MinValue || high != Long.MaxValue =>
            s"$what [${bound(low, Long.MinValue)}, ${bound(high, Long.MaxValue)})"
        } ++ (if (tFrom >= 0) Seq(s"timestamps >= $tFrom") else Nil)
      if (out.isEmpty) "all" else out.mkString(", ")
    }
  }

  val All: Allowed = Allowed(None, Long.MinValue, Long.MaxValue, Long.MinValue, Long.MaxValue, -1L)

  private def bad(place: String, item: JsonNode): DrillScanException = new DrillScanException(
    s"$place: cannot push $item into the read: a conjunct is [column, op, value] with column one of " +
      s"${Columns.mkString(", ")}, op one of ${Ops.mkString(", ")} and an integer value (a list of them " +
      "for in), or [\"or\", [[conjunct, ...], ...]] (an OR of ANDs)")

  private def text(n: JsonNode): String = if (n.isTextual) n.asText() else n.toString

  private def plus1(v: Long): Long = if (v == Long.MaxValue) v else v + 1

  /** `r` narrowed by one conjunct `[column, op, value]`. */
  private def narrowed(place: String, r: Allowed, item: JsonNode): Allowed = {
    val ok = item.isArray && item.size == 3
    val column = if (ok) Columns.find(_.equalsIgnoreCase(text(item.get(0)))) else None
    val op = if (ok) text(item.get(1)).toLowerCase(java.util.Locale.ROOT) else ""
    val values: Seq[JsonNode] =
      if (!ok) Nil else if (op == "in") (if (item.get(2).isArray) item.get(2).asScala.toSeq else Nil) else Seq(item.get(2))
    if (column.isEmpty || !Ops.contains(op) || values.isEmpty ||
        !values.forall(v => v.isIntegralNumber && v.canConvertToLong)) throw bad(place, item)
    val v = values.head.longValue
    val (low, high0) = op match {
      case "=" => (Some(v), Some(plus1(v)))
      case ">" => (Some(plus1(v)), None)
      case ">=" => (Some(v), None)
      case _ => (None, None)
    }
    val high = op match { case "<" => Some(v); case "<=" => Some(plus1(v)); case _ => high0 }
    column.get match {
      case "kafkaPartitionId" if op == "in" => r.and(All.copy(ids = Some(values.map(_.longValue).toSet)))
      case "kafkaPartitionId" =>
        r.and(All.copy(pFrom = low.getOrElse(Long.MinValue), pTo = high.getOrElse(Long.MaxValue)))
      case "kafkaMsgOffset" if op != "in" =>
        r.and(All.copy(oFrom = low.getOrElse(Long.MinValue), oTo = high.getOrElse(Long.MaxValue)))
      case "kafkaMsgTimestamp" if op != "in" && low.nonEmpty => r.and(All.copy(tFrom = low.get))
      case _ => r
    }
  }

  /** The ranges whose union the AND of the `pushed` items allows, or an error naming `place`. */
  def ranges(place: String, pushed: JsonNode): Seq[Allowed] = {
    if (pushed == null || !pushed.isArray) throw new DrillScanException(
      s"$place: the selection's 'pushed' must be a list of [column, op, value]")
    var base = All
    val alternatives = scala.collection.mutable.ArrayBuffer[Seq[Allowed]]()
    pushed.asScala.foreach { item =>
      if (item.isArray && item.size == 2 && text(item.get(0)).equalsIgnoreCase("or")) {
        val sides = item.get(1)
        if (!sides.isArray || sides.isEmpty || !sides.asScala.forall(_.isArray)) throw bad(place, item)
        alternatives += sides.asScala.toSeq.flatMap(ranges(place, _))
      } else base = narrowed(place, base, item)
    }
    alternatives.foldLeft(Seq(base)) { (out, alts) =>
      val product = for (r <- out; a <- alts) yield r.and(a)
      if (product.size <= MaxRanges) product else out
    }
  }

  /** [[ranges]] of the items as JSON text (drillspark.sql's selection; "" or null: none). */
  def ranges(place: String, pushedJson: String): Seq[Allowed] =
    if (pushedJson == null || pushedJson.trim.isEmpty) Seq(All)
    else {
      val node = try Json.readTree(pushedJson) catch {
        case e: com.fasterxml.jackson.core.JsonProcessingException =>
          throw new DrillScanException(s"$place: the selection's 'pushed' is not JSON: ${e.getOriginalMessage}")
      }
      ranges(place, node)
    }

  /** Each range the JSON items allow, described (for the tests and EXPLAIN). */
  def describe(place: String, pushedJson: String): Array[String] = ranges(place, pushedJson).map(_.describe).toArray

  private val nodes = JsonNodeFactory.instance

  private def integral(v: Any): Option[Long] = v match {
    case l: java.lang.Long => Some(l.longValue)
    case i: java.lang.Integer => Some(i.longValue)
    case s: java.lang.Short => Some(s.longValue)
    case b: java.lang.Byte => Some(b.longValue)
    case _ => None
  }

  private def conjunct(attr: String, op: String, value: JsonNode): Seq[JsonNode] =
    Columns.find(_.equalsIgnoreCase(attr)).toSeq.map { c =>
      val a = nodes.arrayNode(); a.add(c); a.add(op); a.add(value); a: JsonNode
    }

  private def compared(attr: String, op: String, v: Any): Seq[JsonNode] =
    integral(v).toSeq.flatMap(l => conjunct(attr, op, nodes.numberNode(l)))

  /** The items one Spark filter pushes (none: it narrows nothing): comparisons and IN of the
   * three columns with integral values, an AND as its sides' items, an OR as ["or", ...] when
   * every side pushes something. */
  def items(f: Filter): Seq[JsonNode] = f match {
    case EqualTo(a, v) => compared(a, "=", v)
    case GreaterThan(a, v) => compared(a, ">", v)
    case GreaterThanOrEqual(a, v) => compared(a, ">=", v)
    case LessThan(a, v) => compared(a, "<", v)
    case LessThanOrEqual(a, v) => compared(a, "<=", v)
    case In(a, vs) if vs.nonEmpty && vs.forall(integral(_).nonEmpty) =>
      val list: ArrayNode = nodes.arrayNode()
      vs.foreach(v => list.add(integral(v).get))
      conjunct(a, "in", list)
    case And(l, r) => items(l) ++ items(r)
    case Or(_, _) =>
      def sides(g: Filter): Seq[Filter] = g match { case Or(l, r) => sides(l) ++ sides(r); case x => Seq(x) }
      val each = sides(f).map(items)
      if (each.exists(_.isEmpty)) Nil
      else {
        val alts = nodes.arrayNode()
        each.foreach { side => val a = nodes.arrayNode(); side.foreach(a.add); alts.add(a) }
        val or = nodes.arrayNode(); or.add("or"); or.add(alts)
        Seq(or)
      }
    case _ => Nil
  }

  /** The items of Spark's `filters` (an AND of them) as one JSON list, and the filters that
   * gave some. */
  def pushed(filters: Array[Filter]): (ArrayNode, Array[Filter]) = {
    val out = nodes.arrayNode()
    val used = filters.filter { f => val i = items(f); i.foreach(out.add); i.nonEmpty }
    (out, used)
  }
}
