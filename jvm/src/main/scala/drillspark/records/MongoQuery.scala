package drillspark.records

import com.fasterxml.jackson.core.io.JsonStringEncoder

import org.apache.spark.sql.sources._
import org.apache.spark.sql.types.{StructField, StructType}

import drillspark.source.Names
import drillspark.source.discovery.Node

/**
 * What a `mongo` scan can ask the server instead of reading every document: Spark's filters as
 * a find filter, its pruned columns as a find projection (Drill's dotted paths). A pushed filter
 * is a superset of what Spark keeps (Spark checks every filter again over the documents read),
 * so it is pushed only where MongoDB's comparison agrees with the reader's typed value for every
 * document discovery saw: a field whose values were all integers (INT, BIGINT), all strings
 * (VARCHAR, not a mix typed as text) or all booleans, reached through maps only, and spelled one
 * way (Drill's names are case-insensitive, MongoDB's are not). A double may be a Decimal128 or
 * NaN, which MongoDB compares otherwise than Spark's double: only IS [NOT] NULL on it is pushed.
 * Anything else stays in Spark alone.
 */
object MongoQuery {
  private def quoted(s: String): String = "\"" + new String(JsonStringEncoder.getInstance.quoteAsString(s)) + "\""

  /** The parts of a V1 filter's column name (`a.b`, `` `x.y`.z ``: Spark quotes a part that
   * is not a plain word with backticks). */
  def parts(name: String): Seq[String] = {
    val out = scala.collection.mutable.ArrayBuffer[String]()
    val cur = new StringBuilder
    var i = 0
    var inQuote = false
    while (i < name.length) {
      val ch = name.charAt(i)
      if (inQuote) {
        if (ch == '`' && i + 1 < name.length && name.charAt(i + 1) == '`') { cur += '`'; i += 1 }
        else if (ch == '`') inQuote = false
        else cur += ch
      } else if (ch == '`') inQuote = true
      else if (ch == '.') { out += cur.toString; cur.clear() }
      else cur += ch
      i += 1
    }
    out += cur.toString
    out.toSeq
  }

  /** A name MongoDB's dotted paths can hold. */
  private def plain(name: String): Boolean = name.nonEmpty && !name.contains('.') && !name.startsWith("$")

  /** The document path (as the documents spell it) and discovered type of column `name`, when
   * it is reached through maps only and spelled one way. */
  def field(root: Node, name: String): Option[(String, Node)] = {
    var node = root
    var path = List.empty[String]
    var ok = true
    val it = parts(name).iterator
    while (ok && it.hasNext) {
      val p = it.next()
      val m = if (node.kind != Node.STRUCT || node.members == null) null else node.members.get(Names.fold(p))
      if (m == null || m.respelled || !plain(m.name)) ok = false
      else { path = m.name :: path; node = m.node }
    }
    if (ok) Some((path.reverse.mkString("."), node)) else None
  }

  private val Comparable = Set(Node.INT, Node.BIGINT, Node.STRING, Node.BOOL)
  private val Nullable = Comparable + Node.DOUBLE

  /** `v` as an Extended JSON value comparable with a field of `kind`, when MongoDB compares them
   * as Spark does. */
  private def value(kind: Int, v: Any): Option[String] = (kind, v) match {
    case (Node.INT | Node.BIGINT, n @ (_: java.lang.Long | _: java.lang.Integer | _: java.lang.Short | _: java.lang.Byte)) =>
      Some(s"""{"$$numberLong": "${n.asInstanceOf[Number].longValue}"}""")
    case (Node.STRING, s: String) => Some(quoted(s))
    case (Node.BOOL, b: java.lang.Boolean) => Some(b.toString)
    case _ => None
  }

  private def compare(root: Node, name: String, op: String, v: Any): Option[String] =
    field(root, name).filter(f => Comparable(f._2.kind)).flatMap { case (path, node) =>
      value(node.kind, v).map(js => s"""{${quoted(path)}: {"$op": $js}}""")
    }

