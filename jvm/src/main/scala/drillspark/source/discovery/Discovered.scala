package drillspark.source.discovery

import java.util.{LinkedHashMap => JLinkedHashMap}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.types._

import drillspark.source.{DrillOptions, Names, TypeConflict}
import drillspark.source.bytes.KeyIndex

/** A type conflict found by discovery: one path, two types, where each was seen. */
final case class Conflict(path: String, typeA: String, fileA: String, typeB: String, fileB: String) {
  def describe: String = s"`$path` is $typeA in $fileA but $typeB in $fileB"
}

/**
 * A discovered JSON type: a small mutable tree, updated in place by the token pass so that
 * discovering a file allocates per new path, not per record. Kinds form Drill's lattice:
 * null < bool | int < bigint < double | string ... ; scalars of different kinds meet at TEXT
 * (each value's text), a scalar meeting a struct or array is a CONFLICT.
 */
final class Node(val path: String, var kind: Int, var file: String) extends Serializable {
  import Node._
  /** STRUCT members by folded name (Names.fold; first spelling kept in Member.name). */
  var members: JLinkedHashMap[String, Member] = _
  /** ARRAY element type (kind NULL while only empty arrays/nulls were seen). */
  var elem: Node = _
  var conflict: Conflict = _
  /** DEEP: where a map or array first went past maxSchemaDepth ("file line L"). */
  var deepAt: String = _

  def isScalar: Boolean = kind >= BOOL && kind <= TEXT
  def isComplex: Boolean = kind == STRUCT || kind == ARRAY

  /** Exact spellings already resolved (Jackson interns names), to skip lower-casing per key. */
  @transient private var bySpelling: java.util.HashMap[String, Member] = _
  /** Members by the UTF-8 bytes of their spellings, while the byte scanner runs. */
  @transient private[source] var keyIndex: KeyIndex[Member] = _
  /** While the byte scanner runs: the member that came first in the last object read. */
  @transient private[source] var first: Member = _

  def member(name: String, file: String): Member = {
    if (members == null) members = new JLinkedHashMap[String, Member]()
    if (bySpelling == null) bySpelling = new java.util.HashMap[String, Member]()
    var m = bySpelling.get(name)
    if (m != null) return m
    val key = Names.fold(name)
    m = members.get(key)
    if (m == null) {
      m = new Member(name, new Node(if (path.isEmpty) name else s"$path.$name", NULL, file))
      members.put(key, m)
    } else if (m.name != name) m.respelled = true
    if (bySpelling.size < Node.SpellingCacheSize) bySpelling.put(name, m)
    m
  }

  def copy(): Node = {
    val n = new Node(path, kind, file)
    if (members != null) {
      n.members = new JLinkedHashMap[String, Member]()
      members.asScala.foreach { case (k, m) =>
        val c = new Member(m.name, m.node.copy())
        c.respelled = m.respelled
        n.members.put(k, c)
      }
    }
    if (elem != null) n.elem = elem.copy()
    n.conflict = conflict
    n.deepAt = deepAt
    n
  }

  /** A map or array nested deeper than maxSchemaDepth met at this node (`where`): from now on
   * it holds each value's JSON text, whatever else the node holds. */
  def markDeep(where: String): Unit = if (kind != Node.DEEP) {
    kind = Node.DEEP; deepAt = where; members = null; elem = null; conflict = null
  }

  /** A scalar of kind `k` ([[Node.scalarKind]]) met at this path in `in`, by either discovery
   * pass: kinds meet in Drill's lattice; a scalar where a map or array was is a conflict, which
   * the pass records (`conflict`, given the scalar's kind name) with its own position. */
  def meetScalarKind(k: Int, in: String)(conflict: String => Unit): Unit = kind match {
    case NULL => kind = k; file = in
    case STRUCT | ARRAY => conflict(kindName(k))
    case CONFLICT | DEEP => ()
    case old => kind = meetScalar(old, k)
  }

  def conflicts: Seq[Conflict] = {
    val own = Option(conflict).toSeq
    val inMembers = if (members == null) Nil else members.values().asScala.toSeq.flatMap(_.node.conflicts)
    own ++ inMembers ++ Option(elem).toSeq.flatMap(_.conflicts)
  }
}

final class Member(val name: String, var node: Node) extends Serializable {
  /** Seen spelled otherwise too (`Name` and `name`: one column in Drill's case-insensitive
   * names), so a server that matches names exactly (a mongo filter) cannot be asked by one. */
  var respelled: Boolean = false
  /** While the byte scanner runs: the spelling last read for this member (and its first 8
   * bytes), and the member that followed it in its object, the guess for the next name. */
  @transient private[source] var spelling: Array[Byte] = _
  @transient private[source] var spellingWord: Long = 0L
  @transient private[source] var next: Member = _
}

