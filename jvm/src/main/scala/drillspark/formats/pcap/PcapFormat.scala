package drillspark.formats.pcap

import java.io.{DataInputStream, EOFException, InputStream}
import java.net.InetAddress
import java.nio.{ByteBuffer, ByteOrder}

import scala.util.hashing.MurmurHash3

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-pcap")`: packet captures (classic pcap and pcapng) as Drill reads them. */
final class PcapSource extends FormatSource {
  override def reader: FormatReader = PcapFormat
}

/** One captured frame: when (epoch microseconds), its link type, its bytes as captured. */
final case class Frame(micros: Long, linkType: Int, bytes: Array[Byte], originalLength: Int)

/**
 * Drill's `pcap` format (contrib/format-pcapng): one row per packet, decoded from Ethernet
 * frames (IPv4 or IPv6; TCP or UDP). The two file kinds have Drill's two column sets: a classic
 * `.pcap` file has `packet_timestamp`, `timestamp_micro`, `network`, `tcp_sequence`,
 * `is_corrupt`, `data` (the payload) and BOOLEAN `tcp_flags_*`, `tcp_ack` the ACK flag; a
 * `.pcapng` file has `timestamp`, `packet_data` (the IP packet) and INTEGER `tcp_flags_*`,
 * `tcp_ack` the acknowledgement number. The kind is the first file's (by its magic number).
 * A record cut short fails the read naming the file, the packet and the byte offset.
 * With `sessionizeTCPStreams` a classic pcap file gives one row per TCP connection instead
 * ([[TcpSessions]]); Drill reads a pcapng file's packets whatever the option says.
 */
object PcapFormat extends FormatReader {
  override val typeName = "pcap"
  override val extensions: Seq[String] = Seq("pcap", "pcapng")

  private val Flags = Seq("ns", "cwr", "ece", "ece_ecn_capable", "ece_congestion_experienced", "urg", "ack", "psh",
    "rst", "syn", "fin")

  private def f(name: String, t: DataType) = StructField(name, t, nullable = true)

  val PcapColumns: StructType = StructType(Seq(
    f("src_ip", StringType), f("dst_ip", StringType), f("src_port", IntegerType), f("dst_port", IntegerType),
    f("src_mac_address", StringType), f("dst_mac_address", StringType), f("type", StringType),
    f("network", IntegerType), f("packet_timestamp", TimestampNTZType), f("timestamp_micro", LongType),
    f("tcp_session", LongType), f("tcp_sequence", IntegerType), f("tcp_ack", BooleanType),
    f("tcp_flags", IntegerType)) ++ Flags.map(n => f(s"tcp_flags_$n", BooleanType)) ++ Seq(
    f("tcp_parsed_flags", StringType), f("packet_length", IntegerType), f("is_corrupt", BooleanType),
    f("data", StringType)))

  val PcapngColumns: StructType = StructType(Seq(
    f("timestamp", TimestampNTZType), f("packet_length", IntegerType), f("type", StringType),
    f("src_ip", StringType), f("dst_ip", StringType), f("src_port", IntegerType), f("dst_port", IntegerType),
    f("src_mac_address", StringType), f("dst_mac_address", StringType), f("tcp_session", LongType),
    f("tcp_ack", IntegerType), f("tcp_flags", IntegerType)) ++ Flags.map(n => f(s"tcp_flags_$n", IntegerType)) ++
    Seq(f("tcp_parsed_flags", StringType), f("packet_data", StringType)))

  /** Drill's columns of `sessionizeTCPStreams`: one row per TCP connection. */
  val SessionColumns: StructType = StructType(Seq(
    f("src_ip", StringType), f("dst_ip", StringType), f("src_port", IntegerType), f("dst_port", IntegerType),
    f("src_mac_address", StringType), f("dst_mac_address", StringType),
    f("session_start_time", TimestampNTZType), f("session_end_time", TimestampNTZType),
    f("session_duration", DayTimeIntervalType()), f("total_packet_count", IntegerType),
    f("data_volume_from_origin", IntegerType), f("data_volume_from_remote", IntegerType),
    f("packet_count_from_origin", IntegerType), f("packet_count_from_remote", IntegerType),
    f("connection_time", DayTimeIntervalType()), f("tcp_session", LongType), f("is_corrupt", BooleanType),
    f("data_from_originator", StringType), f("data_from_remote", StringType)))

