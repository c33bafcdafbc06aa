package drillspark.source.input

import java.nio.file.{Files, Paths}
import java.nio.file.attribute.{BasicFileAttributes, FileTime}
import java.util.Locale
import java.util.concurrent.TimeUnit

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.spark.network.util.JavaUtils

import drillspark.source.DrillOptions

/** One data file of a table, with its partition directories below the table root (dir0, ...).
 * `stamp`: what a user cannot set back (the change time and inode of a local file, see
 * [[InputFiles.stampOf]]) or an object's etag (S3), so that the schema and count cache sees every rewrite. */
final case class InputFile(path: String, length: Long, mtime: Long, dirs: Seq[String], stamp: String = "",
    content: Array[Byte] = null, source: PageSource = null) extends Serializable {
  /** A page of records from no file ([[HeldPages]]) arrives with its bytes, or with the source
   * that fetches them: held again here. */
  private def readObject(in: java.io.ObjectInputStream): Unit = {
    in.defaultReadObject()
    if (content != null) HeldPages.hold(path, content)
    if (source != null) HeldPages.holdSource(this)
  }
}

/** Where a page of records fetched when read comes from ([[HeldPages.fetchedPage]]): shipped to
 * the task that reads the page, which calls `fetch` for its bytes (records one per line). */
trait PageSource extends Serializable {
  def fetch(): Array[Byte]
}

/** A byte range of one file read by one reader; `end` = -1 reads to the end. */
final case class FileSplit(file: InputFile, start: Long, end: Long) extends Serializable

/** A table's files: paths, directories (recursive) and globs, hidden files left out. */
object InputFiles {
  val SchemaFileName = ".drill.schema"

  private def hidden(name: String): Boolean = name.startsWith(".") || name.startsWith("_")

  private def hasGlob(s: String): Boolean = s.exists(c => c == '*' || c == '?' || c == '[' || c == '{')

  /** True when `path` names an existing file or folder, or is a glob matching a visible one. */
  def exists(conf: Configuration, path: String): Boolean = {
    val p = new Path(path)
    val fs = p.getFileSystem(conf)
    if (hasGlob(path)) Option(fs.globStatus(p)).exists(_.exists(s => !hidden(s.getPath.getName)))
    else fs.exists(p)
  }

  /**
   * The files of `paths` and the table root folder (the single directory given), if any.
   * A file named twice (or met in a folder and named too) is read twice, as Spark's own file
   * sources do.
   */
  def list(conf: Configuration, paths: Seq[String]): (Seq[InputFile], Option[Path]) = {
    if (paths.isEmpty) throw new IllegalArgumentException(
      "drill: no path given; use spark.read.format(\"drill\").load(path)")
    val out = ArrayBuffer[InputFile]()
    var root: Option[Path] = None
    paths.foreach { ps => if (HeldPages.isPage(ps)) out += HeldPages.inputFile(ps) else {
      val p = new Path(ps)
      val fs = p.getFileSystem(conf)
      val matched: Seq[FileStatus] =
        if (hasGlob(ps)) Option(fs.globStatus(p)).map(_.toSeq).getOrElse(Nil).filterNot(s => hidden(s.getPath.getName))
        else if (fs.exists(p)) Seq(fs.getFileStatus(p))
        else throw new IllegalArgumentException(s"drill: path does not exist: $ps")
      if (matched.isEmpty) throw new IllegalArgumentException(s"drill: no file matches the glob $ps")
      matched.sortBy(_.getPath.toString).foreach { st =>
        if (st.isDirectory) {
          if (paths.size == 1 && !hasGlob(ps)) root = Some(st.getPath)
          walk(fs, st.getPath, Vector.empty, out)
        } else out += fileOf(fs, st, Nil)
      }
    }}
    (out.toSeq, root)
  }

