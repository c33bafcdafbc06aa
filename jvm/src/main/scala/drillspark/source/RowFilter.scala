package drillspark.source

import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Pushed-down predicates checked on each record right after it is parsed, before it becomes a
 * row of the batch (Spark still re-checks them: pushing is only a saving, never a semantic).
 * Three-valued: a record is kept only when the predicate is TRUE.
 */
sealed trait RowFilter extends Serializable {
  /** 1 true, 0 false, -1 unknown (SQL NULL). */
  def eval(vs: Array[Vec], i: Int): Int
  /** The top-level columns (read-schema indices) the predicate reads. */
  def columns: Set[Int]
}

/**
 * The pushed filter split into its conjuncts, each checked as soon as the top-level members it
 * reads have been written, while the record is still being parsed: once one is not TRUE the
 * record cannot be kept, and the rest of its members need not be materialized.
 * `deps(k)` are the record writer's child indices conjunct k reads.
 */
final class EarlyFilter(conjuncts: Array[RowFilter], deps: Array[Array[Int]], children: Int) {
  /** Conjuncts to try once child c is written. */
  private val byChild: Array[Array[Int]] =
    Array.tabulate(children)(c => conjuncts.indices.filter(k => deps(k).contains(c)).toArray)
  /** Children some conjunct reads (a later duplicate key of one can change the outcome). */
  val reads: Array[Boolean] = Array.tabulate(children)(c => byChild(c).nonEmpty)

  /** False when a conjunct depending on child c, with all its members written, is not TRUE. */
  def passes(c: Int, seen: Array[Boolean], vs: Array[Vec], i: Int): Boolean = {
    val ks = byChild(c)
    var j = 0
    while (j < ks.length) {
      val k = ks(j)
      val d = deps(k)
      var ready = true
      var m = 0
      while (ready && m < d.length) { ready = seen(d(m)); m += 1 }
      if (ready && conjuncts(k).eval(vs, i) != 1) return false
      j += 1
    }
    true
  }
}

object RowFilter {
  /** The AND-ed parts of a filter. */
  def conjuncts(f: RowFilter): Seq[RowFilter] = f match {
    case AndF(a, b) => conjuncts(a) ++ conjuncts(b)
    case other => Seq(other)
  }

  /** The early form of a filter over a record writer whose children are the read schema's
   * data columns `dataCols` (in order). */
  def early(f: RowFilter, dataCols: Array[Int]): EarlyFilter = {
    val cs = conjuncts(f).toArray
    new EarlyFilter(cs, cs.map(_.columns.toArray.map(dataCols.indexOf(_))), dataCols.length)
  }

  private final case class Col(path: Array[Int], dt: DataType) {
    def vector(vs: Array[Vec]): Vec = {
      var v = vs(path(0))
      var k = 1
      while (k < path.length) { v = v.getChild(path(k)).asInstanceOf[Vec]; k += 1 }
      v
    }
  }

  private final case class Cmp(c: Col, value: Any, op: Int) extends RowFilter {
    // op: 0 =, 1 <, 2 <=, 3 >, 4 >=, 5 <=> (null-safe equal)
    private val cv: Any = c.dt match {
      case StringType => UTF8String.fromString(value.toString)
      case _ => value
    }
    def columns: Set[Int] = Set(c.path(0))
    def eval(vs: Array[Vec], i: Int): Int = {
      val v = c.vector(vs)
      if (v.isNullAt(i)) return if (op == 5) (if (value == null) 1 else 0) else -1
      if (value == null) return if (op == 5) 0 else -1
      val r = c.dt match {
        case LongType => java.lang.Long.compare(v.getLong(i), cv.asInstanceOf[Number].longValue)
        case IntegerType => java.lang.Long.compare(v.getInt(i).toLong, cv.asInstanceOf[Number].longValue)
        case DoubleType =>
          val (x, y) = (v.getDouble(i), cv.asInstanceOf[Number].doubleValue)
          if (x == y) 0 else java.lang.Double.compare(x, y) // -0.0 = 0.0; NaN = NaN, above all
        case BooleanType => java.lang.Boolean.compare(v.getBoolean(i), cv.asInstanceOf[Boolean])
        case _ => v.getUTF8String(i).compareTo(cv.asInstanceOf[UTF8String])
      }
      val ok = op match {
        case 0 | 5 => r == 0
        case 1 => r < 0
        case 2 => r <= 0
        case 3 => r > 0
        case _ => r >= 0
      }
      if (ok) 1 else 0
    }
  }

  private final case class IsNullF(c: Col, negate: Boolean) extends RowFilter {
    def columns: Set[Int] = Set(c.path(0))
    def eval(vs: Array[Vec], i: Int): Int = if (c.vector(vs).isNullAt(i) != negate) 1 else 0
  }