  private def sessionize(options: FormatOptions): Boolean = options.bool("sessionizeTCPStreams", default = false)

  private val PcapngMagic = 0x0A0D0D0A

  private def open(file: InputFile, conf: Configuration): DataInputStream = {
    val p = new Path(file.path)
    new DataInputStream(new java.io.BufferedInputStream(p.getFileSystem(conf).open(p), 1 << 16))
  }

  private def isPcapng(file: InputFile, conf: Configuration): Boolean = {
    val in = open(file, conf)
    try in.readInt() == PcapngMagic
    catch { case _: EOFException => false }
    finally in.close()
  }

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType =
    if (files.headOption.exists(isPcapng(_, conf))) PcapngColumns
    else if (sessionize(options)) SessionColumns
    else PcapColumns

  override def read(file: InputFile, options: FormatOptions, schema: StructType, conf: Configuration): Iterator[InternalRow] = {
    val in = open(file, conf)
    val frames: Iterator[(Frame, Int)] with AutoCloseable =
      try if (isPcapng(file, conf)) new PcapngFrames(in, file.path) else new PcapFrames(in, file.path)
      catch { case e: Throwable => in.close(); throw e }
    val pcapng = frames.isInstanceOf[PcapngFrames]
    if (!pcapng && sessionize(options)) {
      val columns = schema.fields.map(c => SessionColumns.fieldNames.indexOf(c.name))
      val sessions = new TcpSessions(frames)
      return new Iterator[InternalRow] with AutoCloseable {
        override def hasNext: Boolean = sessions.hasNext
        override def next(): InternalRow = {
          val all = sessions.next()
          new GenericInternalRow(columns.map[Any](i => if (i < 0) null else all(i)))
        }
        override def close(): Unit = frames.close()
      }
    }
    val kind = if (pcapng) PcapngColumns else PcapColumns
    val columns = schema.fields.map(c => kind.fieldNames.indexOf(c.name))
    new Iterator[InternalRow] with AutoCloseable {
      override def hasNext: Boolean = frames.hasNext
      override def next(): InternalRow = {
        val (frame, network) = frames.next()
        val all = row(Packet.decode(frame), frame, network, kind eq PcapngColumns)
        new GenericInternalRow(columns.map[Any](i => if (i < 0) null else all(i)))
      }
      override def close(): Unit = frames.close()
    }
  }

  /** One packet's values in the column order of its file kind. */
  private def row(p: Packet, frame: Frame, network: Int, pcapng: Boolean): Array[Any] = {
    def s(v: String): UTF8String = if (v == null) null else UTF8String.fromString(v)
    val millis = Math.floorDiv(frame.micros, 1000L) * 1000L // Drill's TIMESTAMP keeps milliseconds
    val flagBits = Seq(p.flag(0x100), p.flag(0x80), p.flag(0x40), p.flag(0x40) && p.flag(0x02),
      p.flag(0x40) && !p.flag(0x02), p.flag(0x20), p.flag(0x10), p.flag(0x08), p.flag(0x04), p.flag(0x02), p.flag(0x01))
    val common = (s(p.srcIp), s(p.dstIp), p.srcPort, p.dstPort, s(p.srcMac), s(p.dstMac), s(p.protocol))
    if (!pcapng) Array[Any](common._1, common._2, common._3, common._4, common._5, common._6, common._7,
      network, millis, frame.micros, p.session, p.sequence.toInt, p.flag(0x10), p.flags) ++
      flagBits.map(b => b: Any) ++ Array[Any](s(p.parsedFlags), frame.originalLength, false, s(Packet.printable(p.payload)))
    else Array[Any](millis, frame.originalLength, common._7, common._1, common._2, common._3, common._4,
      common._5, common._6, p.session, p.ack.toInt, p.flags) ++ flagBits.map(b => (if (b) 1 else 0): Any) ++
      Array[Any](s(p.parsedFlags), s(Packet.printable(p.ipPacket)))
  }