object Node {
  final val SpellingCacheSize = 4096
  final val NULL = 0
  final val BOOL = 1
  final val INT = 2
  final val BIGINT = 3
  final val DOUBLE = 4
  final val DECIMAL = 5
  final val DATE = 6
  final val TIMESTAMP = 7
  final val BINARY = 8
  final val STRING = 9
  final val TEXT = 10 // mixed scalar kinds: a string holding each value's text
  final val STRUCT = 11
  final val ARRAY = 12
  final val CONFLICT = 13 // scalar vs complex: JSON text or VARIANT per typeConflict
  final val DEEP = 14 // maps or arrays deeper than maxSchemaDepth: each value's JSON text

  def kindName(k: Int): String = k match {
    case NULL => "NULL"; case BOOL => "BOOLEAN"; case INT => "INT"; case BIGINT => "BIGINT"
    case DOUBLE => "DOUBLE"; case DECIMAL => "DECIMAL"; case DATE => "DATE"
    case TIMESTAMP => "TIMESTAMP"; case BINARY => "VARBINARY"; case STRING => "VARCHAR"
    case TEXT => "VARCHAR"; case STRUCT => "STRUCT"; case ARRAY => "ARRAY"; case _ => "JSON"
  }

  def root(file: String): Node = new Node("", STRUCT, file)

  /** The kind a JSON scalar is typed as (Drill's reading modes), for both discovery passes: `k`
   * is the kind as read (BOOL, BIGINT for an integer, DOUBLE for a float, STRING); allTextMode
   * types every scalar VARCHAR, readNumbersAsDouble every integer DOUBLE. An extended-type
   * wrapper's kind (`extended`: $numberLong, $date, ...) is kept except under allTextMode. */
  def scalarKind(k: Int, o: DrillOptions, extended: Boolean = false): Int =
    if (o.allTextMode) STRING else if (k == BIGINT && o.readNumbersAsDouble && !extended) DOUBLE else k

  private def isNumeric(k: Int) = k == INT || k == BIGINT || k == DOUBLE || k == DECIMAL

  /** The kind two scalar kinds meet at. */
  def meetScalar(a: Int, b: Int): Int =
    if (a == b) a
    else if (a == NULL) b
    else if (b == NULL) a
    else if (isNumeric(a) && isNumeric(b)) {
      if (a == DOUBLE || b == DOUBLE || a == DECIMAL || b == DECIMAL) DOUBLE else BIGINT
    } else TEXT

  /** Fold `b` into `a` (mutating `a`); `a` and `b` describe the same path. `sameFile`: `b`
   * is a later split of `a`'s file, where strings after a map read as empty maps, as within
   * one split (across files Drill reads each file with its own types: a conflict). */
  def mergeInto(a: Node, b: Node, sameFile: Boolean = false): Unit = {
    if (b.kind == NULL) {
      return
    }
    if (sameFile && a.kind == STRUCT && b.kind == STRING) return
    if (a.kind == NULL) {
      a.kind = b.kind; a.file = b.file; a.members = b.members; a.elem = b.elem; a.conflict = b.conflict
      a.deepAt = b.deepAt
      return
    }
    if (a.kind == DEEP || b.kind == DEEP) { // JSON text absorbs everything, conflicts too
      if (a.kind != DEEP) a.markDeep(b.deepAt)
      return
    }
    if (a.kind == CONFLICT || b.kind == CONFLICT) {
      if (a.conflict == null) a.conflict = b.conflict
      if (a.kind != CONFLICT) {
        a.conflict = if (b.conflict != null) b.conflict
          else Conflict(a.path, kindName(a.kind), a.file, "JSON", b.file)
        toConflict(a)
      }
      return
    }
    if (a.isScalar && b.isScalar) { a.kind = meetScalar(a.kind, b.kind); return }
    if (a.kind == STRUCT && b.kind == STRUCT) {
      if (b.members != null) b.members.asScala.foreach { case (k, m) =>
        val mine = if (a.members == null) null else a.members.get(k)
        if (mine == null) {
          if (a.members == null) a.members = new JLinkedHashMap[String, Member]()
          a.members.put(k, m)
        } else {
          if (mine.name != m.name || m.respelled) mine.respelled = true
          mergeInto(mine.node, m.node, sameFile)
        }
      }
      return
    }
    if (a.kind == ARRAY && b.kind == ARRAY) {
      if (a.elem == null) a.elem = b.elem
      else if (b.elem != null) mergeInto(a.elem, b.elem, sameFile)
      return
    }
    a.conflict = Conflict(a.path, kindName(a.kind), a.file, kindName(b.kind), b.file)
    toConflict(a)
  }

  /** Separates the folded names of a path in [[fileNullPaths]] ("[]" stands for elements). */
  final val PathSep = '\u0001'

