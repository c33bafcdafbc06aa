package drillspark.source.bytes

import java.nio.charset.StandardCharsets.UTF_8

import drillspark.testkit.{Checks, Suite}

/** [[KeyIndex]] finds every name put into it (short, long, sharing their first 8 bytes,
 * colliding hashes, across growth), finds nothing for names never put, and stops taking
 * names at its cap (those are decoded each time instead). */
object KeyIndexSuite extends Suite {
  val name = "key-index"

  /** The scanner's first word of a name: up to 8 bytes, little-endian, zero-padded. */
  private def wordOf(b: Array[Byte]): Long = {
    var v = 0L
    var i = math.min(8, b.length) - 1
    while (i >= 0) { v = v << 8 | (b(i) & 0xff); i -= 1 }
    v
  }

  private final class Tag(val s: String)

  /** Look `key` up as the scanner does: from inside a larger buffer, at an offset. */
  private def lookup(ix: KeyIndex[Tag], hash: Array[Byte] => Int, key: Array[Byte]): Tag = {
    val buf = new Array[Byte](key.length + 11)
    System.arraycopy(key, 0, buf, 5, key.length)
    ix.get(hash(key), wordOf(key), buf, 5, key.length)
  }

  def run(c: Checks): Unit = {
    val rnd = new scala.util.Random(3)
    val names = (
      Seq("", "a", "id", "attr_0000", "attr_0001", "attr_00010", "naïve", "ключ", "😀", "12345678",
        "123456789", "1234567890123456", "1234567890123457") ++
        (1 to 600).map(i => s"long_member_name_$i") ++
        (1 to 400).map(_ => rnd.alphanumeric.take(1 + rnd.nextInt(30)).mkString)
    ).distinct
    val absent = Seq("b", "attr_0002", "long_member_name_9999", "1234567890123458", "naive", "ключи")
    val hashes: Seq[(String, Array[Byte] => Int)] = Seq(
      "spread" -> (b => java.util.Arrays.hashCode(b)),
      "colliding" -> (b => b.length % 3))  // most names share a slot: probing must still find them
    for ((label, hash) <- hashes) {
      val ix = new KeyIndex[Tag]
      names.foreach { n => val b = n.getBytes(UTF_8); ix.put(hash(b), wordOf(b), b, new Tag(n)) }
      val missing = names.filter { n => val t = lookup(ix, hash, n.getBytes(UTF_8)); t == null || t.s != n }
      c.check(missing.isEmpty, s"$label hash: ${missing.size} names not found, e.g. ${missing.take(3)}")
      val found = absent.filterNot(names.contains).filter(n => lookup(ix, hash, n.getBytes(UTF_8)) != null)
      c.check(found.isEmpty, s"$label hash: names never put were found: $found")
    }
    // the cap: past MaxEntries names a put is ignored, lookups of earlier names still work
    val ix = new KeyIndex[Tag]
    val many = (0 until KeyIndex.MaxEntries + 100).map(i => s"k$i")
    val h: Array[Byte] => Int = b => java.util.Arrays.hashCode(b)
    many.foreach { n => val b = n.getBytes(UTF_8); ix.put(h(b), wordOf(b), b, new Tag(n)) }
    c.check(lookup(ix, h, "k0".getBytes(UTF_8)) != null, "the first name is lost after the cap")
    c.check(lookup(ix, h, s"k${KeyIndex.MaxEntries - 1}".getBytes(UTF_8)) != null, "the last name under the cap is lost")
    c.check(lookup(ix, h, s"k${KeyIndex.MaxEntries + 50}".getBytes(UTF_8)) == null, "a name past the cap was stored")
  }
}