  private[pcap] def truncated(path: String, packet: Long, offset: Long, need: Long): RuntimeException =
    FormatErrors.badData(typeName, path, s"packet $packet at byte $offset",
      s"the record is cut short: it needs $need bytes more than the file holds (a truncated capture)")

}

/**
 * Drill's `sessionizeTCPStreams`: the packets of a capture grouped into TCP connections, one
 * row each in [[PcapFormat.SessionColumns]], as Drill 1.22 answers: a SYN without ACK opens a
 * connection (its sender is the origin); its packets in both directions count until the first
 * FIN or RST of either side, which closes it and gives its row (in closing order); packets of
 * no open connection (UDP, a closed or never opened one) give nothing, and a connection still
 * open at the end of the file no row. `connection_time` runs from the SYN to the origin's first
 * ACK (the handshake's end). The data columns hold the TCP payloads of each side, in order.
 */
private final class TcpSessions(frames: Iterator[(Frame, Int)] with AutoCloseable) extends Iterator[Array[Any]] {
  private final class Open(val first: Packet, val start: Long) {
    var end = start
    var connected = -1L
    val count = Array(0, 0) // from the origin, from the remote side
    val data = Array(new java.io.ByteArrayOutputStream(), new java.io.ByteArrayOutputStream())
  }
  private val open = scala.collection.mutable.HashMap.empty[Long, Open]
  private var pending: Array[Any] = advance()

  private def millis(micros: Long): Long = Math.floorDiv(micros, 1000L) * 1000L

  private def advance(): Array[Any] = {
    while (frames.hasNext) {
      val (frame, _) = frames.next()
      val p = Packet.decode(frame)
      if (p.protocol == "TCP") {
        val key = p.session
        if (!open.contains(key) && p.flag(0x02) && !p.flag(0x10)) open(key) = new Open(p, frame.micros)
        open.get(key) match {
          case Some(s) =>
            val side = if (p.srcIp == s.first.srcIp && p.srcPort == s.first.srcPort) 0 else 1
            s.count(side) += 1
            s.data(side).write(p.payload)
            s.end = frame.micros
            if (side == 0 && s.connected < 0 && p.flag(0x10)) s.connected = frame.micros
            if (p.flag(0x01) || p.flag(0x04)) {
              open.remove(key)
              return row(s, key)
            }
          case None =>
        }
      }
    }
    frames.close()
    null
  }

  private def row(s: Open, key: Long): Array[Any] = {
    def str(v: String): UTF8String = if (v == null) null else UTF8String.fromString(v)
    val (start, end) = (millis(s.start), millis(s.end))
    val p = s.first
    Array[Any](str(p.srcIp), str(p.dstIp), p.srcPort, p.dstPort, str(p.srcMac), str(p.dstMac), start, end,
      end - start, s.count(0) + s.count(1), s.data(0).size, s.data(1).size, s.count(0), s.count(1),
      if (s.connected < 0) null else millis(s.connected) - start, key, false,
      str(Packet.printable(s.data(0).toByteArray)), str(Packet.printable(s.data(1).toByteArray)))
  }

  override def hasNext: Boolean = pending != null
  override def next(): Array[Any] = {
    if (pending == null) throw new NoSuchElementException("no more sessions")
    val r = pending
    pending = advance()
    r
  }
}