  /**
   * The maps and arrays of the merged schema that one file never gives a value (absent, or
   * only null): Drill types such a column by that file alone (nullable VARCHAR), so its records
   * read NULL there, while a null map of a file that has the map reads as {} and a null array
   * as []. Paths are folded names joined by [[PathSep]], "[]" for array elements.
   */
  def fileNullPaths(merged: Node, file: Node): Seq[String] = {
    val out = scala.collection.mutable.ArrayBuffer.empty[String]
    def members(m: Node, f: Node, prefix: String): Unit = if (m.members != null) {
      m.members.forEach { (k, mm) =>
        val fm = if (f.members == null) null else f.members.get(k)
        val path = if (prefix.isEmpty) k else s"$prefix$PathSep$k"
        if (mm.node.isComplex) {
          if (fm == null || fm.node.kind == NULL) out += path
          else complex(mm.node, fm.node, path)
        }
      }
    }
    def complex(m: Node, f: Node, path: String): Unit =
      if (m.kind == STRUCT && f.kind == STRUCT) members(m, f, path)
      else if (m.kind == ARRAY && f.kind == ARRAY && m.elem != null && f.elem != null)
        complex(m.elem, f.elem, s"$path$PathSep[]")
    members(merged, file, "")
    out.toSeq
  }

  /**
   * exactSample: the elements of maps or arrays that a file's sample saw only empty arrays of
   * (or arrays of nulls) while the merged schema has them (from other files): paths as
   * [[fileNullPaths]], ending in "[]". A value there would have typed them by this file too.
   */
  def unseenElementPaths(merged: Node, file: Node): Seq[String] = {
    val out = scala.collection.mutable.ArrayBuffer.empty[String]
    def walk(m: Node, f: Node, path: String): Unit =
      if (m.kind == STRUCT && f.kind == STRUCT && m.members != null && f.members != null) {
        m.members.forEach { (k, mm) =>
          val fm = f.members.get(k)
          if (fm != null) walk(mm.node, fm.node, if (path.isEmpty) k else s"$path$PathSep$k")
        }
      } else if (m.kind == ARRAY && f.kind == ARRAY && m.elem != null && m.elem.isComplex) {
        val elems = s"$path$PathSep[]"
        if (f.elem == null || f.elem.kind == NULL) out += elems else walk(m.elem, f.elem, elems)
      }
    walk(merged, file, "")
    out.toSeq
  }

  private def toConflict(a: Node): Unit = { a.kind = CONFLICT; a.members = null; a.elem = null }

  val ConflictKey = "drill.typeConflict"
  /** Field metadata of a column typed as JSON text because it nests too deeply. */
  val DeepKey = "drill.tooDeep"

  /**
   * exactSample: whether a later scalar read as kind `k` (BOOL, BIGINT, DOUBLE or STRING, before
   * [[scalarKind]]) leaves a column the sample typed `sampled` (NullType: it saw only nulls)
   * with the type reading every record would give: the lattice above, asked in Spark types.
   */
  def keepsType(sampled: DataType, k: Int, o: DrillOptions): Boolean = {
    val was = sampled match {
      case NullType => NULL
      case BooleanType => BOOL
      case LongType => BIGINT
      case DoubleType => DOUBLE
      case StringType => TEXT
      case _ => return false
    }
    toSpark(new Node("", meetScalar(was, scalarKind(k, o)), ""), o) == sampled
  }

  /** The Spark type of a discovered node. */
  def toSpark(n: Node, o: DrillOptions): DataType = n.kind match {
    case NULL => o.nullType
    case BOOL => BooleanType
    case INT => IntegerType
    case BIGINT => LongType
    case DOUBLE => DoubleType
    case DECIMAL => DecimalType(38, 10)
    case DATE => DateType
    case TIMESTAMP => TimestampType
    case BINARY => BinaryType
    case STRING | TEXT | DEEP => StringType
    case STRUCT => structOf(n, o)
    case ARRAY => ArrayType(if (n.elem == null) o.nullType else toSpark(n.elem, o), containsNull = true)
    case _ => if (o.typeConflict == TypeConflict.Variant) VariantType else StringType
  }

  def structOf(n: Node, o: DrillOptions): StructType =
    if (n.members == null) new StructType()
    else StructType(n.members.values().asScala.toSeq.map { m =>
      val meta = if (m.node.kind == CONFLICT && m.node.conflict != null)
        new MetadataBuilder().putString(ConflictKey, m.node.conflict.describe).build()
      else if (m.node.kind == DEEP)
        new MetadataBuilder().putString(DeepKey, s"`${m.node.path}` nests maps or arrays deeper than " +
          s"option maxSchemaDepth (first in ${m.node.deepAt}): read as JSON text").build()
      else Metadata.empty
      StructField(m.name, toSpark(m.node, o), nullable = true, meta)
    })
}
