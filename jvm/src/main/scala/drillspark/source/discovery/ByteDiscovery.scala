package drillspark.source.discovery

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.hadoop.conf.Configuration

import drillspark.source.discovery.Node._
import drillspark.source.DrillOptions
import drillspark.source.bytes.{ByteScanner, GiveUp, KeyIndex}
import drillspark.source.input.FileSplit

/**
 * Schema discovery of one split straight from the bytes (no Jackson, no per-key String): builds
 * the same [[Node]] tree, with the same conflict records, as the Jackson token pass does, for
 * strict JSON (what the files nearly always are). Keys are looked up by their bytes in a small
 * per-node table, decoded only the first time a spelling is seen. On anything the
 * [[ByteScanner]] gives up on (and extended-type `$` keys), `run()` returns false and the caller
 * runs the Jackson pass instead, so results and error messages stay the Jackson pass's.
 */
final class ByteDiscovery(conf: Configuration, split: FileSplit, o: DrillOptions)
    extends ByteScanner(conf, split, o) {
  val root: Node = Node.root(file)
  /** Records discovered (all of the split's when `run()` returned true and nothing bounded it). */
  var records = 0L

  /** Discover the split; false when the Jackson pass must do it instead. */
  def run(): Boolean = {
    if (o.replaceInvalidUtf8 || o.skipInvalidRecords) return false
    try { begin(); scan(); ByteDiscovery.dropKeyIndexes(root); true }
    catch { case GiveUp => false }
    finally close()
  }

  private def scan(): Unit =
    while ((o.sampleRecords < 0 || records < o.sampleRecords) && nextRecord()) {
      members(root, 1, null)
      endRecord()
      records += 1
    }

  private def conflict(n: Node, newKind: String): Unit = if (n.kind != CONFLICT) {
    n.conflict = Conflict(n.path, kindName(n.kind), n.file, newKind, s"$file line $line")
    n.kind = CONFLICT; n.members = null; n.elem = null; n.keyIndex = null
  }

  /**
   * The members of an object whose '{' was read, into `n` (null: validate and skip). A struct
   * met where `pending` holds a scalar is a conflict, reported where Jackson reports it: at
   * the first member's value (or the closing brace of an empty object).
   */
  private def members(n: Node, depth: Int, pending: Node): Unit = {
    if (n == null && pending == null) return skipMembers(depth)
    var c = skipWs()
    if (c == '}') { if (pending != null) conflict(pending, "STRUCT"); return }
    var first = true
    var prev: Member = null
    while (true) {
      if (c != '"') giveUp()
      scanKey()
      val m = if (n == null) null else member(n, prev)
      prev = m
      val v = memberValue()
      if (first && pending != null) conflict(pending, "STRUCT")
      first = false
      if (m == null) skipValue(v, depth) else value(m.node, v, depth)
      c = skipWs()
      if (c == '}') return
      if (c != ',') giveUp()
      c = skipWs()
    }
  }

  /** The Member of `n` named by the key just scanned, after `prev` (null: the first). Objects
   * mostly repeat their members' order: the member that followed `prev` last time is tried
   * first (one word compare), then the table by bytes (a String is made only the first time a
   * spelling is seen). */
  private def member(n: Node, prev: Member): Member = {
    val guess = if (prev == null) n.first else prev.next
    if (guess != null && keyIs(guess.spelling, guess.spellingWord)) return guess
    var idx = n.keyIndex
    if (idx == null) { idx = new KeyIndex[Member]; n.keyIndex = idx }
    val h = keyHash
    var m = idx.get(h, keyWord, buf, keyFrom, keyLen)
    if (m == null) {
      m = n.member(new String(buf, keyFrom, keyLen, UTF_8), file)
      idx.put(h, keyWord, java.util.Arrays.copyOfRange(buf, keyFrom, keyFrom + keyLen), m)
    }
    if (m.spelling == null || !keyIs(m.spelling, m.spellingWord)) {
      m.spelling = java.util.Arrays.copyOfRange(buf, keyFrom, keyFrom + keyLen)
      m.spellingWord = keyWord
    }
    if (prev == null) n.first = m else prev.next = m
    m
  }

  /** One value whose first byte `c` was read, into `n` (a member at `depth`: a map or array
   * here opens level depth + 1). Past maxSchemaDepth the node becomes JSON text and the value
   * is only validated, so the recursion here stays within maxSchemaDepth. */
  private def value(n: Node, c: Int, depth: Int): Unit =
    if ((c == '{' || c == '[') && depth >= o.maxSchemaDepth) {
      n.markDeep(s"$file line $line")
      skipValue(c, depth)
    } else typed(n, c, depth)

  private def typed(n: Node, c: Int, depth: Int): Unit = c match {
    case '"' =>
      skipString()
      // a string where the file had a map reads as an empty map (Drill, DRILL-7821)
      if (n == null || n.kind != STRUCT) scalar(n, STRING)
    case '{' =>
      if (depth >= depthLimit) giveUp()
      n.kind match {
        case NULL | STRUCT => n.kind = STRUCT; members(n, depth + 1, null)
        case CONFLICT | DEEP => skipMembers(depth + 1)
        case _ => members(null, depth + 1, n)
      }
    case '[' =>
      if (depth >= depthLimit) giveUp()
      if (n.kind == DEEP) skipElements(depth + 1)
      else if (n.kind != NULL && n.kind != ARRAY) { conflict(n, "ARRAY"); skipElements(depth + 1) }
      else { n.kind = ARRAY; elements(n, depth + 1) }
    case 't' => literal('r', 'u', 'e'); scalar(n, BOOL)
    case 'f' => literal('a', 'l', 's'); if (read() != 'e') giveUp(); scalar(n, BOOL)
    case 'n' => literal('u', 'l', 'l')
    case _ =>
      if (c == '-' || (c >= '0' && c <= '9')) scalar(n, if (number(c)) DOUBLE else BIGINT)
      else giveUp()
  }

  /** The elements of an array whose '[' was read, into `n`'s element node. */
  private def elements(n: Node, depth: Int): Unit = {
    var c = skipWs()
    if (c == ']') return
    if (n.elem == null) n.elem = new Node(n.path + "[]", NULL, file)
    while (true) {
      value(n.elem, c, depth)
      c = skipWs()
      if (c == ']') return
      if (c != ',') giveUp()
      c = skipWs()
    }
  }

  private def scalar(n: Node, k: Int): Unit =
    if (n != null) n.meetScalarKind(Node.scalarKind(k, o), file)(conflict(n, _))
}

object ByteDiscovery {
  /** The byte-keyed lookup tables are only needed while a split is scanned. */
  private[source] def dropKeyIndexes(n: Node): Unit = {
    n.keyIndex = null
    n.first = null
    if (n.members != null) n.members.values().forEach { m =>
      m.spelling = null; m.next = null
      dropKeyIndexes(m.node)
    }
    if (n.elem != null) dropKeyIndexes(n.elem)
  }
}
