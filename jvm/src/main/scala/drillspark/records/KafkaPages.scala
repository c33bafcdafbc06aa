package drillspark.records

import java.io.ByteArrayOutputStream
import java.lang.reflect.InvocationTargetException
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.{JsonFactoryBuilder, JsonParser, JsonProcessingException, JsonToken}
import com.fasterxml.jackson.core.io.JsonStringEncoder
import com.fasterxml.jackson.core.json.JsonReadFeature

import drillspark.source.input.{DrillScanException, JsonInput}

/**
 * A Kafka topic's JSON messages as pages of records for the `drill` reader (Drill's
 * `JsonMessageReader`): each message becomes one line, the message's object with Drill's
 * metadata fields added at its end (`kafkaTopic`, `kafkaPartitionId`, `kafkaMsgOffset`,
 * `kafkaMsgTimestamp`, `kafkaMsgKey`), so one typing rule serves files and messages. A read is a
 * bounded snapshot: each partition's end offset is taken once, before the first message is
 * fetched, and the messages up to it are read. A message that is not one JSON object fails the
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

  private def call(obj: AnyRef, iface: String, name: String, types: Seq[Class[_]], args: AnyRef*): AnyRef =
    try cls(iface).getMethod(name, types: _*).invoke(obj, args: _*)
    catch { case e: InvocationTargetException => throw e.getCause }

  /** A consumer of byte arrays with the plugin's `kafkaConsumerProps` (deserializers are always
   * byte arrays, and offsets are never committed: a query reads, it does not consume). */
  private def consumer(props: java.util.Map[String, String]): AnyRef = {
    val p = new java.util.Properties()
    props.asScala.foreach { case (k, v) => p.setProperty(k, v) }
    p.setProperty("key.deserializer", Bytes)
    p.setProperty("value.deserializer", Bytes)
    p.setProperty("enable.auto.commit", "false")
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

  private def partition(topic: String, p: Int): AnyRef =
    cls("org.apache.kafka.common.TopicPartition").getConstructor(classOf[String], classOf[Int])
      .newInstance(topic, Int.box(p)).asInstanceOf[AnyRef]

  /**
   * Read `topic`'s messages into `batch`, a page per partition (and per `pageMessages`
   * messages), each page named `place`, the partition and its offsets. `pollTimeoutMs`: how long
   * one poll may wait for messages the snapshot still lacks before the read fails (Drill's
   * `store.kafka.poll.timeout`; the first poll of a partition also gets the time to connect).
   * Returns the messages read and skipped, as a pair.
   */
  def read(batch: RecordBatch, props: java.util.Map[String, String], topic: String, pollTimeoutMs: Long,
      pageMessages: Int, skipInvalid: Boolean, place: String): Array[Long] = {
    val c = consumer(props)
    try {
      val infos = call(c, ConsumerIface, "partitionsFor", Seq(classOf[String], classOf[Duration]), topic,
        MetadataTimeout).asInstanceOf[java.util.List[AnyRef]]
      if (infos == null || infos.isEmpty) throw new DrillScanException(s"$place: no such topic")
      val ids = infos.asScala.map(i => call(i, "org.apache.kafka.common.PartitionInfo", "partition", Nil)
        .asInstanceOf[Integer].intValue).sorted
      val parts = ids.map(partition(topic, _))
      val coll = Seq(classOf[java.util.Collection[_]], classOf[Duration])
      // the snapshot: each partition's first and end offsets, fixed before any message is read
      val begin = call(c, ConsumerIface, "beginningOffsets", coll, parts.asJava, MetadataTimeout)
        .asInstanceOf[java.util.Map[AnyRef, java.lang.Long]]
      val end = call(c, ConsumerIface, "endOffsets", coll, parts.asJava, MetadataTimeout)
        .asInstanceOf[java.util.Map[AnyRef, java.lang.Long]]
      var read = 0L
      var skipped = 0L
      ids.zip(parts).foreach { case (id, tp) =>
        val (from, to) = (begin.get(tp).longValue, end.get(tp).longValue)
        if (to > from) {
          val counts = readPartition(c, batch, topic, id, tp, from, to, pollTimeoutMs, pageMessages,
            skipInvalid, place)
          read += counts._1; skipped += counts._2
        }
      }
      Array(read, skipped)
    } finally close(c)
  }

  private def readPartition(c: AnyRef, batch: RecordBatch, topic: String, id: Int, tp: AnyRef, from: Long,
      to: Long, pollTimeoutMs: Long, pageMessages: Int, skipInvalid: Boolean, place: String): (Long, Long) = {
    call(c, ConsumerIface, "assign", Seq(classOf[java.util.Collection[_]]), java.util.List.of(tp))
    call(c, ConsumerIface, "seek", Seq(cls("org.apache.kafka.common.TopicPartition"), classOf[Long]), tp,
      Long.box(from))
    val here = s"$place, partition $id"
    val page = new ByteArrayOutputStream()
    var first, last = from // the page's first and last offsets
    var inPage = 0
    var read = 0L
    var skipped = 0L
    def flush(): Unit = if (inPage > 0) {
      batch.add(s"$here, offsets $first to $last", page.toByteArray, "")
      page.reset(); inPage = 0
    }
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
          if (line(page, value, meta, s"$here, offset $offset", skipInvalid)) {
            if (inPage == 0) first = offset
            inPage += 1; read += 1; last = offset
          } else skipped += 1
          if (inPage >= pageMessages) flush()
        }
        next = offset + 1
      }
    }
    flush()
    (read, skipped)
  }

  private def quoted(s: String): String = "\"" + new String(JsonStringEncoder.getInstance.quoteAsString(s)) + "\""

  /**
   * Append the message `value` to `page` as one line with `meta` added to its object; false
   * when it is not one JSON object and `skipInvalid` says to skip it (else the error names
   * `here`). An empty message is no record, as in Drill.
   */
  private def line(page: ByteArrayOutputStream, value: Array[Byte], meta: String, here: String,
      skipInvalid: Boolean): Boolean = {
    if (value == null || value.forall(b => b == ' ' || b == '\n' || b == '\r' || b == '\t')) return false
    check(value) match {
      case Left(why) => if (skipInvalid) false else throw new DrillScanException(s"$here: $why")
      case Right((close, empty)) =>
        write(page, value, close, empty, meta)
        true
    }
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
