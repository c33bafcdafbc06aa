package drillspark.source.discovery

import com.fasterxml.jackson.core.{JsonParser, JsonProcessingException, JsonToken}
import org.apache.hadoop.conf.Configuration
import org.slf4j.LoggerFactory
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.drillspark.compat.ScanVectors

import drillspark.functions.DrillConf
import drillspark.source.discovery.Node._
import drillspark.source.{DrillOptions, ScannerMode, TypeConflict}
import drillspark.source.input.{DrillScanException, FileSplit, InputFile, InputFiles, JsonInput, RecordStream}

/**
 * Late schema, discovered before the query runs: one streaming token pass per file (Jackson
 * tokens only, no value objects), merged across files in first-seen order with Drill's rules.
 */
object SchemaDiscovery {
  // warnings go to Spark's log set-up through slf4j (Spark's own Logging trait is internal)
  private val log = LoggerFactory.getLogger(getClass)


  /** Extended JSON (Mongo) wrapper names and the kinds they stand for. */
  val ExtendedKinds: Map[String, Int] = Map(
    "$numberLong" -> BIGINT, "$numberInt" -> INT, "$numberDouble" -> DOUBLE,
    "$numberDecimal" -> DECIMAL, "$date" -> TIMESTAMP, "$dateDay" -> DATE,
    "$binary" -> BINARY, "$oid" -> STRING)

  /** A file as listed: path, length, modification time and `stamp` (change time and inode,
   * which a rewrite always changes: [[InputFiles.stampOf]]), and the options. */
  private final case class CacheKey(path: String, length: Long, mtime: Long, stamp: String, options: String)
  /** Most files kept in the schema cache (least recently used ones leave first). */
  val MaxCachedFiles = 20000
  private def lru[V](): java.util.Map[CacheKey, V] = java.util.Collections.synchronizedMap(
    new java.util.LinkedHashMap[CacheKey, V](256, 0.75f, true) {
      override def removeEldestEntry(e: java.util.Map.Entry[CacheKey, V]): Boolean = size() > MaxCachedFiles
    })
  /** Each file's discovered schema. */
  private val cache = lru[Node]()
  /** Each file's record count, when discovery read every record of it or a pushed count(*)
   * counted it ([[drillspark.source.CountScan]]), so that count(*) need not read it again. The
   * key holds only the options that change whether a file reads (DrillOptions.countKey): how
   * values are typed does not change how many records there are. */
  private val counts = lru[java.lang.Long]()

  /** Spark conf choosing the discovery scanner, a diagnostic: `fast` (default: the byte
   * scanner, falling back to the Jackson pass for a split it cannot handle exactly), `jackson`
   * (the Jackson token pass only) or `bytes` (the byte scanner only: a split it gives up on
   * fails, to test which inputs it handles). */
  val ScannerConf: String = DrillConf.DiscoveryScanner
  import ScannerMode.{BytesOnly, Fast, Jackson}

  private def keyOf(f: InputFile, o: DrillOptions, scanner: Int): CacheKey =
    CacheKey(f.path, f.length, f.mtime, f.stamp, s"${o.discoveryKey},$scanner")

  private def countKey(f: InputFile, o: DrillOptions): CacheKey = CacheKey(f.path, f.length, f.mtime, f.stamp, o.countKey)

  /** The record count of a file as listed (see `counts`), if known. */
  def cachedRecords(f: InputFile, o: DrillOptions): Option[Long] = Option(counts.get(countKey(f, o))).map(_.longValue)

  /** Every record of `f` was counted, reading it with options `o`. */
  def rememberRecords(f: InputFile, o: DrillOptions, records: Long): Unit = counts.put(countKey(f, o), records)

  /** Discovery reads every record of a file (so its count is the file's record count). */
  def complete(o: DrillOptions): Boolean =
    o.sampleRecords < 0 && !o.skipInvalidRecords && !o.replaceInvalidUtf8

  /** The merged schema of all files, from the cache where (path, length, mtime, stamp) still match. */
  def discover(spark: SparkSession, files: Seq[InputFile], o: DrillOptions): Node =
    discoverFiles(spark, files, o)._1

