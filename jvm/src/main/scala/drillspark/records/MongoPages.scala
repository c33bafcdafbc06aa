package drillspark.records

import java.lang.reflect.InvocationTargetException

import scala.collection.mutable.ArrayBuffer

import drillspark.source.input.{DrillScanException, PageSource}

/**
 * A MongoDB collection's documents as pages of records for the `drill` reader: each document
 * becomes one line of MongoDB Extended JSON (canonical: `{"$oid": ...}`, `{"$date": ...}`,
 * `{"$numberDecimal": ...}`, `{"$binary": ...}`), which the reader types with its extended-types
 * rule, so one typing rule serves files and documents. The MongoDB Java driver
 * (org.mongodb:mongodb-driver-sync, fetched at build time into the package's jars/clients/) is
 * called by reflection: the extension compiles without it and needs it only when a `mongo`
 * plugin is read. Used from drillspark/spark/storage/mongo.py.
 */
object MongoPages {
  private def loader: ClassLoader =
    Option(Thread.currentThread().getContextClassLoader).getOrElse(getClass.getClassLoader)

  private def cls(name: String): Class[_] =
    try Class.forName(name, true, loader)
    catch {
      case _: ClassNotFoundException => throw new DrillScanException("mongo: the MongoDB Java driver " +
        "(org.mongodb:mongodb-driver-sync) is not on the classpath; `make setup` fetches it into " +
        "drillspark's jars/clients/, which drillspark.session() puts on spark.jars")
    }

  /** obj.name(args) through the interface `iface`'s method of that arity and parameter types. */
  private def call(obj: AnyRef, iface: String, name: String, types: Seq[Class[_]], args: AnyRef*): AnyRef =
    try cls(iface).getMethod(name, types: _*).invoke(obj, args: _*)
    catch { case e: InvocationTargetException => throw e.getCause }

  private def client(uri: String): AnyRef =
    call(null, "com.mongodb.client.MongoClients", "create", Seq(classOf[String]), uri)

  private def close(c: AnyRef): Unit = call(c, "java.io.Closeable", "close", Nil)

  private def strings(iterable: AnyRef): Array[String] = {
    val it = call(iterable, "com.mongodb.client.MongoIterable", "iterator", Nil).asInstanceOf[java.util.Iterator[AnyRef]]
    val out = ArrayBuffer[String]()
    try while (it.hasNext) out += it.next().toString
    finally call(it, "com.mongodb.client.MongoCursor", "close", Nil)
    out.toArray.sorted
  }

  private def database(c: AnyRef, db: String): AnyRef =
    call(c, "com.mongodb.client.MongoClient", "getDatabase", Seq(classOf[String]), db)

  /** The server's database names. */
  def databases(uri: String): Array[String] = {
    val c = client(uri)
    try strings(call(c, "com.mongodb.client.MongoClient", "listDatabaseNames", Nil))
    finally close(c)
  }

  /** The collection names of database `db`. */
  def collections(uri: String, db: String): Array[String] = {
    val c = client(uri)
    try strings(call(database(c, db), "com.mongodb.client.MongoDatabase", "listCollectionNames", Nil))
    finally close(c)
  }

  /** The find filter of a name equal to `name` in any case (a regex: MongoDB's listings take
   * no collation), its metacharacters escaped as both PCRE (MongoDB) and RE2 (FerretDB) read
   * them. */
  private def nameFilter(name: String): AnyRef = {
    val escaped = name.flatMap(ch => if ("\\^$.|?*+()[]{}".indexOf(ch.toInt) >= 0) s"\\$ch" else ch.toString)
    val json = new com.fasterxml.jackson.databind.ObjectMapper()
    parse(s"""{"name": {"$$regex": ${json.writeValueAsString(s"^$escaped\\z")}, "$$options": "i"}}""")
  }