/** Classic pcap records: a 24-byte header (either byte order, micro- or nanosecond stamps). */
private final class PcapFrames(in: DataInputStream, path: String) extends Iterator[(Frame, Int)] with AutoCloseable {
  private val header = new Array[Byte](24)
  private var offset = 0L
  private val (order, nanos, network) = {
    try in.readFully(header) catch {
      case _: EOFException => throw FormatErrors.badData(PcapFormat.typeName, path, "header",
        "not a pcap file: shorter than a pcap header (24 bytes)")
    }
    offset = 24
    val le = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt(0)
    val (o, ns) = le match {
      case 0xA1B2C3D4 => (ByteOrder.LITTLE_ENDIAN, false)
      case 0xA1B23C4D => (ByteOrder.LITTLE_ENDIAN, true)
      case 0xD4C3B2A1 => (ByteOrder.BIG_ENDIAN, false)
      case 0x4D3CB2A1 => (ByteOrder.BIG_ENDIAN, true)
      case m => throw FormatErrors.badData(PcapFormat.typeName, path, "header",
        f"not a pcap or pcapng file (magic number 0x$m%08x)")
    }
    (o, ns, ByteBuffer.wrap(header).order(o).getInt(20))
  }
  private var packet = 0L
  private var pending: (Frame, Int) = advance()

  private def advance(): (Frame, Int) = {
    val rec = new Array[Byte](16)
    val got = in.readNBytes(rec, 0, 16)
    if (got == 0) return null
    packet += 1
    if (got < 16) throw PcapFormat.truncated(path, packet, offset, 16L - got)
    val b = ByteBuffer.wrap(rec).order(order)
    val sec = b.getInt(0) & 0xFFFFFFFFL
    val frac = b.getInt(4) & 0xFFFFFFFFL
    val captured = b.getInt(8)
    val original = b.getInt(12)
    if (captured < 0 || captured > (1 << 28)) throw FormatErrors.badData(PcapFormat.typeName, path,
      s"packet $packet at byte $offset", s"a record length of $captured bytes (a corrupt capture)")
    val bytes = new Array[Byte](captured)
    val read = in.readNBytes(bytes, 0, captured)
    if (read < captured) throw PcapFormat.truncated(path, packet, offset, (captured - read).toLong)
    offset += 16 + captured
    (Frame(sec * 1000000L + (if (nanos) frac / 1000 else frac), network, bytes, original), network)
  }

  override def hasNext: Boolean = pending != null
  override def next(): (Frame, Int) = {
    if (pending == null) throw new NoSuchElementException("no more packets")
    val r = pending
    pending = advance()
    r
  }
  override def close(): Unit = in.close()
}

/** pcapng blocks: section headers (byte order), interface descriptions (link type and time
 * resolution), enhanced and simple packet blocks; other blocks are skipped. */
private final class PcapngFrames(in: InputStream, path: String) extends Iterator[(Frame, Int)] with AutoCloseable {
  private var order = ByteOrder.LITTLE_ENDIAN
  private var interfaces = Vector.empty[(Int, Long)] // link type, ticks per second
  private var offset = 0L
  private var packet = 0L
  private var pending: (Frame, Int) = advance()

  private def readBlock(): (Int, ByteBuffer) = {
    val head = new Array[Byte](8)
    val got = in.readNBytes(head, 0, 8)
    if (got == 0) return null
    if (got < 8) throw PcapFormat.truncated(path, packet + 1, offset, 8L - got)
    val rawType = ByteBuffer.wrap(head).order(ByteOrder.BIG_ENDIAN).getInt(0)
    if (rawType == 0x0A0D0D0A) { // a section header says its byte order in its first body word
      val magic = new Array[Byte](4)
      if (in.readNBytes(magic, 0, 4) < 4) throw PcapFormat.truncated(path, packet + 1, offset, 4)
      order = if (ByteBuffer.wrap(magic).order(ByteOrder.BIG_ENDIAN).getInt == 0x1A2B3C4D) ByteOrder.BIG_ENDIAN
        else ByteOrder.LITTLE_ENDIAN
      val length = ByteBuffer.wrap(head).order(order).getInt(4)
      if (length < 28 || length > (1 << 20)) throw FormatErrors.badData(PcapFormat.typeName, path,
        s"section header at byte $offset", s"a block length of $length bytes (a corrupt capture)")
      val body = new Array[Byte](length - 16) // after the magic, before the trailing length
      if (in.readNBytes(body, 0, body.length) < body.length)
        throw PcapFormat.truncated(path, packet + 1, offset, length.toLong)
      in.readNBytes(4)
      offset += length
      interfaces = Vector.empty
      return (rawType, ByteBuffer.wrap(magic ++ body).order(order))
    }
    val h = ByteBuffer.wrap(head).order(order)
    val kind = h.getInt(0)
    val length = h.getInt(4)
    if (length < 12 || length > (1 << 28)) throw FormatErrors.badData(PcapFormat.typeName, path,
      s"block at byte $offset", s"a block length of $length bytes (a corrupt capture)")
    val body = new Array[Byte](length - 12)
    val read = in.readNBytes(body, 0, body.length)
    if (read < body.length || in.readNBytes(4).length < 4)
      throw PcapFormat.truncated(path, packet + 1, offset, (body.length - read).toLong + 4)
    offset += length
    (kind, ByteBuffer.wrap(body).order(order))
  }