  private final case class InF(c: Col, values: Array[Cmp]) extends RowFilter {
    def columns: Set[Int] = Set(c.path(0))
    def eval(vs: Array[Vec], i: Int): Int = {
      var unknown = false
      var k = 0
      while (k < values.length) {
        val r = values(k).eval(vs, i)
        if (r == 1) return 1
        if (r == -1) unknown = true
        k += 1
      }
      if (unknown) -1 else 0
    }
  }

  private final case class AndF(a: RowFilter, b: RowFilter) extends RowFilter {
    def columns: Set[Int] = a.columns ++ b.columns
    def eval(vs: Array[Vec], i: Int): Int = {
      val x = a.eval(vs, i)
      if (x == 0) 0 else { val y = b.eval(vs, i); if (y == 0) 0 else if (x == 1 && y == 1) 1 else -1 }
    }
  }
  private final case class OrF(a: RowFilter, b: RowFilter) extends RowFilter {
    def columns: Set[Int] = a.columns ++ b.columns
    def eval(vs: Array[Vec], i: Int): Int = {
      val x = a.eval(vs, i)
      if (x == 1) 1 else { val y = b.eval(vs, i); if (y == 1) 1 else if (x == 0 && y == 0) 0 else -1 }
    }
  }
  private final case class NotF(a: RowFilter) extends RowFilter {
    def columns: Set[Int] = a.columns
    def eval(vs: Array[Vec], i: Int): Int = { val x = a.eval(vs, i); if (x == -1) -1 else 1 - x }
  }

  /** Split "a.b" / "`a.b`.c" attribute names as Spark's V1 filters quote them. */
  private def parts(attr: String): Seq[String] = {
    val out = scala.collection.mutable.ArrayBuffer[String]()
    val cur = new StringBuilder
    var quoted = false
    var i = 0
    while (i < attr.length) {
      val ch = attr.charAt(i)
      if (ch == '`') {
        if (quoted && i + 1 < attr.length && attr.charAt(i + 1) == '`') { cur += '`'; i += 1 }
        else quoted = !quoted
      } else if (ch == '.' && !quoted) { out += cur.toString; cur.clear() }
      else cur += ch
      i += 1
    }
    out += cur.toString
    out.toSeq
  }

  private def column(schema: StructType, dataCols: Set[Int], attr: String): Option[Col] = {
    val ps = parts(attr)
    var st = schema
    val idx = scala.collection.mutable.ArrayBuffer[Int]()
    var dt: DataType = null
    var k = 0
    var found = true
    while (found && k < ps.length) {
      val i = if (st == null) -1 else st.fields.indexWhere(f => Names.fold(f.name) == Names.fold(ps(k)))
      if (i < 0 || (k == 0 && !dataCols(i))) found = false
      else {
        idx += i
        dt = st.fields(i).dataType
        st = dt match { case s: StructType => s; case _ => null }
        k += 1
      }
    }
    if (!found) None
    else dt match {
      case LongType | IntegerType | DoubleType | BooleanType | StringType => Some(Col(idx.toArray, dt))
      case _ => None
    }
  }

  private def fits(dt: DataType, v: Any): Boolean = (dt, v) match {
    case (_, null) => true
    case (LongType | IntegerType, _: java.lang.Long | _: java.lang.Integer | _: java.lang.Short | _: java.lang.Byte) => true
    case (DoubleType, _: java.lang.Double) => true
    case (BooleanType, _: java.lang.Boolean) => true
    case (StringType, _: String) => true
    case _ => false
  }

  /** The part of a Spark filter this scan can check itself, if any. */
  def compile(f: Filter, schema: StructType, dataCols: Set[Int]): Option[RowFilter] = {
    def cmp(attr: String, v: Any, op: Int): Option[RowFilter] =
      column(schema, dataCols, attr).filter(c => fits(c.dt, v)).map(c => Cmp(c, v, op))
    f match {
      case EqualTo(a, v) => cmp(a, v, 0)
      case EqualNullSafe(a, v) => cmp(a, v, 5)
      case LessThan(a, v) => cmp(a, v, 1)
      case LessThanOrEqual(a, v) => cmp(a, v, 2)
      case GreaterThan(a, v) => cmp(a, v, 3)
      case GreaterThanOrEqual(a, v) => cmp(a, v, 4)
      case IsNull(a) => column(schema, dataCols, a).map(IsNullF(_, negate = false))
      case IsNotNull(a) => column(schema, dataCols, a).map(IsNullF(_, negate = true))
      case In(a, vs) => column(schema, dataCols, a).filter(c => vs.forall(fits(c.dt, _)))
        .map(c => InF(c, vs.map(v => Cmp(c, v, 0))))
      case And(l, r) => for (x <- compile(l, schema, dataCols); y <- compile(r, schema, dataCols)) yield AndF(x, y)
      case Or(l, r) => for (x <- compile(l, schema, dataCols); y <- compile(r, schema, dataCols)) yield OrF(x, y)
      case Not(c) => compile(c, schema, dataCols).map(NotF)
      case _ => None
    }
  }
}
