package drillspark.source.write

import java.nio.charset.StandardCharsets.UTF_8
import java.util.{HashMap => JHashMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import org.apache.spark.sql.drillspark.compat.ScanVectors.Vec
import org.apache.spark.sql.types.{DataType, StructType}

import drillspark.source.{DrillOptions, EarlyFilter, Names, RowFilter}
import drillspark.source.bytes.{ByteReader, KeyIndex}
import drillspark.source.discovery.Node

/**
 * A struct (Drill map): members looked up case-insensitively (first spelling names the
 * column), duplicate keys last wins, members the value lacks are null, unprojected members
 * skipped by the tokenizer. A JSON null map is a map whose members are all null.
 *
 * `full` is the unpruned struct discovery found at this path, given only when discovery was
 * sampled (sampleRecords) and no provided schema types the path: a key outside it first
 * appeared after the sampled records and has no column, so the record is refused (or skipped
 * with skipInvalidRecords) rather than losing the value silently.
 */
class StructWriter(ctx: WriteContext, val schema: StructType, full: DataType = null, top: Boolean = false)
    extends ColumnWriter(ctx) {
  private val fullStruct: StructType = full match {
    case s: StructType if ctx.o.sampleRecords >= 0 => s
    case _ => null
  }
  /** Folded keys (Names.fold) discovery saw at this path (null: not checked). */
  private val known: java.util.HashSet[String] =
    if (fullStruct == null) null
    else new java.util.HashSet[String](fullStruct.fieldNames.map(Names.fold).toSeq.asJava)
  val children: Array[ColumnWriter] = {
    // the sampled types by folded name (a linear search per field was quadratic in width);
    // none for a column the provided schema types, nor for JSON text, which holds anything
    val sampled = new JHashMap[String, DataType]()
    if (fullStruct != null) fullStruct.fields.reverseIterator.foreach { f =>
      val judged = Seq(DrillOptions.ProvidedKey, Node.ConflictKey, Node.DeepKey).exists(f.metadata.contains)
      sampled.put(Names.fold(f.name), if (judged) null else f.dataType)
    }
    schema.fields.map(f => ColumnWriter.forField(f, ctx, if (fullStruct == null) null else sampled.get(Names.fold(f.name))))
  }
  private val exact = new JHashMap[String, Integer]()
  private val lower = new JHashMap[String, Integer]()
  schema.fields.zipWithIndex.foreach { case (f, i) =>
    exact.put(f.name, i)
    lower.putIfAbsent(Names.fold(f.name), i)
  }
  private val seen = new Array[Boolean](children.length)
  def slot: Int = 1
  override val rowSlot: Int = slot + children.map(_.rowSlot).sum

  override def bind(v: Vec): Unit = {
    vec = v
    var i = 0
    while (i < children.length) { children(i).bind(v.getChild(i).asInstanceOf[Vec]); i += 1 }
  }
  /** Top level: the members are the batch's columns themselves. */
  def bindChildren(vs: Array[Vec]): Unit = {
    var i = 0
    while (i < children.length) { children(i).bind(vs(i)); i += 1 }
  }
  override def newBatch(): Unit = children.foreach(_.newBatch())

  /** Column of a key: exact spelling first, then case-insensitively; misses (unprojected
   * keys: -1, late keys: [[StructWriter.Late]]) are remembered too, so skipping a key costs
   * one lookup. */
  protected def index(name: String): Int = {
    val ix = exact.get(name)
    if (ix != null) return ix.intValue
    val lname = Names.fold(name)
    val lo = lower.get(lname)
    val found =
      if (lo != null) lo.intValue
      // a record's key outside keepColumns is no column whatever the sample saw
      else if (known != null && !known.contains(lname) && !(top && !ctx.o.keeps(lname))) StructWriter.Late
      else -1
    if (exact.size < Node.SpellingCacheSize) exact.put(name, found)
    found
  }

  /** Write the members of the object whose START_OBJECT is current. */
  def writeMembers(p: JsonParser, i: Int): Unit = { jackson.p = p; writeObject(jackson, i, null, null, null) }

  /**
   * A top-level record with pushed filters: after each member the conjuncts it decides are
   * checked; once one is not TRUE the remaining members are skipped by the tokenizer, except
   * members the filter reads (a later duplicate key wins and may revive the record).
   * Returns 1 written in full, 0 rejected, 2 rejected early but revived by a later duplicate
   * key (some members were skipped: the caller re-reads the record).
   */
  def writeMembersFiltered(p: JsonParser, i: Int, f: EarlyFilter, vs: Array[Vec], full: RowFilter): Int = {
    jackson.p = p
    writeObject(jackson, i, f, vs, full)
  }

  /** [[writeMembers]] from the byte reader, after the object's '{'. */
  def writeMembersBytes(r: ByteReader, i: Int): Unit = { bytes.r = r; writeObject(bytes, i, null, null, null) }

  /**
   * The one member loop, for both input paths (`in`): each member's value into its column
   * (duplicate keys: last wins), keys without a column skipped (a key discovery never saw:
   * [[Members.late]]), then null for every column the object lacks. With a filter `f` (the
   * Jackson path's top-level record) the result is as [[writeMembersFiltered]] says; without
   * one it is 1.
   */
  private def writeObject(in: Members, i: Int, f: EarlyFilter, vs: Array[Vec], full: RowFilter): Int = {
    java.util.Arrays.fill(seen, false)
    var rejected = false
    var rewritten = false
    var more = in.first()
    while (more) {
      val ix = in.column()
      if (ix == StructWriter.Late) in.late()
      else if (ix < 0 || (rejected && !f.reads(ix))) in.skip()
      else {
        in.write(children(ix), i)
        seen(ix) = true
        if (f != null) {
          if (rejected) rewritten = true
          else if (!f.passes(ix, seen, vs, i)) rejected = true
        }
      }
      more = in.next()
    }
    if (rejected && !rewritten) return 0
    var c = 0
    while (c < children.length) { if (!seen(c)) children(c).writeNull(i); c += 1 }
    if (!rejected) 1 else if (full.eval(vs, i) == 1) 2 else 0
  }

  /** An object's members as one input path presents them, for [[writeObject]]: `column` reads
   * the current member's name (its column as [[index]] gives it) and moves onto its value,
   * which `write`, `skip` or `late` then consumes; `next` moves to the following member. */
  private sealed abstract class Members {
    def first(): Boolean
    def next(): Boolean
    def column(): Int
    def write(w: ColumnWriter, i: Int): Unit
    def skip(): Unit
    /** The current key did not appear in the sampled records, so it has no column. */
    def late(): Nothing
  }

  /** Jackson's tokens: the object's START_OBJECT is current when [[first]] is called. */
  private final class JacksonMembers extends Members {
    var p: JsonParser = _
    private var vt: JsonToken = _
    def first(): Boolean = p.nextToken() == JsonToken.FIELD_NAME
    def next(): Boolean = p.nextToken() == JsonToken.FIELD_NAME
    def column(): Int = { val ix = index(p.currentName()); vt = p.nextToken(); ix }
    def write(w: ColumnWriter, i: Int): Unit = w.write(p, vt, i)
    def skip(): Unit = p.skipChildren()
    def late(): Nothing = throw new ValueMismatch(
      s"key '${p.currentName()}' did not appear in the records used for discovery " +
        s"(option sampleRecords=${ctx.o.sampleRecords}), so it has no column: raise sampleRecords " +
        "or name it in the provided schema (option schema)")
  }

  /** The byte reader, after the object's '{'; names are looked up by their bytes ([[nameOf]]). */
  private final class BytesMembers extends Members {
    var r: ByteReader = _
    private var prev: StructWriter.Name = _
    private var c = 0
    def first(): Boolean = { prev = null; r.firstMember() }
    def next(): Boolean = r.nextMember()
    def column(): Int = { prev = nameOf(r, prev); c = r.value(); prev.ix }
    def write(w: ColumnWriter, i: Int): Unit = w.writeBytes(r, c, i)
    def skip(): Unit = r.skip(c)
    def late(): Nothing = r.giveUp() // the Jackson path names the key
  }

  private val jackson = new JacksonMembers
  private val bytes = new BytesMembers

  def write(p: JsonParser, t: JsonToken, i: Int): Unit = t match {
    case JsonToken.START_OBJECT =>
      if (unseen) unsampled("a map where the file's sample had none")
      vec.reserve(i + 1); vec.putNotNull(i); ctx.bytes += slot
      writeMembers(p, i)
    case JsonToken.VALUE_NULL => writeNull(i)
    case JsonToken.VALUE_STRING => // Drill: a string where a map was is {} (DRILL-7821)
      if (!stringFits) unsampled("a string where the file's sample saw no map")
      writeEmpty(i)
    case _ => mismatch(p, t, schema.simpleString)
  }

  /** Whether a string here reads as {} as it would after a full discovery: discovery passes
   * over a string where the file had a map before (DRILL-7821), so with exactSample only when
   * this file's sample (the whole file's: not split) had one. */
  private def stringFits: Boolean = !ctx.o.exactSample || (!unseen && ctx.wholeFile)

  /** The empty map {} (Drill's maps are never null: their members are). */
  private def writeEmpty(i: Int): Unit = {
    vec.reserve(i + 1); vec.putNotNull(i); ctx.bytes += slot
    children.foreach(_.writeNull(i))
  }

  /** Mark the maps and arrays under this struct that the file being read never gives a value
   * (`paths` as [[Node.fileNullPaths]] makes them), and with exactSample the array elements its
   * sample never gave one (`unseen`, [[Node.unseenElementPaths]]); `prefix`: this struct's path. */
  def markFileNulls(paths: java.util.Set[String], unseen: java.util.Set[String], prefix: String): Unit = {
    var c = 0
    while (c < children.length) {
      val name = Names.fold(schema.fields(c).name)
      val path = if (prefix.isEmpty) name else s"$prefix${Node.PathSep}$name"
      StructWriter.markFileNulls(children(c), paths, unseen, path)
      c += 1
    }
  }

  /** For the byte reader: each spelling met at this path with its column, by its bytes. */
  private val byName = new KeyIndex[StructWriter.Name]
  /** The name that came first in the last object read (see [[StructWriter.Name.next]]). */
  private var firstName: StructWriter.Name = _

  /** The current member name of `r`, after `prev` (null: the first). Objects mostly repeat
   * their members' order, so the name that followed `prev` last time is tried first (one
   * word compare), then the table. */
  private def nameOf(r: ByteReader, prev: StructWriter.Name): StructWriter.Name = {
    val guess = if (prev == null) firstName else prev.next
    if (guess != null && r.nameIs(guess.spelling, guess.word)) return guess
    val b = r.bytes
    val h = r.nameHash
    var nm = byName.get(h, r.nameWord, b, r.nameFrom, r.nameLen)
    if (nm == null) {
      val spelling = java.util.Arrays.copyOfRange(b, r.nameFrom, r.nameFrom + r.nameLen)
      nm = new StructWriter.Name(spelling, r.nameWord, index(new String(spelling, UTF_8)))
      byName.put(h, r.nameWord, spelling, nm)
    }
    if (prev == null) firstName = nm else prev.next = nm
    nm
  }

  override protected def writeValueBytes(r: ByteReader, c: Int, i: Int): Unit =
    if (unseen || (c == '"' && !stringFits)) r.giveUp() // the Jackson path names it
    else if (c == '{') {
      r.enter()
      vec.reserve(i + 1); vec.putNotNull(i); ctx.bytes += slot
      writeMembersBytes(r, i)
      r.leave()
    } else if (c == '"') { r.skip(c); writeEmpty(i) }
    else r.giveUp()
  override def writeNull(i: Int): Unit =
    if (fileNull) {
      vec.reserve(i + 1); vec.putNull(i); ctx.bytes += slot
      children.foreach(_.writeNull(i))
    } else writeEmpty(i)
  def copy(src: Vec, from: Int, to: Int): Unit = {
    vec.reserve(to + 1)
    if (src.isNullAt(from)) vec.putNull(to) else vec.putNotNull(to)
    var c = 0
    while (c < children.length) { children(c).copy(src.getChild(c).asInstanceOf[Vec], from, to); c += 1 }
  }
}

object StructWriter {
  private[write] def markFileNulls(w: ColumnWriter, paths: java.util.Set[String], unseen: java.util.Set[String],
      path: String): Unit = {
    w.fileNull = paths.contains(path)
    w.unseen = w.ctx.o.exactSample && (w.fileNull || unseen.contains(path))
    w match {
      case s: StructWriter => s.markFileNulls(paths, unseen, path)
      case a: ArrayWriter => markFileNulls(a.elem, paths, unseen, s"$path${Node.PathSep}[]")
      case d: DefaultWriter => markFileNulls(d.inner, paths, unseen, path)
      case _ => ()
    }
  }

  /** [[StructWriter.index]] of a key discovery never saw (sampled discovery only). */
  final val Late = -2

  /** A member name's spelling as bytes (first 8 as `word`), its column `ix` (as
   * [[StructWriter.index]] gives it), and the name that followed it last time. */
  final class Name(val spelling: Array[Byte], val word: Long, val ix: Int) {
    var next: Name = _
  }
}