  private def advance(): (Frame, Int) = {
    while (true) {
      val block = readBlock()
      if (block == null) return null
      val (kind, b) = block
      kind match {
        case 1 => interfaces :+= ((b.getShort(0) & 0xFFFF, resolution(b)))
        case 6 | 3 =>
          packet += 1
          val (iface, micros, captured, original, at) =
            if (kind == 6) {
              val i = b.getInt(0)
              val ticks = ((b.getInt(4) & 0xFFFFFFFFL) << 32) | (b.getInt(8) & 0xFFFFFFFFL)
              val perSecond = interfaces.lift(i).map(_._2).getOrElse(1000000L)
              val us = if (perSecond == 1000000L) ticks else (BigInt(ticks) * 1000000 / perSecond).toLong
              (i, us, b.getInt(12), b.getInt(16), 20)
            } else (0, 0L, b.getInt(0), b.getInt(0), 4)
          val len = math.max(0, math.min(captured, b.limit() - at))
          val bytes = new Array[Byte](len)
          b.position(at)
          b.get(bytes)
          val link = interfaces.lift(iface).map(_._1).getOrElse(1)
          return (Frame(micros, link, bytes, original), link)
        case _ => // name resolution, statistics, custom blocks: nothing Drill shows
      }
    }
    null
  }

  /** The interface's `if_tsresol` option (code 9): ticks per second (default microseconds). */
  private def resolution(b: ByteBuffer): Long = {
    var i = 8
    while (i + 4 <= b.limit()) {
      val code = b.getShort(i) & 0xFFFF
      val len = b.getShort(i + 2) & 0xFFFF
      if (code == 0) return 1000000L
      if (code == 9 && len >= 1) {
        val v = b.get(i + 4) & 0xFF
        return if ((v & 0x80) != 0) 1L << (v & 0x7F) else BigInt(10).pow(v).toLong
      }
      i += 4 + ((len + 3) & ~3)
    }
    1000000L
  }

  override def hasNext: Boolean = pending != null
  override def next(): (Frame, Int) = {
    if (pending == null) throw new NoSuchElementException("no more packets")
    val r = pending
    pending = advance()
    r
  }
  override def close(): Unit = in.close()
}

/** What Drill's columns show of one Ethernet frame: addresses, ports, TCP fields, payload. */
final case class Packet(srcMac: String, dstMac: String, srcIp: String, dstIp: String, protocol: String,
    srcPort: Int, dstPort: Int, sequence: Long, ack: Long, flags: Int, payload: Array[Byte], ipPacket: Array[Byte]) {
  def flag(bit: Int): Boolean = (flags & bit) != 0

  /** The set flags, Drill's text: `URG|ACK|FIN`, most significant first. */
  def parsedFlags: String =
    if (protocol != "TCP") ""
    else Seq(0x100 -> "NS", 0x80 -> "CWR", 0x40 -> "ECE", 0x20 -> "URG", 0x10 -> "ACK", 0x08 -> "PSH",
      0x04 -> "RST", 0x02 -> "SYN", 0x01 -> "FIN").collect { case (b, n) if flag(b) => n }.mkString("|")

  /** One id for both directions of a TCP connection (0 for anything else). */
  def session: Long =
    if (protocol != "TCP") 0L
    else {
      val ends = Seq(s"$srcIp/$srcPort", s"$dstIp/$dstPort").sorted.mkString("|")
      (MurmurHash3.stringHash(ends, 0x5eed).toLong << 32) | (MurmurHash3.stringHash(ends, 0x0dd).toLong & 0xFFFFFFFFL)
    }
}