  private def walk(fs: FileSystem, dir: Path, dirs: Vector[String], out: ArrayBuffer[InputFile],
      ancestors: Set[String] = Set.empty): Unit = {
    // a symlinked folder that leads back to one of its ancestors would be walked until the
    // OS refuses the path, each file read many times over
    val real = realDir(fs, dir)
    if (real.exists(ancestors.contains)) throw new IllegalArgumentException(
      s"drill: folder $dir is a symbolic link back to its ancestor ${real.get} (a loop); remove the link " +
        "or name the files with a path or glob that avoids it")
    val seen = ancestors ++ real
    val children = fs.listStatus(dir).filterNot(s => hidden(s.getPath.getName)).sortBy(_.getPath.getName)
    children.foreach { st =>
      if (st.isDirectory) walk(fs, st.getPath, dirs :+ st.getPath.getName, out, seen)
      else out += fileOf(fs, st, dirs)
    }
  }

  private def fileOf(fs: FileSystem, st: FileStatus, dirs: Seq[String]): InputFile = {
    // an object store's listing carries each object's etag: no request more
    val stamp = if (fs.getScheme == "file") stampOf(fs, st.getPath) else etagOf(st)
    InputFile(st.getPath.toString, st.getLen, st.getModificationTime, dirs, stamp)
  }

  /** An object's version as its store names it (S3's etag), "" where the file system has none:
   * a rewrite of the same length within the same second still changes it. */
  private def etagOf(st: FileStatus): String = st match {
    case e: org.apache.hadoop.fs.EtagSource => Option(e.getEtag).filter(_.nonEmpty).map("etag:" + _).getOrElse("")
    case _ => ""
  }

  /**
   * A local file's change time (nanoseconds) and device and inode: the kernel sets the change
   * time on every write, rename and `utime`, and nobody but the clock's owner can set it back,
   * so a same-length rewrite whose modification time was restored still gets a new stamp.
   * One `stat` (no read of the file). On other file systems the object's etag where the store
   * has one (S3), else "" (length and mtime alone).
   */
  def stampOf(fs: FileSystem, p: Path): String =
    if (fs.getScheme != "file") {
      try etagOf(fs.getFileStatus(p)) catch { case _: java.io.IOException => "" }
    } else try {
      val a = Files.readAttributes(Paths.get(p.toUri.getPath), "unix:ctime,dev,ino")
      val ctime = a.get("ctime").asInstanceOf[FileTime].to(TimeUnit.NANOSECONDS)
      s"$ctime:${a.get("dev")}:${a.get("ino")}"
    } catch {
      case _: UnsupportedOperationException | _: IllegalArgumentException => // no unix view
        try Option(Files.readAttributes(Paths.get(p.toUri.getPath), classOf[BasicFileAttributes]).fileKey())
          .map(_.toString).getOrElse("")
        catch { case _: java.io.IOException => "" }
      case _: java.io.IOException => ""
    }

  /** The file's stamp now ([[stampOf]]), "" when it cannot be read. */
  def stampNow(conf: Configuration, f: InputFile): String = {
    if (HeldPages.isPage(f.path)) return f.stamp
    val p = new Path(f.path)
    stampOf(p.getFileSystem(conf), p)
  }

  /** The real location of a local folder (symlinks followed); None on other file systems. */
  private def realDir(fs: FileSystem, dir: Path): Option[String] =
    if (fs.getScheme != "file") None
    else Some(java.nio.file.Paths.get(dir.toUri.getPath).toRealPath().toString)

  def isCompressed(f: InputFile): Boolean = JsonInput.compression(f.path).isDefined

  /** True when the head of the file looks like JSON lines (each line one object), so that it
   * can be cut at line boundaries; pretty-printed or concatenated files are read whole. */
  def looksLineDelimited(conf: Configuration, f: InputFile, o: DrillOptions): Boolean = {
    val in = JsonInput.open(conf, f.path, 0L, o)
    // UTF-16 or UTF-32 text is read as its UTF-8 text: its byte positions are not the file's
    if (in.asInstanceOf[ReadGuard].transcoded) { in.close(); return false }
    try {
      val buf = new Array[Byte](1 << 16)
      var n = 0
      var r = 0
      while (n < buf.length && { r = in.read(buf, n, buf.length - n); r > 0 }) n += r
      val text = new String(buf, 0, n, java.nio.charset.StandardCharsets.UTF_8)
      val lines = text.split('\n').dropRight(1).map(_.trim).filter(_.nonEmpty)
      // NUL bytes: UTF-16 or UTF-32 text, whose newlines are not line boundaries in bytes
      !text.contains('\u0000') && lines.nonEmpty && lines.forall(l => l.startsWith("{") && l.endsWith("}"))
    } finally in.close()
  }

