package drillspark.formats

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.catalog.WorkspacePaths
import drillspark.source.LoadsOnce
import drillspark.source.input.{HeldPages, ImplicitColumns, InputFiles}

/**
 * The Spark data source of one format: `spark.read.format("drill-avro").load(path)`, what
 * drillspark's Python format module calls and what the `dfs` catalog returns for a file of the
 * format. A format's source is a one-line subclass naming its [[FormatReader]]; listing it in
 * META-INF/services/org.apache.spark.sql.sources.DataSourceRegister registers it with Spark
 * and with [[Formats]] (the dfs catalog's lookup by type and extension).
 */
abstract class FormatSource extends LoadsOnce[FormatTable] with DataSourceRegister {
  def reader: FormatReader

  override def shortName(): String = FormatSource.shortName(reader.typeName)

  override def supportsExternalMetadata(): Boolean = true

  override protected def resolve(options: CaseInsensitiveStringMap, schema: Option[StructType]): FormatTable =
    table(options, schema)

  /** The table of `options`' paths: files listed (folders walked, hidden files left out), each
   * checked against a confined workspace, the schema the reader finds (or `userSchema`). */
  def table(options: CaseInsensitiveStringMap, userSchema: Option[StructType]): FormatTable = {
    val o = FormatOptions(reader.typeName, options)
    if (o.paths.isEmpty) throw FormatErrors.badConfig(reader.typeName,
      s"no path given; use spark.read.format(\"${shortName()}\").load(path)")
    val conf = SparkSession.active.sparkContext.hadoopConfiguration
    // a folder's files of the format's extensions alone (the config's, else the reader's);
    // a file named outright is read whatever its name
    val exts = o.extensions.getOrElse(reader.extensions).map("." + _.toLowerCase(Locale.ROOT))
    // a page of records from no file (an HTTP answer: HeldPages) is named outright, no path
    val named = o.paths.filterNot(HeldPages.isPage).map(p => new org.apache.hadoop.fs.Path(p).toUri.getPath).toSet
    val files = InputFiles.list(conf, o.paths)._1.filter { f =>
      HeldPages.isPage(f.path) || exts.isEmpty || named.contains(new org.apache.hadoop.fs.Path(f.path).toUri.getPath) ||
        exts.exists(f.path.toLowerCase(Locale.ROOT).endsWith)
    }
    o.workspaceRoot.foreach(r => files.foreach(f => WorkspacePaths.confineFile(o.workspace.getOrElse(r), r, f.path)))
    // the Python door computes dirN of a local folder itself; of another file system's (s3a://,
    // hdfs://), whose files only this listing sees, it asks for them with `dirColumns`
    val dirs = if ((o.pathColumn && !o.dirColumns) || files.isEmpty) Nil
      else (0 until files.map(_.dirs.size).max).map(ImplicitColumns.dirName)
    val extra = dirs ++ (if (o.pathColumn) Seq(FormatOptions.PathColumn) else Nil)
    val data = userSchema match {
      case Some(s) => StructType(s.fields.filterNot(f => extra.exists(_.equalsIgnoreCase(f.name))))
      case None => reader.schema(files, o, conf)
    }
    // a data column named like a dirN column wins (Drill's names are case-insensitive)
    val kept = extra.filterNot(d => data.fieldNames.exists(_.equalsIgnoreCase(d)))
    new FormatTable(s"${shortName()}:${o.paths.mkString(",")}", reader, o, files, data,
      kept.map(StructField(_, StringType, nullable = true)))
  }
}

object FormatSource {
  /** The Spark short name of a format's source: `drill-` and Drill's type name in lower case. */
  def shortName(typeName: String): String = "drill-" + typeName.toLowerCase(Locale.ROOT)
}

/** Every [[FormatSource]] Spark's service loader finds: the Scala side's only list of formats. */
object Formats {
  lazy val all: Seq[FormatSource] =
    java.util.ServiceLoader.load(classOf[DataSourceRegister], getClass.getClassLoader).asScala
      .collect { case f: FormatSource => f }.toSeq

  def byType(typeName: String): Option[FormatSource] =
    all.find(_.reader.typeName.equalsIgnoreCase(typeName))

  def byExtension(ext: String): Option[FormatSource] =
    all.find(_.reader.extensions.exists(_.equalsIgnoreCase(ext)))

  def typeNames: Seq[String] = all.map(_.reader.typeName)
}
