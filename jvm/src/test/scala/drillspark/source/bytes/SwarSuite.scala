package drillspark.source.bytes

import drillspark.testkit.{Checks, Suite}

/** `ByteScanner.special` (eight bytes at a time): its lowest flag is the first byte of the word
 * that is a quote, a backslash, a control character or non-ASCII, and no flag means none is. */
object SwarSuite extends Suite {
  val name = "swar"

  private def isSpecial(b: Int): Boolean = b == '"' || b == '\\' || b < 0x20 || b > 0x7F

  private def firstSpecial(w: Long): Int =
    (0 until 8).find(k => isSpecial(((w >>> (8 * k)) & 0xff).toInt)).getOrElse(-1)

  private def flagged(w: Long): Int = {
    val s = ByteScanner.special(w)
    if (s == 0) -1 else java.lang.Long.numberOfTrailingZeros(s) / 8
  }

  private def word(bytes: Seq[Int]): Long = bytes.zipWithIndex.map { case (b, k) => (b.toLong & 0xff) << (8 * k) }.sum

  def run(c: Checks): Unit = {
    var wrong = 0
    def same(w: Long): Unit = if (flagged(w) != firstSpecial(w)) {
      wrong += 1
      if (wrong <= 20) c.check(false, f"word $w%016X: special() flags byte ${flagged(w)}, first special byte is ${firstSpecial(w)}")
    }
    // every byte value at every position, among plain neighbours at the edges of the ranges
    val plain = Seq(0x20, 0x21, 0x23, 0x5B, 0x5D, 0x61, 0x7E)
    for (fill <- plain; k <- 0 until 8; b <- 0 to 255) same(word(Seq.tabulate(8)(i => if (i == k) b else fill)))
    // two special bytes: the lower one must win, whatever the higher one is
    for (k <- 0 until 7; b <- 0 to 255; d <- Seq(0x00, 0x1F, 0x22, 0x5C, 0x80, 0xFF))
      same(word(Seq.tabulate(8)(i => if (i == k) b else if (i == k + 1) d else 0x61)))
    val rnd = new scala.util.Random(11)
    for (_ <- 1 to 2000000)
      same(word(Seq.fill(8)(if (rnd.nextInt(10) < 8) 0x20 + rnd.nextInt(0x5F) else rnd.nextInt(256))))
    c.check(wrong == 0, s"$wrong words flagged at the wrong byte")
  }
}