  /**
   * Splits packed into input partitions the way Spark's file sources pack files
   * (`FilePartition.getFilePartitions`): a partition takes splits in file order while its
   * bytes, each split counting `openCost` more than its length, stay within `maxSplit`; the
   * split that would pass it starts the next partition. Small files share a partition (10,000
   * tiny files are no longer 10,000 tasks). A partition still reads each of its splits from the
   * split's start, so a task that Spark runs again reads the same records again.
   */
  def pack(splits: Seq[FileSplit], maxSplit: Long, openCost: Long): Seq[Array[FileSplit]] = {
    val groups = ArrayBuffer[Array[FileSplit]]()
    val cur = ArrayBuffer[FileSplit]()
    var size = 0L
    splits.foreach { s =>
      val len = if (s.end < 0) s.file.length else s.end - s.start
      if (cur.nonEmpty && size + len > maxSplit) { groups += cur.toArray; cur.clear(); size = 0 }
      cur += s
      size += len + openCost
    }
    if (cur.nonEmpty) groups += cur.toArray
    groups.toSeq
  }

  /** Whether `f` may be cut into byte ranges: uncompressed JSON lines, splitting not off. */
  def canSplit(conf: Configuration, f: InputFile, o: DrillOptions): Boolean =
    !HeldPages.isFetched(f) && // cut by its source already; reading its head would fetch it here
      o.splitFiles && !o.replaceInvalidUtf8 && !isCompressed(f) && looksLineDelimited(conf, f, o)

  /** [[canSplit]] asked at most once per file: it reads the file's head, and [[partitions]]
   *  asks again in [[even]] for the files a cut falls in. */
  def cuttable(conf: Configuration, o: DrillOptions): InputFile => Boolean = {
    val known = scala.collection.mutable.HashMap[InputFile, Boolean]()
    f => known.getOrElseUpdate(f, canSplit(conf, f, o))
  }

  /** Line-aligned splits of large files that `cut` says may be cut; other files whole. */
  def splits(files: Seq[InputFile], maxSplit: Long, cut: InputFile => Boolean): Seq[FileSplit] =
    files.flatMap { f =>
      if (f.length <= maxSplit || !cut(f)) Seq(FileSplit(f, 0L, -1L))
      else (0L until f.length by maxSplit).map(s => FileSplit(f, s, math.min(f.length, s + maxSplit)))
    }

  /** Spark's cost of opening a file, in bytes (spark.sql.files.openCostInBytes, 4 MiB). */
  def openCost(spark: org.apache.spark.sql.SparkSession): Long =
    JavaUtils.byteStringAsBytes(spark.conf.get("spark.sql.files.openCostInBytes", "4m"))

  /**
   * Split size: option splitBytes, else Spark's rule (`FilePartition.maxSplitBytes`):
   * spark.sql.files.maxPartitionBytes, lowered so that every core (or
   * spark.sql.files.minPartitionNum partitions) gets work, never below the open cost; each
   * file counts its open cost on top of its length.
   */
  def maxSplitBytes(spark: org.apache.spark.sql.SparkSession, files: Seq[InputFile], o: DrillOptions): Long =
    if (o.splitBytes > 0) o.splitBytes else sparkSplitBytes(spark, files)

  /** Spark's split size for `files` (`FilePartition.maxSplitBytes`), also the format sources'. */
  def sparkSplitBytes(spark: org.apache.spark.sql.SparkSession, files: Seq[InputFile]): Long = {
    val maxPartition = JavaUtils.byteStringAsBytes(spark.conf.get("spark.sql.files.maxPartitionBytes", "128m"))
    val cost = openCost(spark)
    val total = files.map(_.length + cost).sum
    math.min(maxPartition, math.max(cost, total / math.max(1L, minPartitions(spark))))
  }