  /** The server's database names equal to `name` in any case: one filtered listing, not the
   * server's every database (a catalog's lookup of one name). */
  def databasesNamed(uri: String, name: String): Array[String] = {
    val c = client(uri)
    try {
      val listing = "com.mongodb.client.ListDatabasesIterable"
      var it = call(c, "com.mongodb.client.MongoClient", "listDatabases", Nil)
      it = call(it, listing, "filter", Seq(bson), nameFilter(name))
      it = call(it, listing, "nameOnly", Seq(classOf[java.lang.Boolean]), java.lang.Boolean.TRUE)
      val cursor = iterator(it)
      val out = ArrayBuffer[String]()
      try while (cursor.hasNext) out += String.valueOf(call(cursor.next(), "org.bson.Document", "get",
        Seq(classOf[AnyRef]), "name"))
      finally call(cursor, "com.mongodb.client.MongoCursor", "close", Nil)
      out.toArray.sorted
    } finally close(c)
  }

  /** The collection names of database `db` equal to `name` in any case (one filtered listing). */
  def collectionsNamed(uri: String, db: String, name: String): Array[String] = {
    val c = client(uri)
    try {
      val all = call(database(c, db), "com.mongodb.client.MongoDatabase", "listCollectionNames", Nil)
      strings(call(all, "com.mongodb.client.ListCollectionNamesIterable", "filter", Seq(bson), nameFilter(name)))
    } finally close(c)
  }

  /** Binary data (and ObjectIds) as `{"$binary": "<base64>", "$type": "<hex>"}`, the shape the
   * reader's extended types take (the driver's canonical form nests an object under `$binary`). */
  private def binaryConverter(objectId: Boolean): AnyRef = {
    val writer = "org.bson.json.StrictJsonWriter"
    val handler: java.lang.reflect.InvocationHandler = (proxy: AnyRef, method: java.lang.reflect.Method,
        args: Array[AnyRef]) => method.getName match {
      case "convert" =>
        // an ObjectId is its 12 bytes, VARBINARY, as Drill's mongo reader gives it
        val data = (if (objectId) call(args(0), "org.bson.types.ObjectId", "toByteArray", Nil)
          else call(args(0), "org.bson.BsonBinary", "getData", Nil)).asInstanceOf[Array[Byte]]
        val kind = if (objectId) java.lang.Byte.valueOf(0.toByte)
          else call(args(0), "org.bson.BsonBinary", "getType", Nil).asInstanceOf[java.lang.Byte]
        val w = args(1)
        val str = Seq(classOf[String], classOf[String])
        call(w, writer, "writeStartObject", Nil)
        call(w, writer, "writeString", str, "$binary", java.util.Base64.getEncoder.encodeToString(data))
        call(w, writer, "writeString", str, "$type", f"${kind.byteValue & 0xff}%02x")
        call(w, writer, "writeEndObject", Nil)
        null
      case "hashCode" => Int.box(System.identityHashCode(proxy))
      case "equals" => Boolean.box(proxy eq args(0))
      case _ => "MongoPages.binaryConverter"
    }
    java.lang.reflect.Proxy.newProxyInstance(loader, Array(cls("org.bson.json.Converter")), handler)
  }

  /** A document without its null members, at any depth: Drill's mongo reader writes nothing
   * for a null, so a field that is null in every document is no column. */
  private def dropNulls(value: AnyRef): Unit = value match {
    case m: java.util.Map[_, _] =>
      val it = m.asInstanceOf[java.util.Map[AnyRef, AnyRef]].values().iterator()
      while (it.hasNext) { val v = it.next(); if (v == null) it.remove() else dropNulls(v) }
    case l: java.util.List[_] =>
      l.asInstanceOf[java.util.List[AnyRef]].forEach(v => if (v != null) dropNulls(v))
    case _ => ()
  }

  private def parse(json: String): AnyRef =
    call(null, "org.bson.Document", "parse", Seq(classOf[String]), json)

  private val FindIterable = "com.mongodb.client.FindIterable"

  private def collection(c: AnyRef, db: String, coll: String): AnyRef =
    call(database(c, db), "com.mongodb.client.MongoDatabase", "getCollection", Seq(classOf[String]), coll)

  private def bson: Class[_] = cls("org.bson.conversions.Bson")

