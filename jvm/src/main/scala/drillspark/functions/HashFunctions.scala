package drillspark.functions

import java.nio.{ByteBuffer, ByteOrder}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Drill's `hash32` / `hash64` (and their `AsDouble` forms): MurmurHash3 (x86_32 for 32 bits,
 * the first half of x64_128 for 64) of the value's bytes, as learned from Drill 1.22's answers:
 *  - numbers, booleans, dates, times and timestamps hash the 8 little-endian bytes of their
 *    DOUBLE value (dates and timestamps as epoch milliseconds, times as milliseconds of the day);
 *  - text and binary hash their bytes (UTF-8), a DECIMAL the big-endian two's-complement bytes
 *    of its unscaled value (the `AsDouble` forms cast a DECIMAL to DOUBLE first, in Python);
 *  - NULL hashes to the seed (0 without one);
 *  - the 64-bit hash starts both halves at the seed's 32 bits read unsigned; the 32-bit hash of
 *    bytes keeps a negative seed's sign bits until the first 4-byte block and folds them into the
 *    result (Drill's answer: `hash32('a', -1) = hash32('a', 0)`), which `bytes32` reproduces.
 */
case class DrillHash(child: Expression, seed: Expression, bits: Int)
    extends BinaryExpression with CodegenFallback {

  override def left: Expression = child
  override def right: Expression = seed
  override def prettyName: String = if (bits == 64) "drill_hash64" else "drill_hash32"
  override def dataType: DataType = if (bits == 64) LongType else IntegerType
  override def nullable: Boolean = seed.nullable

  override def eval(input: InternalRow): Any = {
    val s = seed.eval(input)
    if (s == null) return null
    // Drill keeps a BIGINT seed's low 32 bits
    val seedInt = s.asInstanceOf[Number].intValue
    val v = child.eval(input)
    if (v == null) {
      if (bits == 64) seedInt.toLong else seedInt
    } else {
      DrillHash.bytesOf(child.dataType, v) match {
        case Left(d) =>
          if (bits == 64) DrillHash.hash64(DrillHash.doubleBytes(d), seedInt)
          else DrillHash.hash32(DrillHash.doubleBytes(d), seedInt)
        case Right(b) =>
          if (bits == 64) DrillHash.hash64(b, seedInt) else DrillHash.bytes32(b, seedInt)
      }
    }
  }

  override protected def withNewChildrenInternal(l: Expression, r: Expression): DrillHash =
    copy(child = l, seed = r)
}

object DrillHash {
  private val C1_32 = 0xcc9e2d51
  private val C2_32 = 0x1b873593
  private val C1_64 = 0x87c37b91114253d5L
  private val C2_64 = 0x4cf5ad432745937fL
  private val Mask = 0xffffffffL

  /** A value's hash input: Left(the DOUBLE it hashes as) or Right(its bytes). */
  def bytesOf(t: DataType, v: Any): Either[Double, Array[Byte]] = t match {
    case ByteType => Left(v.asInstanceOf[Byte].toDouble)
    case ShortType => Left(v.asInstanceOf[Short].toDouble)
    case IntegerType => Left(v.asInstanceOf[Int].toDouble)
    case LongType => Left(v.asInstanceOf[Long].toDouble)
    case FloatType => Left(v.asInstanceOf[Float].toDouble)
    case DoubleType => Left(v.asInstanceOf[Double])
    case BooleanType => Left(if (v.asInstanceOf[Boolean]) 1.0 else 0.0)
    case DateType => Left(v.asInstanceOf[Int].toDouble * 86400000.0)
    case TimestampType | TimestampNTZType =>
      Left(Math.floorDiv(v.asInstanceOf[Long], 1000L).toDouble)
    case _: TimeType => Left(Math.floorDiv(v.asInstanceOf[Long], 1000000L).toDouble)
    case _: StringType => Right(v.asInstanceOf[UTF8String].getBytes)
    case BinaryType => Right(v.asInstanceOf[Array[Byte]])
    case _: DecimalType =>
      Right(v.asInstanceOf[Decimal].toJavaBigDecimal.unscaledValue.toByteArray)
    case other => throw new IllegalArgumentException(
      s"drill hash of a ${other.simpleString} value is not supported")
  }

  def doubleBytes(d: Double): Array[Byte] =
    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(d).array()

  private def block32(b: Array[Byte], i: Int): Int =
    (b(i) & 0xff) | ((b(i + 1) & 0xff) << 8) | ((b(i + 2) & 0xff) << 16) | ((b(i + 3) & 0xff) << 24)

  private def tail32(b: Array[Byte], from: Int): Int = {
    var k = 0
    val n = b.length - from
    if (n >= 3) k ^= (b(from + 2) & 0xff) << 16
    if (n >= 2) k ^= (b(from + 1) & 0xff) << 8
    if (n >= 1) k ^= b(from) & 0xff
    k
  }

  private def mixK32(k: Int): Int = Integer.rotateLeft(k * C1_32, 15) * C2_32

  private def fmix32(x: Int): Int = {
    var h = x
    h ^= h >>> 16; h *= 0x85ebca6b; h ^= h >>> 13; h *= 0xc2b2ae35; h ^= h >>> 16
    h
  }

  /** MurmurHash3 x86_32. */
  def hash32(b: Array[Byte], seed: Int): Int = {
    var h = seed
    val blocks = b.length / 4
    var i = 0
    while (i < blocks) {
      h ^= mixK32(block32(b, i * 4))
      h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64
      i += 1
    }
    if (b.length % 4 != 0) h ^= mixK32(tail32(b, blocks * 4))
    fmix32(h ^ b.length)
  }

  /**
   * Drill's 32-bit hash of bytes: MurmurHash3 x86_32 with the state held in 64 bits, the seed
   * sign-extended; each block's rotation keeps 32 bits, and the last state is folded to 32 bits
   * (high word XOR low word) before the final mix.
   */
  def bytes32(b: Array[Byte], seed: Int): Int = {
    var h = seed.toLong
    val blocks = b.length / 4
    var i = 0
    while (i < blocks) {
      h ^= mixK32(block32(b, i * 4)) & Mask
      h = ((h << 13) & Mask) | (h >>> 19)
      h = (h * 5 + 0xe6546b64L) & Mask
      i += 1
    }
    if (b.length % 4 != 0) h ^= mixK32(tail32(b, blocks * 4)) & Mask
    h ^= b.length
    fmix32((h ^ (h >>> 32)).toInt)
  }

  private def fmix64(x: Long): Long = {
    var k = x
    k ^= k >>> 33; k *= 0xff51afd7ed558ccdL; k ^= k >>> 33; k *= 0xc4ceb9fe1a85ec53L; k ^= k >>> 33
    k
  }

  private def long64(b: Array[Byte], from: Int, n: Int): Long = {
    var k = 0L
    var j = n - 1
    while (j >= 0) { k = (k << 8) | (b(from + j) & 0xffL); j -= 1 }
    k
  }

  /** The first 64 bits of MurmurHash3 x64_128, both halves seeded with the seed's unsigned 32 bits. */
  def hash64(b: Array[Byte], seed: Int): Long = {
    var h1 = seed & Mask
    var h2 = seed & Mask
    val blocks = b.length / 16
    var i = 0
    while (i < blocks) {
      val k1 = long64(b, i * 16, 8)
      val k2 = long64(b, i * 16 + 8, 8)
      h1 ^= java.lang.Long.rotateLeft(k1 * C1_64, 31) * C2_64
      h1 = (java.lang.Long.rotateLeft(h1, 27) + h2) * 5 + 0x52dce729
      h2 ^= java.lang.Long.rotateLeft(k2 * C2_64, 33) * C1_64
      h2 = (java.lang.Long.rotateLeft(h2, 31) + h1) * 5 + 0x38495ab5
      i += 1
    }
    val rest = b.length - blocks * 16
    if (rest > 8) {
      val k2 = long64(b, blocks * 16 + 8, rest - 8)
      h2 ^= java.lang.Long.rotateLeft(k2 * C2_64, 33) * C1_64
    }
    if (rest > 0) {
      val k1 = long64(b, blocks * 16, Math.min(rest, 8))
      h1 ^= java.lang.Long.rotateLeft(k1 * C1_64, 31) * C2_64
    }
    h1 ^= b.length; h2 ^= b.length
    h1 += h2; h2 += h1
    h1 = fmix64(h1); h2 = fmix64(h2)
    h1 + h2
  }

  private def describe(name: String, bits: Int): DrillFunctions.Description =
    DrillFunctions.describe(name, classOf[DrillHash].getName,
      s"_FUNC_(expr[, seed]) - Drill's HASH$bits: MurmurHash3 of `expr` (numbers, dates and " +
        "times as their DOUBLE value's bytes, text and binary as bytes, a DECIMAL as its " +
        "unscaled value's bytes), seeded with the INT `seed` (0); NULL hashes to the seed.",
      examples = s"""
    Examples:
      > SELECT _FUNC_('a', 4);
  """) { args =>
      DrillFunctions.arity(name, args, 1, 2)
      DrillHash(args.head,
        if (args.size > 1) args(1) else org.apache.spark.sql.catalyst.expressions.Literal(0), bits)
    }

  val descriptions: Seq[DrillFunctions.Description] =
    Seq(describe("drill_hash32", 32), describe("drill_hash64", 64))
}