  /** [[discover]], with each file's own schema (shared with the cache: read only). */
  def discoverFiles(spark: SparkSession, files: Seq[InputFile], o: DrillOptions): (Node, Seq[(InputFile, Node)]) = {
    val mode = ScannerMode(spark, ScannerConf)
    val known = new java.util.HashMap[InputFile, Node]()
    files.foreach { f => val e = cache.get(keyOf(f, o, mode)); if (e != null) known.put(f, e) }
    val missingFiles = files.filterNot(known.containsKey).distinct // a path given twice is discovered once
    if (missingFiles.nonEmpty) {
      // large JSON-lines files are discovered split by split, like they are read
      val maxSplit = InputFiles.maxSplitBytes(spark, files, o)
      val cut = InputFiles.cuttable(spark.sparkContext.hadoopConfiguration, o)
      val missing = InputFiles.splits(missingFiles, maxSplit, cut)
      val found: Seq[(FileSplit, Found)] =
        if (missing.size >= o.discoveryParallelFiles && o.discoveryParallelFiles > 0) {
          // many files: discover them in a Spark job instead of one by one on the driver
          val conf = ScanVectors.hadoopConf(spark)
          val slices = math.max(1, math.min(missing.size, spark.sparkContext.defaultParallelism * 4))
          spark.sparkContext.setJobDescription(s"drill: discovering the schema of ${missing.size} files")
          try spark.sparkContext.parallelize(missing, slices)
            .map(f => (f, discoverSplit(conf.value, f, o, mode))).collect().toSeq
          finally spark.sparkContext.setJobDescription(null)
        } else if (missing.size > 1) {
          // a few files: one thread per core on the driver, cheaper than scheduling a job
          val conf = spark.sparkContext.hadoopConfiguration
          val threads = math.max(1, math.min(missing.size, spark.sparkContext.defaultParallelism))
          val pool = java.util.concurrent.Executors.newFixedThreadPool(threads)
          try {
            val futures = missing.map(f => pool.submit(new java.util.concurrent.Callable[(FileSplit, Found)] {
              override def call(): (FileSplit, Found) = (f, discoverSplit(conf, f, o, mode))
            }))
            futures.map { fu =>
              try fu.get() catch { case e: java.util.concurrent.ExecutionException => throw e.getCause }
            }
          } finally pool.shutdown()
        } else {
          missing.map(f => (f, discoverSplit(spark.sparkContext.hadoopConfiguration, f, o, mode)))
        }
      // splits of one file merge in file order into that file's schema
      found.groupBy(_._1.file).foreach { case (f, parts) =>
        val sorted = parts.sortBy(_._1.start)
        val node = sorted.head._2.node
        sorted.tail.foreach(p => mergeInto(node, p._2.node, sameFile = true))
        // every record read (no sample, or a sample the file ended within): a count(*) need
        // not read the file again, nor a full discovery (e.g. after a misfit)
        if (sorted.forall(_._2.whole) && complete(o.withoutSample)) {
          rememberRecords(f, o, sorted.map(_._2.records).sum)
          if (o.sampleRecords >= 0) cache.put(keyOf(f, o.withoutSample, mode), node)
        }
        cache.put(keyOf(f, o, mode), node)
        known.put(f, node)
      }
    }
    val root = Node.root(files.headOption.map(_.path).getOrElse(""))
    files.foreach(f => mergeInto(root, known.get(f).copy()))
    (root, files.map(f => (f, known.get(f))))
  }

  /** The schema of one split and the records it holds; `whole` when discovery read all of them
   * (no sample, or a sample the split ended within). */
  final case class Found(node: Node, records: Long, whole: Boolean)

  private def readAll(o: DrillOptions, read: Long): Boolean = o.sampleRecords < 0 || read < o.sampleRecords

  def discoverSplit(conf: Configuration, split: FileSplit, o: DrillOptions, scanner: Int = Fast): Found = {
    val file = split.file
    if (file.length == 0) return Found(Node.root(file.path), 0L, whole = true)
    if (scanner != Jackson) {
      val b = new ByteDiscovery(conf, split, o)
      if (b.run()) return Found(b.root, b.records, readAll(o, b.records))
      if (scanner == BytesOnly) throw new DrillScanException(
        s"drill: ${file.path}: the byte scanner gave up near byte ${b.gaveUpAt} (split ${split.start} to " +
          s"${split.end}; $ScannerConf=bytes; the default, fast, falls back to the Jackson pass)")
    }
    val rs = new RecordStream(conf, file.path, split.start, split.end, o, JsonInput.factory(o))
    try { val pass = new FilePass(rs, o); val n = pass.run(); Found(n, rs.records, readAll(o, pass.read)) }
    finally rs.close()
  }

  private final class FilePass(rs: RecordStream, o: DrillOptions) {
    private val file = rs.file
    private val root = Node.root(file)

    /** Records taken (bad ones included). */
    var read = 0L