  /** Canonical Extended JSON with binary data and ObjectIds as the reader takes them. */
  private def jsonSettings(): AnyRef = {
    val mode = cls("org.bson.json.JsonMode").getField("EXTENDED").get(null)
    val builderClass = "org.bson.json.JsonWriterSettings$Builder"
    val builder = call(null, "org.bson.json.JsonWriterSettings", "builder", Nil)
    call(builder, builderClass, "outputMode", Seq(cls("org.bson.json.JsonMode")), mode)
    call(builder, builderClass, "binaryConverter", Seq(cls("org.bson.json.Converter")), binaryConverter(false))
    call(builder, builderClass, "objectIdConverter", Seq(cls("org.bson.json.Converter")), binaryConverter(true))
    call(builder, builderClass, "build", Nil)
  }

  /** One line of Extended JSON per document of the cursor `it` (closed here), nulls dropped. */
  private def lines(it: java.util.Iterator[AnyRef], page: java.io.ByteArrayOutputStream): Unit = {
    val settings = jsonSettings()
    val settingsClass = cls("org.bson.json.JsonWriterSettings")
    try while (it.hasNext) {
      val doc = it.next()
      dropNulls(doc)
      val json = call(doc, "org.bson.Document", "toJson", Seq(settingsClass), settings).asInstanceOf[String]
      page.write(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)); page.write('\n')
    } finally call(it, "com.mongodb.client.MongoCursor", "close", Nil)
  }

  private def iterator(iterable: AnyRef): java.util.Iterator[AnyRef] =
    call(iterable, "com.mongodb.client.MongoIterable", "iterator", Nil).asInstanceOf[java.util.Iterator[AnyRef]]

  /** Which values an `_id` range can take together: MongoDB compares values of one kind only
   * in a range query (type bracketing), so ranges are cut only when every _id is of one. */
  private def bracket(v: AnyRef): String = v match {
    case _: java.lang.Number => "number"
    case _: String => "string"
    case _: java.util.Date => "date"
    case null => "null"
    case o if o.getClass.getName == "org.bson.types.ObjectId" => "objectId"
    case o if o.getClass.getName == "org.bson.types.Decimal128" => "number"
    case o => o.getClass.getName
  }

  /** `v` as Extended JSON (canonical: each value keeps its BSON type). */
  private def valueJson(v: AnyRef): String = {
    val doc = cls("org.bson.Document").getConstructor(classOf[String], classOf[AnyRef]).newInstance("v", v).asInstanceOf[AnyRef]
    val mode = cls("org.bson.json.JsonMode").getField("EXTENDED").get(null)
    val settings = call(call(call(null, "org.bson.json.JsonWriterSettings", "builder", Nil),
      "org.bson.json.JsonWriterSettings$Builder", "outputMode", Seq(cls("org.bson.json.JsonMode")), mode),
      "org.bson.json.JsonWriterSettings$Builder", "build", Nil)
    val json = call(doc, "org.bson.Document", "toJson", Seq(cls("org.bson.json.JsonWriterSettings")), settings)
      .asInstanceOf[String]
    json.substring(json.indexOf(':') + 1, json.lastIndexOf('}')).trim
  }

  /** About how many documents db.coll holds: collStats' count (MongoDB keeps it in the
   * collection's metadata; FerretDB answers it from its SQLite tables in milliseconds, where its
   * `count`, behind the driver's estimatedDocumentCount, reads every document: 1.4 s over 20,000),
   * else estimatedDocumentCount (a server without collStats). */
  private def documents(c: AnyRef, db: String, coll: String, collection: AnyRef): Long = {
    val stats = try {
      val command = new java.util.LinkedHashMap[String, AnyRef]()
      command.put("collStats", coll)
      val doc = cls("org.bson.Document").getConstructor(classOf[java.util.Map[_, _]]).newInstance(command).asInstanceOf[AnyRef]
      call(database(c, db), "com.mongodb.client.MongoDatabase", "runCommand", Seq(bson), doc)
        .asInstanceOf[java.util.Map[String, AnyRef]].get("count")
    } catch { case _: Exception => null }
    stats match {
      case n: java.lang.Number => n.longValue
      case _ => call(collection, "com.mongodb.client.MongoCollection", "estimatedDocumentCount", Nil)
        .asInstanceOf[java.lang.Long].longValue
    }
  }

  /**
   * Plan the read of db.coll into `batch`, as a snapshot of its `_id` ranges taken here: pages
   * of about `pageDocs` documents, each `[low, high)` of the collection's `_id` order, whose
   * documents are fetched where the page is read (a Spark task: [[MongoRange]]), never here.
   * Only the `_id`s cross the wire at planning, and only when the collection holds more than one
   * page (its estimated count); a collection whose `_id`s are of mixed kinds is one page.
   * Returns each page's place (`place, documents 1 to 10000`), for EXPLAIN and the tests.
   */
  def plan(batch: RecordBatch, uri: String, db: String, coll: String, batchSize: Int, pageDocs: Int,
      place: String): Array[String] = {
    val c = client(uri)
    val bounds = ArrayBuffer[String]()
    var total = 0L
    try {
      val collection = this.collection(c, db, coll)
      val estimate = documents(c, db, coll, collection)
      if (estimate > pageDocs) {
        var find = call(collection, "com.mongodb.client.MongoCollection", "find", Nil)
        find = call(find, FindIterable, "projection", Seq(bson), parse("""{"_id": 1}"""))
        find = call(find, FindIterable, "sort", Seq(bson), parse("""{"_id": 1}"""))
        find = call(find, FindIterable, "batchSize", Seq(classOf[Int]), Int.box(math.max(batchSize, 10000)))
        val it = iterator(find)
        var kind: String = null
        var mixed = false
        try while (it.hasNext) {
          val id = call(it.next(), "org.bson.Document", "get", Seq(classOf[AnyRef]), "_id")
          val k = bracket(id)
          if (kind == null) kind = k else if (k != kind) mixed = true
          if (total > 0 && total % pageDocs == 0) bounds += valueJson(id)
          total += 1
        } finally call(it, "com.mongodb.client.MongoCursor", "close", Nil)
        if (mixed || !Set("number", "string", "date", "objectId")(kind)) bounds.clear()
      }
    } finally close(c)
    val out = ArrayBuffer[String]()
    // this snapshot's name: its pushed-down reads may use its whole pages this JVM holds
    val plan = s"${System.nanoTime()}-${java.util.UUID.randomUUID()}"
    val edges = ("" +: bounds.toSeq).zip(bounds.toSeq :+ "")
    edges.zipWithIndex.foreach { case ((low, high), i) =>
      val first = i.toLong * pageDocs + 1
      val range = if (bounds.isEmpty) "all documents"
        else s"documents $first to ${if (high.isEmpty) total else first + pageDocs - 1}"
      val where = s"$place, $range"
      batch.addFetched(where, math.max(1L, if (bounds.isEmpty) pageDocs.toLong else math.min(pageDocs.toLong, total)) * 256L,
        MongoRange(uri, db, coll, low, high, "", "", 0, batchSize, where, plan))
      out += where
    }
    out.toArray
  }

  /** The find filter of `_id` in [low, high) ("": unbounded, Extended JSON values) and `filter`
   * (a find filter, "" for none). */
  def rangeFilter(low: String, high: String, filter: String): String = {
    val parts = Seq(
      if (low.isEmpty) "" else s"""{"_id": {"$$gte": $low}}""",
      if (high.isEmpty) "" else s"""{"_id": {"$$lt": $high}}""",
      filter).filter(_.nonEmpty)
    if (parts.size <= 1) parts.headOption.getOrElse("") else parts.mkString("""{"$and": [""", ", ", "]}")
  }

  /**
   * The documents of db.coll whose `_id` lies in [low, high) and that match `filter` (Extended
   * JSON, "" for all), keeping `projection`'s fields ("" all), at most `limit` (0 all), as
   * lines of Extended JSON: a page of records (used by [[MongoRange]] in the task reading it).
   */
  def fetch(uri: String, db: String, coll: String, low: String, high: String, filter: String,
      projection: String, limit: Int, batchSize: Int): Array[Byte] = {
    val c = client(uri)
    try {
      val collection = this.collection(c, db, coll)
      val where = rangeFilter(low, high, filter)
      var find = if (where.isEmpty) call(collection, "com.mongodb.client.MongoCollection", "find", Nil)
        else call(collection, "com.mongodb.client.MongoCollection", "find", Seq(bson), parse(where))
      if (projection.nonEmpty) find = call(find, FindIterable, "projection", Seq(bson), parse(projection))
      if (limit > 0) find = call(find, FindIterable, "limit", Seq(classOf[Int]), Int.box(limit))
      if (batchSize > 0) find = call(find, FindIterable, "batchSize", Seq(classOf[Int]), Int.box(batchSize))
      val page = new java.io.ByteArrayOutputStream()
      lines(iterator(find), page)
      page.toByteArray
    } finally close(c)
  }

  /** The documents an aggregation pipeline of `stages` (each one stage's Extended JSON) answers
   * over db.coll, as maps (used by [[MongoAggregate]] in the task reading a page). */
  def aggregate(uri: String, db: String, coll: String, stages: Seq[String], batchSize: Int): Seq[java.util.Map[String, AnyRef]] = {
    val c = client(uri)
    try {
      val pipeline = new java.util.ArrayList[AnyRef]()
      stages.foreach(s => pipeline.add(parse(s)))
      var agg = call(this.collection(c, db, coll), "com.mongodb.client.MongoCollection", "aggregate",
        Seq(classOf[java.util.List[_]]), pipeline)
      if (batchSize > 0) agg = call(agg, "com.mongodb.client.AggregateIterable", "batchSize", Seq(classOf[Int]), Int.box(batchSize))
      val it = iterator(agg)
      val out = ArrayBuffer[java.util.Map[String, AnyRef]]()
      try while (it.hasNext) out += it.next().asInstanceOf[java.util.Map[String, AnyRef]]
      finally call(it, "com.mongodb.client.MongoCursor", "close", Nil)
      out.toSeq
    } finally close(c)
  }
}