object Packet {
  private val Empty = new Array[Byte](0)

  def decode(frame: Frame): Packet = {
    val b = frame.bytes
    def u8(i: Int): Int = if (i < b.length) b(i) & 0xFF else 0
    def u16(i: Int): Int = (u8(i) << 8) | u8(i + 1)
    def u32(i: Int): Long = (u16(i).toLong << 16) | u16(i + 2)
    def mac(at: Int): String = if (b.length < at + 6) null else (at until at + 6).map(i => f"${u8(i)}%02x").mkString(":")
    def slice(from: Int, until: Int): Array[Byte] =
      if (from >= math.min(until, b.length)) Empty else java.util.Arrays.copyOfRange(b, from, math.min(until, b.length))
    def ip(at: Int, n: Int): String = if (b.length < at + n) null else InetAddress.getByAddress(slice(at, at + n)).getHostAddress
    if (frame.linkType != 1 || b.length < 14) return Packet(null, null, null, null, null, 0, 0, 0, 0, 0, Empty, Empty)
    var ether = u16(12)
    var l3 = 14
    while ((ether == 0x8100 || ether == 0x88A8) && b.length >= l3 + 4) { ether = u16(l3 + 2); l3 += 4 } // VLAN tags
    val (src, dst, proto, l4, end, packetFrom) = ether match {
      case 0x0800 if b.length >= l3 + 20 =>
        val ihl = (u8(l3) & 0x0F) * 4
        (ip(l3 + 12, 4), ip(l3 + 16, 4), u8(l3 + 9), l3 + ihl, l3 + u16(l3 + 2), l3)
      // Drill's packet_data of an IPv6 packet starts two bytes early, at the EtherType
      case 0x86DD if b.length >= l3 + 40 => (ip(l3 + 8, 16), ip(l3 + 24, 16), u8(l3 + 6), l3 + 40, l3 + 40 + u16(l3 + 4), l3 - 2)
      case _ => (null, null, -1, b.length, b.length, l3)
    }
    val stop = math.min(if (end > l4) end else b.length, b.length)
    val name = proto match { case 6 => "TCP" case 17 => "UDP" case 1 => "ICMP" case 58 => "ICMPv6" case -1 => null case p => s"$p" }
    val ipBytes = slice(packetFrom, b.length)
    proto match {
      case 6 if b.length >= l4 + 20 =>
        val offset = (u8(l4 + 12) >> 4) * 4
        val flags = ((u8(l4 + 12) & 0x01) << 8) | u8(l4 + 13)
        Packet(mac(6), mac(0), src, dst, name, u16(l4), u16(l4 + 2), u32(l4 + 4), u32(l4 + 8), flags,
          slice(l4 + offset, stop), ipBytes)
      case 17 if b.length >= l4 + 8 =>
        Packet(mac(6), mac(0), src, dst, name, u16(l4), u16(l4 + 2), 0, 0, 0, slice(l4 + 8, stop), ipBytes)
      case _ => Packet(mac(6), mac(0), src, dst, name, 0, 0, 0, 0, 0, slice(l4, stop), ipBytes)
    }
  }

  /** Bytes as Drill shows them: leading and trailing bytes up to space dropped (Java's trim),
   * any other byte outside printable ASCII as `.`. */
  def printable(bytes: Array[Byte]): String = {
    var from = 0
    var to = bytes.length
    while (from < to && (bytes(from) & 0xFF) <= 0x20) from += 1
    while (to > from && (bytes(to - 1) & 0xFF) <= 0x20) to -= 1
    val sb = new java.lang.StringBuilder(to - from)
    var i = from
    while (i < to) {
      val c = bytes(i) & 0xFF
      sb.append(if (c >= 0x20 && c < 0x7F) c.toChar else '.')
      i += 1
    }
    sb.toString
  }
}
