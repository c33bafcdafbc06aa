package drillspark.records

import java.io.ByteArrayOutputStream
import java.lang.reflect.InvocationTargetException
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.{JsonFactoryBuilder, JsonParser, JsonProcessingException, JsonToken}
import com.fasterxml.jackson.core.io.JsonStringEncoder
import com.fasterxml.jackson.core.json.JsonReadFeature

import drillspark.source.input.{DrillScanException, HeldPages, InputFile, JsonInput, PageSource}

/**
 * A Kafka topic's JSON messages as pages of records for the `drill` reader (Drill's
 * `JsonMessageReader`): each message becomes one line, the message's object with Drill's
 * metadata fields added at its end (`kafkaTopic`, `kafkaPartitionId`, `kafkaMsgOffset`,
 * `kafkaMsgTimestamp`, `kafkaMsgKey`), so one typing rule serves files and messages. A read is a
 * bounded snapshot: each partition's offsets are taken once, at planning ([[plan]]), and each
 * page of that range is fetched in the Spark task that reads it ([[KafkaRange]]), never
 * through the driver. A message that is not one JSON object fails the
 * read naming the plugin, topic, partition and offset, or is skipped (`skipInvalid`, Drill's
 * `store.kafka.reader.skip_invalid_records`). The plain Java client
 * (org.apache.kafka:kafka-clients, fetched at build time into the package's jars/clients/) is
 * called by reflection: the extension compiles without it. Used from
 * drillspark/spark/storage/kafka.py.
 */
object KafkaPages {
  private val Bytes = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
  private val ConsumerIface = "org.apache.kafka.clients.consumer.Consumer"
  // how long a consumer may take to reach the cluster and answer a metadata request
  private val MetadataTimeout = Duration.ofSeconds(10)