    def run(): Node = {
      while ((o.sampleRecords < 0 || read < o.sampleRecords) && rs.next()) {
        try members(rs.parser, root, rs.parser.nextToken(), 1)
        catch {
          case e: JsonProcessingException => rs.onBadRecord(e)
        }
        read += 1
      }
      root
    }

    private def scalarKind(t: JsonToken): Int = Node.scalarKind(t match {
      case JsonToken.VALUE_TRUE | JsonToken.VALUE_FALSE => BOOL
      case JsonToken.VALUE_NUMBER_INT => BIGINT
      case JsonToken.VALUE_NUMBER_FLOAT => DOUBLE
      case _ => STRING
    }, o)

    private def here(p: JsonParser): String = s"$file line ${p.currentLocation().getLineNr}"

    private def conflict(p: JsonParser, n: Node, newKind: String): Unit = {
      if (n.kind != CONFLICT) {
        n.conflict = Conflict(n.path, kindName(n.kind), n.file, newKind, here(p))
        n.kind = CONFLICT; n.members = null; n.elem = null
      }
    }

    /** Members of an object (at `depth`); `t` is the token after START_OBJECT. */
    private def members(p: JsonParser, n: Node, first: JsonToken, depth: Int): Unit = {
      var t = first
      while (t == JsonToken.FIELD_NAME) {
        val m = n.member(p.currentName(), file)
        value(p, m.node, p.nextToken(), depth)
        t = p.nextToken()
      }
    }

    /** One value at `depth` (a map or array here opens level depth + 1): past maxSchemaDepth
     * the node becomes JSON text and the parser skips the value (without recursion), so the
     * recursion here stays within maxSchemaDepth however deep the file nests. */
    private def value(p: JsonParser, n: Node, t: JsonToken, depth: Int): Unit = t match {
      case JsonToken.VALUE_NULL => ()
      case JsonToken.START_OBJECT | JsonToken.START_ARRAY if depth >= o.maxSchemaDepth || n.kind == DEEP =>
        n.markDeep(here(p))
        p.skipChildren()
      case JsonToken.START_OBJECT =>
        val t1 = p.nextToken()
        if (o.extendedTypes && t1 == JsonToken.FIELD_NAME && ExtendedKinds.contains(p.currentName())) {
          val k = ExtendedKinds(p.currentName())
          p.nextToken(); p.skipChildren()
          while (p.nextToken() != JsonToken.END_OBJECT) { p.nextToken(); p.skipChildren() }
          n.meetScalarKind(Node.scalarKind(k, o, extended = true), file)(conflict(p, n, _))
        } else n.kind match {
          case NULL | STRUCT => n.kind = STRUCT; members(p, n, t1, depth + 1)
          case CONFLICT => skipRest(p)
          case _ => conflict(p, n, "STRUCT"); skipRest(p)
        }
      case JsonToken.START_ARRAY => n.kind match {
        case NULL | ARRAY =>
          n.kind = ARRAY
          var e = p.nextToken()
          while (e != JsonToken.END_ARRAY) {
            if (n.elem == null) n.elem = new Node(n.path + "[]", NULL, file)
            value(p, n.elem, e, depth + 1)
            e = p.nextToken()
          }
        case _ =>
          conflict(p, n, "ARRAY"); p.skipChildren()
      }
      case JsonToken.VALUE_STRING if n.kind == STRUCT =>
        () // a string where the file had a map reads as an empty map (Drill, DRILL-7821)
      case _ => n.meetScalarKind(scalarKind(t), file)(conflict(p, n, _))
    }

    /** Skip to the END_OBJECT of the object whose first member name was already read. */
    private def skipRest(p: JsonParser): Unit = {
      var t = p.currentToken()
      while (t != JsonToken.END_OBJECT) {
        if (t == JsonToken.FIELD_NAME) { p.nextToken(); p.skipChildren() }
        t = p.nextToken()
      }
    }
  }

  /** Fail, warn or pass according to typeConflict; every conflict is reported. */
  def checkConflicts(root: Node, o: DrillOptions): Unit = {
    val cs = root.conflicts
    if (cs.isEmpty) return
    if (o.typeConflict == TypeConflict.Error) throw new IllegalArgumentException(
      s"drill: type conflict (option typeConflict=error): ${cs.head.describe}" +
        (if (cs.size > 1) s" (and ${cs.size - 1} more)" else ""))
    val as = if (o.typeConflict == TypeConflict.Variant) "VARIANT" else "JSON text"
    cs.foreach(c => log.warn(s"drill: type conflict, read as $as: ${c.describe}"))
  }
}