  /** The partitions Spark's rule aims at: spark.sql.files.minPartitionNum, else its cores. */
  private def minPartitions(spark: org.apache.spark.sql.SparkSession): Long =
    spark.conf.getOption("spark.sql.files.minPartitionNum").map(_.trim.toLong)
      .getOrElse(spark.sparkContext.defaultParallelism.toLong)

  /** Below this many partitions per core an uneven count is evened out ([[even]]). */
  val EvenBelowPerCore = 4

  /**
   * The input partitions of `files`: split ([[splits]]) and packed ([[pack]]) by Spark's rules,
   * then, when that leaves few partitions and not a multiple of the cores, cut again into the
   * next multiple ([[even]]). Spark's rule gives 3 partitions for 300 MB of 37 MB files on 2
   * cores (3 files each up to 128 MiB): the third runs alone after the other two, so the scan
   * takes 2 rounds where 1.5 would do. A partition size asked for (option splitBytes,
   * spark.sql.files.minPartitionNum) is kept as given.
   */
  def partitions(spark: org.apache.spark.sql.SparkSession, files: Seq[InputFile], o: DrillOptions): Seq[Array[FileSplit]] = {
    val cut = cuttable(spark.sparkContext.hadoopConfiguration, o)
    val maxSplit = maxSplitBytes(spark, files, o)
    val cost = openCost(spark)
    val packed = pack(splits(files, maxSplit, cut), maxSplit, cost)
    val cores = spark.sparkContext.defaultParallelism
    val asked = o.splitBytes > 0 || spark.conf.getOption("spark.sql.files.minPartitionNum").isDefined
    val target = (packed.size / cores + 1) * cores
    // never pieces below the open cost, as Spark's rule: small inputs keep one partition a core
    val small = files.map(_.length).sum / target < cost
    if (asked || small || cores <= 1 || packed.size % cores == 0 || packed.size >= EvenBelowPerCore * cores) packed
    else even(files, target, cut)
  }

  /**
   * `files` cut into `target` runs of equal bytes, in file order: the files laid end to end are
   * cut at every target-th of their bytes; a file that a cut falls in is split there when `cut`
   * says it can be split at lines ([[canSplit]]), else it goes whole to the run its middle byte
   * is in.
   */
  def even(files: Seq[InputFile], target: Int, cut: InputFile => Boolean): Seq[Array[FileSplit]] = {
    val total = math.max(1L, files.map(_.length).sum)
    def runOf(byte: Long): Int = math.min(target - 1L, (BigInt(byte) * target / total).toLong).toInt
    def runStart(run: Int): Long = ((BigInt(total) * run + target - 1) / target).toLong
    val runs = Array.fill(target)(ArrayBuffer[FileSplit]())
    var at = 0L
    files.foreach { f =>
      val (first, last) = (runOf(at), runOf(at + math.max(1L, f.length) - 1))
      if (first == last || !cut(f)) runs(runOf(at + f.length / 2)) += FileSplit(f, 0L, -1L)
      else {
        var start = 0L
        (first to last).foreach { r =>
          val end = if (r == last) f.length else math.min(f.length, runStart(r + 1) - at)
          if (end > start) { runs(r) += FileSplit(f, start, end); start = end }
        }
      }
      at += f.length
    }
    runs.filter(_.nonEmpty).map(_.toArray).toSeq
  }

  def suffix(name: String): String = {
    val i = name.lastIndexOf('.')
    if (i < 0) "" else name.substring(i + 1)
  }

  /** The format named by a path's extension, past a compression suffix (`x.json.zstd`: json). */
  def formatOf(path: String): String = {
    val name = path.substring(path.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT)
    val bare = if (JsonInput.compression(name).isDefined) name.substring(0, name.lastIndexOf('.')) else name
    suffix(bare)
  }
}