  private val factory = {
    val f = new JsonFactoryBuilder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .enable(JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER).build()
    f.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE)
    f
  }

  private def loader: ClassLoader =
    Option(Thread.currentThread().getContextClassLoader).getOrElse(getClass.getClassLoader)

  private def cls(name: String): Class[_] =
    try Class.forName(name, true, loader)
    catch {
      case _: ClassNotFoundException => throw new DrillScanException("kafka: the Kafka Java client " +
        "(org.apache.kafka:kafka-clients) is not on the classpath; `make setup` fetches it into " +
        "drillspark's jars/clients/, which drillspark.session() puts on spark.jars")
    }

  // the client's methods, looked up once per class loader (a read calls five per message)
  private val methods = new java.util.concurrent.ConcurrentHashMap[String, java.lang.reflect.Method]()

  private def call(obj: AnyRef, iface: String, name: String, types: Seq[Class[_]], args: AnyRef*): AnyRef = {
    val key = s"${System.identityHashCode(loader)}#$iface#$name#${types.map(_.getName).mkString(",")}"
    val m = methods.computeIfAbsent(key, _ => cls(iface).getMethod(name, types: _*))
    try m.invoke(obj, args: _*)
    catch { case e: InvocationTargetException => throw e.getCause }
  }

  /** A consumer of byte arrays with the plugin's `kafkaConsumerProps` (deserializers are always
   * byte arrays, and offsets are never committed: a query reads, it does not consume). */
  private def consumer(props: java.util.Map[String, String]): AnyRef = {
    val p = new java.util.Properties()
    props.asScala.foreach { case (k, v) => p.setProperty(k, v) }
    p.setProperty("key.deserializer", Bytes)
    p.setProperty("value.deserializer", Bytes)
    p.setProperty("enable.auto.commit", "false")
    // a read never creates a topic: asking a broker that auto-creates for a misspelt one's
    // partitions (a table lookup does) must answer "none", not make it
    p.setProperty("allow.auto.create.topics", "false")
    // larger polls than the client's 500 messages, unless the plugin sets its own
    if (!p.containsKey("max.poll.records")) p.setProperty("max.poll.records", "10000")
    // a page's messages in fewer fetches than the client's 1 MiB a partition: each fetch is a
    // round trip that store.kafka.poll.timeout (200 ms) must cover on a busy executor
    if (!p.containsKey("max.partition.fetch.bytes")) p.setProperty("max.partition.fetch.bytes", "16777216")
    val previous = Thread.currentThread().getContextClassLoader
    Thread.currentThread().setContextClassLoader(loader) // the client loads its classes by name
    try cls("org.apache.kafka.clients.consumer.KafkaConsumer").getConstructor(classOf[java.util.Properties])
      .newInstance(p).asInstanceOf[AnyRef]
    catch { case e: InvocationTargetException => throw e.getCause }
    finally Thread.currentThread().setContextClassLoader(previous)
  }

  private def close(c: AnyRef): Unit = call(c, ConsumerIface, "close", Nil)

  /** The cluster's topics, internal ones (`__consumer_offsets`) too, as Drill lists them. */
  def topics(props: java.util.Map[String, String]): Array[String] = {
    val c = consumer(props)
    try {
      val all = call(c, ConsumerIface, "listTopics", Seq(classOf[Duration]), MetadataTimeout)
        .asInstanceOf[java.util.Map[String, _]]
      all.keySet().asScala.toArray.sorted
    } finally close(c)
  }

  /** Whether the cluster has `topic` (as spelt): that topic's partitions asked of the broker,
   * not the list of every topic (drillspark.sql's check of a name). */
  def exists(props: java.util.Map[String, String], topic: String): Boolean = {
    val c = consumer(props)
    try {
      val infos = call(c, ConsumerIface, "partitionsFor", Seq(classOf[String], classOf[Duration]), topic,
        MetadataTimeout).asInstanceOf[java.util.List[AnyRef]]
      infos != null && !infos.isEmpty
    } finally close(c)
  }

  private def partition(topic: String, p: Int): AnyRef =
    cls("org.apache.kafka.common.TopicPartition").getConstructor(classOf[String], classOf[Int])
      .newInstance(topic, Int.box(p)).asInstanceOf[AnyRef]

  /** A topic's partitions and each one's [first, end) offsets, taken once when a read is
   * planned: the bounded snapshot every page of the read lies in. */
  final case class Snapshot(topic: String, begin: Map[Int, Long], end: Map[Int, Long]) {
    def ids: Seq[Int] = begin.keys.toSeq.sorted
  }

  /** A page of a read: partition `id`, offsets [from, to), the file the `drill` reader reads. */
  final case class Page(id: Int, from: Long, to: Long, file: InputFile)

  /** The snapshot of the partitions of `topic` that `admits` accepts. */
  def snapshot(props: java.util.Map[String, String], topic: String, place: String,
      admits: Int => Boolean = _ => true): Snapshot =
    found(props, topic, admits).getOrElse(throw new DrillScanException(s"$place: no such topic"))

  /** The snapshot of `topic` (as spelt: topics are case-sensitive), None when the cluster has no
   * such topic: the broker is asked for that topic's partitions alone, never for its list of
   * all topics (a catalog's table lookup). */
  def found(props: java.util.Map[String, String], topic: String, admits: Int => Boolean = _ => true): Option[Snapshot] = {
    val c = consumer(props)
    try {
      val infos = call(c, ConsumerIface, "partitionsFor", Seq(classOf[String], classOf[Duration]), topic,
        MetadataTimeout).asInstanceOf[java.util.List[AnyRef]]
      if (infos == null || infos.isEmpty) return None
      val ids = infos.asScala.map(i => call(i, "org.apache.kafka.common.PartitionInfo", "partition", Nil)
        .asInstanceOf[Integer].intValue).filter(admits).sorted.toSeq
      if (ids.isEmpty) return Some(Snapshot(topic, Map.empty, Map.empty))
      val parts = ids.map(partition(topic, _))
      val coll = Seq(classOf[java.util.Collection[_]], classOf[Duration])
      val begin = call(c, ConsumerIface, "beginningOffsets", coll, parts.asJava, MetadataTimeout)
        .asInstanceOf[java.util.Map[AnyRef, java.lang.Long]]
      val end = call(c, ConsumerIface, "endOffsets", coll, parts.asJava, MetadataTimeout)
        .asInstanceOf[java.util.Map[AnyRef, java.lang.Long]]
      Some(Snapshot(topic, ids.zip(parts).map { case (id, tp) => id -> begin.get(tp).longValue }.toMap,
        ids.zip(parts).map { case (id, tp) => id -> end.get(tp).longValue }.toMap))
    } finally close(c)
  }

  /**
   * The pages of `snap` that `ranges` allow (their union: a partition's offsets that several
   * ranges allow are read once, overlapping and adjacent intervals merged), cut into pages of up
   * to `pageMessages` messages on a grid from each partition's first offset (so a narrowed page
   * lies within one page of the whole read). A range's timestamp bound starts each partition at
   * the first offset stamped then or later (the broker's time index, asked here). The messages
   * themselves are fetched where each page is read, in a Spark task ([[KafkaRange]]).
   */
  def pages(props: java.util.Map[String, String], snap: Snapshot, ranges: Seq[KafkaPushDown.Allowed],
      pollTimeoutMs: Long, pageMessages: Int, skipInvalid: Boolean, place: String): Seq[Page] = {
    val ids = snap.ids.filter(id => ranges.exists(_.admits(id)))
    val times = ranges.map(_.tFrom).filter(_ >= 0).distinct
    // per time bound, each partition's first offset stamped then or later (none: MaxValue)
    val byTime: Map[Long, Map[Int, Long]] = if (ids.isEmpty || times.isEmpty) Map.empty else {
      val c = consumer(props)
      try times.map { t =>
        val parts = ids.map(id => id -> partition(snap.topic, id))
        val ask = new java.util.HashMap[AnyRef, java.lang.Long]()
        parts.foreach { case (_, tp) => ask.put(tp, Long.box(t)) }
        val found = call(c, ConsumerIface, "offsetsForTimes", Seq(classOf[java.util.Map[_, _]], classOf[Duration]),
          ask, MetadataTimeout).asInstanceOf[java.util.Map[AnyRef, AnyRef]]
        t -> parts.map { case (id, tp) =>
          val at = found.get(tp)
          id -> (if (at == null) Long.MaxValue
            else call(at, "org.apache.kafka.clients.consumer.OffsetAndTimestamp", "offset", Nil)
              .asInstanceOf[java.lang.Long].longValue)
        }.toMap
      }.toMap
      finally close(c)
    }
    val props2 = new java.util.HashMap[String, String](props)
    ids.flatMap { id =>
      val (first, end) = (snap.begin(id), snap.end(id))
      val intervals = ranges.filter(_.admits(id)).map { r =>
        val timed = if (r.tFrom < 0) Long.MinValue else byTime(r.tFrom)(id)
        (math.max(math.max(first, r.oFrom), timed), math.min(end, r.oTo))
      }.filter { case (from, to) => from < to }.sortBy(_._1)
      // the union: overlapping or adjacent intervals merged, so no message is read twice
      val merged = scala.collection.mutable.ArrayBuffer[(Long, Long)]()
      intervals.foreach { case (from, to) =>
        if (merged.nonEmpty && from <= merged.last._2) merged(merged.size - 1) = (merged.last._1, math.max(merged.last._2, to))
        else merged += ((from, to))
      }
      merged.toSeq.flatMap { case (from, to) =>
        val out = scala.collection.mutable.ArrayBuffer[Page]()
        var at = from
        while (at < to) {
          val upTo = math.min(to, first + ((at - first) / pageMessages + 1) * pageMessages)
          // the page's size is not known before it is fetched: a message counts 256 bytes
          out += Page(id, at, upTo, HeldPages.fetchedPage(s"$place, partition $id, offsets $at to ${upTo - 1}",
            (upTo - at) * 256L, KafkaRange(props2, snap.topic, id, at, upTo, pollTimeoutMs, skipInvalid, place)))
          at = upTo
        }
        out.toSeq
      }
    }
  }

  /**
   * Plan the read of `topic` into `batch`: the snapshot of each partition's [first, end)
   * offsets, taken once, here, before any message is read, narrowed by what the query's filter
   * pushed down (`pushed`: the scan selection's items as JSON, "" for none; the rule is
   * [[KafkaPushDown]]'s, whose errors name `place`), cut into pages ([[pages]]). `pollTimeoutMs`:
   * how long one poll may wait for messages the snapshot still lacks before the read fails
   * (Drill's `store.kafka.poll.timeout`; the first poll of a page also gets the time to
   * connect). Returns, per page, its partition and offsets [from, to) (three longs a page), for
   * EXPLAIN and the tests.
   */
  def plan(batch: RecordBatch, props: java.util.Map[String, String], topic: String, pollTimeoutMs: Long,
      pageMessages: Int, skipInvalid: Boolean, place: String, pushed: String): Array[Long] = {
    val ranges = KafkaPushDown.ranges(place, pushed) // before the cluster is asked: a bad item fails first
    val snap = snapshot(props, topic, place, id => ranges.exists(_.admits(id)))
    pages(props, snap, ranges, pollTimeoutMs, pageMessages, skipInvalid, place).flatMap { p =>
      batch.addPage(p.file)
      Seq(p.id.toLong, p.from, p.to)
    }.toArray
  }

  /** The messages of `topic`'s partition `id` at offsets [from, to) as lines of records (a
   * message that is not one JSON object fails naming its offset, or is skipped). */
  def fetch(props: java.util.Map[String, String], topic: String, id: Int, from: Long, to: Long,
      pollTimeoutMs: Long, skipInvalid: Boolean, place: String): Array[Byte] = {
    val c = consumer(props)
    try readPartition(c, topic, id, partition(topic, id), from, to, pollTimeoutMs, skipInvalid, place)
    finally close(c)
  }

  private def readPartition(c: AnyRef, topic: String, id: Int, tp: AnyRef, from: Long, to: Long,
      pollTimeoutMs: Long, skipInvalid: Boolean, place: String): Array[Byte] = {
    call(c, ConsumerIface, "assign", Seq(classOf[java.util.Collection[_]]), java.util.List.of(tp))
    call(c, ConsumerIface, "seek", Seq(cls("org.apache.kafka.common.TopicPartition"), classOf[Long]), tp,
      Long.box(from))
    val here = s"$place, partition $id"
    val page = new ByteArrayOutputStream()
    var next = from
    var polls = 0
    val topicJson = quoted(topic)
    while (next < to) {
      // the first poll also connects and finds the partition's leader
      val wait = if (polls == 0) math.max(pollTimeoutMs, MetadataTimeout.toMillis) else pollTimeoutMs
      val records = call(c, ConsumerIface, "poll", Seq(classOf[Duration]), Duration.ofMillis(wait))
        .asInstanceOf[java.lang.Iterable[AnyRef]]
      polls += 1
      val it = records.iterator()
      // a gap at the end (a transaction's marker, compacted messages) holds no record to wait for
      if (!it.hasNext) next = math.max(next, call(c, ConsumerIface, "position",
        Seq(cls("org.apache.kafka.common.TopicPartition")), tp).asInstanceOf[java.lang.Long].longValue)
      if (!it.hasNext && next < to) throw new DrillScanException(s"$here, offset $next: Failed to fetch messages " +
        s"within $pollTimeoutMs milliseconds. Consider increasing the value of the property: store.kafka.poll.timeout")
      while (it.hasNext && next < to) {
        val r = it.next()
        val rc = "org.apache.kafka.clients.consumer.ConsumerRecord"
        val offset = call(r, rc, "offset", Nil).asInstanceOf[java.lang.Long].longValue
        if (offset < to) {
          val value = call(r, rc, "value", Nil).asInstanceOf[Array[Byte]]
          val key = call(r, rc, "key", Nil).asInstanceOf[Array[Byte]]
          val ts = call(r, rc, "timestamp", Nil).asInstanceOf[java.lang.Long].longValue
          val meta = s""""kafkaTopic":$topicJson,"kafkaPartitionId":$id,"kafkaMsgOffset":$offset,""" +
            s""""kafkaMsgTimestamp":$ts,"kafkaMsgKey":${if (key == null) "null" else quoted(new String(key, UTF_8))}"""
          line(page, value, meta, s"$here, offset $offset", skipInvalid)
        }
        next = offset + 1
      }
    }
    page.toByteArray
  }

  private def quoted(s: String): String = "\"" + new String(JsonStringEncoder.getInstance.quoteAsString(s)) + "\""

  /**
   * Append the message `value` to `page` as one line with `meta` added to its object; nothing
   * when it is not one JSON object and `skipInvalid` says to skip it (else the error names
   * `here`). An empty message is no record, as in Drill.
   */
  private def line(page: ByteArrayOutputStream, value: Array[Byte], meta: String, here: String,
      skipInvalid: Boolean): Unit =
    if (value != null && !value.forall(b => b == ' ' || b == '\n' || b == '\r' || b == '\t')) check(value) match {
      case Left(why) => if (!skipInvalid) throw new DrillScanException(s"$here: $why")
      case Right((close, empty)) => write(page, value, close, empty, meta)
    }

  /** Where the message's one JSON object closes, and whether it is empty; or why it is not one
   * JSON object. */
  private def check(value: Array[Byte]): Either[String, (Int, Boolean)] = {
    val p = factory.createParser(value)
    try {
      if (p.nextToken() != JsonToken.START_OBJECT) Left("the message is not a JSON object")
      else {
        val empty = p.nextToken() == JsonToken.END_OBJECT
        while (p.currentToken() != JsonToken.END_OBJECT) { p.nextToken(); p.skipChildren(); p.nextToken() }
        val close = p.currentTokenLocation().getByteOffset.toInt
        if (p.nextToken() != null) Left("the message holds more than one JSON value")
        else Right((close, empty))
      }
    } catch {
      case e: JsonProcessingException =>
        val at = e.getLocation
        val where = if (at == null) "" else s" (line ${at.getLineNr}, column ${at.getColumnNr})"
        Left(s"${JsonInput.describe(e)}$where")
    } finally p.close()
  }

  private def write(page: ByteArrayOutputStream, value: Array[Byte], close: Int, empty: Boolean,
      meta: String): Unit = {
    // one line per message: a raw newline can only be whitespace between tokens in valid JSON
    var i = 0
    while (i < close) { val b = value(i); page.write(if (b == '\n' || b == '\r') ' ' else b); i += 1 }
    if (!empty) page.write(',')
    page.write(meta.getBytes(UTF_8))
    page.write('}')
    page.write('\n')
  }
}

/** A page of a partition's messages, [from, to), fetched in the task that reads the page: the
 * consumer properties travel with it to the executor (as with Spark's own Kafka source). */
final case class KafkaRange(props: java.util.HashMap[String, String], topic: String, id: Int, from: Long,
    to: Long, pollTimeoutMs: Long, skipInvalid: Boolean, place: String) extends PageSource {
  override def fetch(): Array[Byte] =
    KafkaPages.fetch(props, topic, id, from, to, pollTimeoutMs, skipInvalid, place)
  // the consumer properties may hold credentials: never in a log line of the task
  override def toString: String = s"KafkaRange($topic, $id, $from, $to)"
}