  private def in(root: Node, name: String, op: String, vs: Array[Any]): Option[String] =
    field(root, name).filter(f => Comparable(f._2.kind)).flatMap { case (path, node) =>
      val js = vs.toSeq.filter(_ != null).map(value(node.kind, _))
      if (js.isEmpty || js.exists(_.isEmpty)) None
      else Some(s"""{${quoted(path)}: {"$op": [${js.flatten.mkString(", ")}]}}""")
    }

  /** `f` as a find filter matching at least every document whose row `f` keeps, or None. */
  def filter(root: Node, f: Filter): Option[String] = f match {
    case And(a, b) => (filter(root, a), filter(root, b)) match {
      case (Some(x), Some(y)) => Some(s"""{"$$and": [$x, $y]}""")
      case (x, y) => x.orElse(y) // one side alone still keeps every row both keep
    }
    case Or(a, b) => for (x <- filter(root, a); y <- filter(root, b)) yield s"""{"$$or": [$x, $y]}"""
    case EqualTo(c, v) => compare(root, c, "$eq", v)
    case GreaterThan(c, v) => compare(root, c, "$gt", v)
    case GreaterThanOrEqual(c, v) => compare(root, c, "$gte", v)
    case LessThan(c, v) => compare(root, c, "$lt", v)
    case LessThanOrEqual(c, v) => compare(root, c, "$lte", v)
    case In(c, vs) => in(root, c, "$in", vs)
    case Not(EqualTo(c, v)) => compare(root, c, "$ne", v)
    case Not(In(c, vs)) => in(root, c, "$nin", vs)
    // a missing field and a null one are both null to the reader (nulls are dropped)
    case IsNull(c) => field(root, c).filter(f => Nullable(f._2.kind)).map(f => s"""{${quoted(f._1)}: null}""")
    case IsNotNull(c) => field(root, c).filter(f => Nullable(f._2.kind))
      .map(f => s"""{${quoted(f._1)}: {"$$ne": null}}""")
    case _ => None
  }

  /** The AND of the filters that can be pushed ("" for none), and which they were. */
  def filters(root: Node, fs: Seq[Filter]): (String, Seq[Filter]) = {
    val compared = fs.filterNot(_.isInstanceOf[IsNotNull]).flatMap(f => filter(root, f).map(f -> _))
    // Spark adds IS NOT NULL beside a comparison of the column: a pushed comparison says as much
    val named = compared.flatMap(_._1.references.toSeq).toSet
    val notNull = fs.collect { case f @ IsNotNull(c) if !named(c) => f }.flatMap(f => filter(root, f).map(f -> _))
    val pushed = notNull ++ compared
    val json = pushed.map(_._2) match {
      case Seq() => ""
      case Seq(one) => one
      case many => many.mkString("""{"$and": [""", ", ", "]}")
    }
    (json, pushed.map(_._1))
  }

  /**
   * A find projection of the columns `required` keeps of `full` (nested ones as dotted paths),
   * or "" when it would keep every field, or when a column cannot be named to the server (spelled
   * more than one way, a name holding a dot). A column discovery never saw in a document (an
   * implicit column) asks for nothing. `_id` only when asked for.
   */
  def projection(root: Node, required: StructType, full: StructType): String = {
    if (required == full) return ""
    def paths(node: Node, want: StructType, prefix: String): Option[Seq[String]] = {
      val out = want.fields.toSeq.map { (f: StructField) =>
        val m = if (node.members == null) null else node.members.get(Names.fold(f.name))
        if (m == null) Some(Nil)
        else if (m.respelled || !plain(m.name)) None
        else {
          val path = prefix + m.name
          (f.dataType, m.node.kind) match {
            case (s: StructType, Node.STRUCT) =>
              // a narrower map: its fields, else the whole map
              paths(m.node, s, path + ".").map(sub => if (sub.isEmpty) Seq(path) else sub)
            case _ => Some(Seq(path))
          }
        }
      }
      if (out.exists(_.isEmpty)) None else Some(out.flatten.flatten)
    }
    paths(root, required, "") match {
      case None => ""
      case Some(ps) =>
        val named = ps.distinct
        val id = if (named.contains("_id")) Nil else Seq(""""_id": 0""")
        val fields = if (named.isEmpty) Seq(""""_id": 1""") else named.map(p => s"${quoted(p)}: 1") ++ id
        fields.mkString("{", ", ", "}")
    }
  }
}
