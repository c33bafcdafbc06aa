package drillspark.records

import java.lang.reflect.InvocationTargetException

import scala.collection.mutable.ArrayBuffer

import drillspark.source.input.DrillScanException

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

  /**
   * Read db.coll's documents (matching `filter`, Extended JSON, "" for all; keeping
   * `projection`'s fields, "" all; at most `limit`, 0 all) into `batch`, `pageDocs` documents
   * to a page, each page named `place` and its documents' range. Returns the documents read.
   */
  def read(batch: RecordBatch, uri: String, db: String, coll: String, filter: String, projection: String,
      limit: Int, batchSize: Int, pageDocs: Int, place: String): Long = {
    val c = client(uri)
    try {
      val collection = call(database(c, db), "com.mongodb.client.MongoDatabase", "getCollection",
        Seq(classOf[String]), coll)
      val bson = cls("org.bson.conversions.Bson")
      var find = if (filter.isEmpty) call(collection, "com.mongodb.client.MongoCollection", "find", Nil)
        else call(collection, "com.mongodb.client.MongoCollection", "find", Seq(bson), parse(filter))
      val iterable = "com.mongodb.client.FindIterable"
      if (projection.nonEmpty) find = call(find, iterable, "projection", Seq(bson), parse(projection))
      if (limit > 0) find = call(find, iterable, "limit", Seq(classOf[Int]), Int.box(limit))
      if (batchSize > 0) find = call(find, iterable, "batchSize", Seq(classOf[Int]), Int.box(batchSize))
      val mode = cls("org.bson.json.JsonMode").getField("EXTENDED").get(null)
      val builderClass = "org.bson.json.JsonWriterSettings$Builder"
      val builder = call(null, "org.bson.json.JsonWriterSettings", "builder", Nil)
      call(builder, builderClass, "outputMode", Seq(cls("org.bson.json.JsonMode")), mode)
      call(builder, builderClass, "binaryConverter", Seq(cls("org.bson.json.Converter")), binaryConverter(false))
      call(builder, builderClass, "objectIdConverter", Seq(cls("org.bson.json.Converter")), binaryConverter(true))
      val settings = call(builder, builderClass, "build", Nil)
      val settingsClass = cls("org.bson.json.JsonWriterSettings")
      val it = call(find, "com.mongodb.client.MongoIterable", "iterator", Nil).asInstanceOf[java.util.Iterator[AnyRef]]
      var n = 0L
      var first = 1L
      val page = new java.io.ByteArrayOutputStream()
      def flush(): Unit = if (page.size() > 0) {
        batch.add(s"$place, documents $first to $n", page.toByteArray, "")
        page.reset(); first = n + 1
      }
      try while (it.hasNext) {
        val doc = it.next()
        dropNulls(doc)
        val json = call(doc, "org.bson.Document", "toJson", Seq(settingsClass), settings).asInstanceOf[String]
        page.write(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)); page.write('\n')
        n += 1
        if (n - first + 1 >= pageDocs) flush()
      } finally call(it, "com.mongodb.client.MongoCursor", "close", Nil)
      flush()
      n
    } finally close(c)
  }
}
