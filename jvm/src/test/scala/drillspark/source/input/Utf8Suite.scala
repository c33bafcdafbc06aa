package drillspark.source.input

import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}

import drillspark.testkit.{Checks, Suite}

/** The strict UTF-8 check (`Utf8.valid`, which the byte scanner applies to names) accepts
 * exactly what the JDK's strict decoder accepts: every 1- and 2-byte sequence, every 3-byte one, the edges of the 4-byte ranges and
 * random 4-byte sequences (overlongs, surrogates and code points above U+10FFFF refused). */
object Utf8Suite extends Suite {
  val name = "utf8"

  private val decoder = StandardCharsets.UTF_8.newDecoder()
    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)

  private def jdk(b: Array[Byte]): Boolean =
    try { decoder.reset(); decoder.decode(ByteBuffer.wrap(b)); true }
    catch { case _: CharacterCodingException => false }

  private def ours(b: Array[Byte]): Boolean = Utf8.valid(b, 0, b.length)

  private def hex(b: Array[Byte]): String = b.map(x => f"${x & 0xff}%02X").mkString(" ")

  def run(c: Checks): Unit = {
    var disagree = 0
    def same(b: Array[Byte]): Unit = {
      val (j, o) = (jdk(b), ours(b))
      if (j != o) {
        disagree += 1
        if (disagree <= 20) c.check(false, s"${hex(b)}: JDK ${if (j) "accepts" else "refuses"}, Utf8.valid ${if (o) "accepts" else "refuses"}")
      }
    }
    for (a <- 0 to 255) same(Array(a.toByte))
    for (a <- 0 to 255; b <- 0 to 255) same(Array(a.toByte, b.toByte))
    for (a <- 0xE0 to 0xEF; b <- 0 to 255; d <- 0 to 255) same(Array(a.toByte, b.toByte, d.toByte))
    val edges = Seq(0x00, 0x7F, 0x80, 0x8F, 0x90, 0xBF, 0xC0, 0xFF)
    for (a <- 0xF0 to 0xFF; b <- 0x70 to 0xCF; d <- edges; e <- edges)
      same(Array(a.toByte, b.toByte, d.toByte, e.toByte))
    val rnd = new scala.util.Random(7)
    for (_ <- 1 to 200000) {
      val n = 1 + rnd.nextInt(12)
      same(Array.fill(n)((if (rnd.nextInt(4) == 0) rnd.nextInt(256) else 0x80 + rnd.nextInt(0x75)).toByte))
    }
    c.check(disagree == 0, s"$disagree byte sequences judged differently from the JDK's decoder")
    // a lone overlong '/' (C0 AF) and a surrogate (ED A0 80) are refused, 4-byte emoji accepted
    c.check(!ours(Array(0xC0, 0xAF).map(_.toByte)), "overlong C0 AF accepted")
    c.check(!ours(Array(0xED, 0xA0, 0x80).map(_.toByte)), "surrogate ED A0 80 accepted")
    c.check(ours("😀 é ж".getBytes(StandardCharsets.UTF_8)), "valid text refused")
  }
}