/** A page of a collection: the documents whose `_id` lies in [low, high) (Extended JSON values,
 * "" unbounded), fixed when the scan was planned, fetched in the task that reads the page; a
 * scan that pushed a filter, a projection or a limit into the server reads copies of the pages
 * that carry them (drillspark.records.MongoScanBuilder). */
final case class MongoRange(uri: String, db: String, coll: String, low: String, high: String, filter: String,
    projection: String, limit: Int, batchSize: Int, place: String, plan: String) extends PageSource {
  /** The whole page (no filter, projection or limit): what discovery fetches. */
  def whole: Boolean = filter.isEmpty && projection.isEmpty && limit <= 0

  override def fetch(): Array[Byte] = {
    val key = s"$plan\u0001$low\u0001$high"
    // a pushed-down read of a page this JVM still holds whole (discovery fetched it here): the
    // same rows once Spark's filters ran, with no second round trip to the server
    val local = if (whole) null else MongoRange.held(key)
    if (local != null) return local
    val got =
      try MongoPages.fetch(uri, db, coll, low, high, filter, projection, limit, batchSize)
      catch {
        case e: DrillScanException => throw e
        // the URI may hold a password: the driver's message does not, the URI is never added
        case e: Exception => throw new DrillScanException(s"$place: ${e.getClass.getSimpleName}: ${e.getMessage}", e)
      }
    if (whole) MongoRange.hold(key, got)
    got
  }
  // the URI may hold a password: never in a log line of the task
  override def toString: String = s"MongoRange($db.$coll, [$low, $high))"
}

object MongoRange {
  /** Whole pages fetched in this JVM, by plan and range, kept softly (the memory's to reclaim). */
  private val kept = new java.util.concurrent.ConcurrentHashMap[String, java.lang.ref.SoftReference[Array[Byte]]]()

  private def held(key: String): Array[Byte] = {
    val ref = kept.get(key)
    if (ref == null) null else ref.get
  }

  private def hold(key: String, bytes: Array[Byte]): Unit = {
    kept.values().removeIf(_.get == null)
    kept.put(key, new java.lang.ref.SoftReference(bytes))
  }
}
