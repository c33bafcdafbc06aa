package drillspark.source.bytes

/** Member names of one struct by their UTF-8 bytes (open addressing), so that a name seen
 * before costs a hash and a word compare, not a String; `word` is the name's first 8 bytes
 * (see [[ByteScanner.keyWord]]). Shared by [[ByteDiscovery]] and the byte reader's writers. */
private[source] final class KeyIndex[T <: AnyRef] {
  private var keys = new Array[Array[Byte]](16)
  private var words = new Array[Long](16)
  private var lens = new Array[Int](16)
  private var hashes = new Array[Int](16)
  private var values = new Array[AnyRef](16)
  private var size = 0

  def get(h: Int, word: Long, buf: Array[Byte], off: Int, len: Int): T = {
    val mask = keys.length - 1
    var i = h & mask
    while (keys(i) != null) {
      if (hashes(i) == h && words(i) == word && lens(i) == len && (len <= 8 || same(keys(i), buf, off, len)))
        return values(i).asInstanceOf[T]
      i = (i + 1) & mask
    }
    null.asInstanceOf[T]
  }

  /** A name longer than 8 bytes whose first 8 bytes matched: compare the rest. */
  private def same(k: Array[Byte], buf: Array[Byte], off: Int, len: Int): Boolean = {
    var i = 8
    while (i < len && k(i) == buf(off + i)) i += 1
    i >= len
  }

  def put(h: Int, word: Long, key: Array[Byte], m: T): Unit = {
    if (size >= KeyIndex.MaxEntries) return // a struct with this many spellings: decode each time
    if (2 * (size + 1) > keys.length) grow()
    insert(h, word, key, m)
    size += 1
  }

  private def insert(h: Int, word: Long, key: Array[Byte], m: AnyRef): Unit = {
    val mask = keys.length - 1
    var i = h & mask
    while (keys(i) != null) i = (i + 1) & mask
    keys(i) = key; words(i) = word; lens(i) = key.length; hashes(i) = h; values(i) = m
  }

  private def grow(): Unit = {
    val (ok, ow, oh, ov) = (keys, words, hashes, values)
    keys = new Array[Array[Byte]](ok.length * 2)
    words = new Array[Long](ok.length * 2)
    lens = new Array[Int](ok.length * 2)
    hashes = new Array[Int](ok.length * 2)
    values = new Array[AnyRef](ok.length * 2)
    var i = 0
    while (i < ok.length) { if (ok(i) != null) insert(oh(i), ow(i), ok(i), ov(i)); i += 1 }
  }
}

private object KeyIndex {
  val MaxEntries = 4096
}
