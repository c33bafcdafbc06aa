package drillspark.source

import java.util

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.{MetadataBuilder, NullType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.catalog.WorkspacePaths
import drillspark.source.discovery.{Member, Node, SchemaDiscovery}
import drillspark.source.input.{ImplicitColumns, InputFile, InputFiles}

/**
 * The `drill` data source: `spark.read.format("drill").load(paths)` reads nested JSON with no
 * declared schema. The schema is discovered (or provided) when the DataFrame is created,
 * before the query runs; see docs/scan.md.
 */
final class DrillDataSource extends LoadsOnce[DrillJsonTable] with DataSourceRegister {
  override def shortName(): String = "drill"

  override def supportsExternalMetadata(): Boolean = true

  override protected def resolve(options: CaseInsensitiveStringMap, schema: Option[StructType]): DrillJsonTable =
    DrillDataSource.resolve(options, schema)
}

object DrillDataSource {
  /** List the files and settle the schema: the given one, else provided + discovered. */
  def resolve(options: CaseInsensitiveStringMap, userSchema: Option[StructType]): DrillJsonTable = {
    val o = DrillOptions(options)
    if (o.format != "json") throw new IllegalArgumentException(
      s"drill: format '${o.format}' is not supported yet by the drill source (json only)")
    val spark = SparkSession.active
    val conf = spark.sparkContext.hadoopConfiguration
    val (files, root) = InputFiles.list(conf, o.paths)
    confine(conf, o, files, root)
    val depth = if (files.isEmpty) 0 else files.map(_.dirs.size).max
    val dirs = (0 until depth).map(ImplicitColumns.dirName)
    def isDir(name: String) = dirs.exists(_.equalsIgnoreCase(name))
    var opts = o
    val data = userSchema match {
      case Some(s) => StructType(s.fields.filter(f => !isDir(f.name) && o.keeps(f.name)))
      case None =>
        val (found, each) = SchemaDiscovery.discoverFiles(spark, files, o)
        val provided = ProvidedSchema.find(conf, o, root)
        val typed = provided.toSeq.flatMap(_.fieldNames).map(Names.fold).toSet
        // a sample may miss a file's later values: then a null map stays a map (exactSample:
        // the readers refuse a value where the sample saw none, so the sample's answer stands)
        if ((o.sampleRecords < 0 || o.exactSample) && files.size > 1) {
          def byFile(paths: Node => Seq[String]): Map[String, Seq[String]] = each.flatMap { case (f, n) =>
            val untyped = paths(n).filterNot(p => typed(p.takeWhile(_ != Node.PathSep)))
            if (untyped.isEmpty) None else Some(f.path -> untyped)
          }.toMap
          opts = opts.copy(fileNulls = byFile(Node.fileNullPaths(found, _)))
          if (o.exactSample) opts = opts.copy(fileUnseen = byFile(Node.unseenElementPaths(found, _)))
        }
        // conflicts only matter in the discovered columns the provided schema does not type,
        // and that the table keeps (Drill's reader never looks at a column nobody reads)
        SchemaDiscovery.checkConflicts(pruned(found, k => !typed(k) && o.keeps(k)), o)
        val discovered = Node.structOf(found, o)
        val merged = provided.fold(discovered)(ProvidedSchema.overlay(_, discovered))
        if (o.sampleRecords >= 0) {
          // exactSample: the sample's own types, NullType where it saw only nulls
          val own = if (!o.exactSample) Map.empty[String, StructField]
            else Node.structOf(found, o.copy(nullType = NullType)).fields.map(f => Names.fold(f.name) -> f).toMap
          opts = opts.copy(sampledSchema = Some(StructType(merged.fields.map { f =>
            val k = Names.fold(f.name)
            if (typed(k)) f.copy(dataType = NullType, metadata = Provided) else own.getOrElse(k, f)
          })))
        }
        StructType(merged.fields.filter(f => o.keeps(f.name)))
    }
    // a data column named like a partition column (Drill's names are case-insensitive, so
    // `DIR0` too) is kept and the partition column dropped: the file's value is never hidden
    val parts = dirs.filterNot(d => data.fieldNames.exists(_.equalsIgnoreCase(d)))
    new DrillJsonTable(s"drill:${o.paths.mkString(",")}", opts, files, data, parts)
  }

  /**
   * In a confined workspace (option workspaceRoot: the dfs catalog's, drillspark.sql's) every
   * listed file (globs and folders walked, symlinks followed) and the table's `.drill.schema`
   * must really lie below the root, before discovery reads a byte; the readers check each file
   * again where they open it ([[drillspark.source.input.JsonInput.open]]).
   */
  private def confine(conf: org.apache.hadoop.conf.Configuration, o: DrillOptions, files: Seq[InputFile],
      root: Option[Path]): Unit = o.workspaceRoot.foreach { r =>
    val schemaFile = root.map(new Path(_, InputFiles.SchemaFileName)).filter(p => p.getFileSystem(conf).exists(p))
    (files.map(_.path) ++ schemaFile.map(_.toString)).foreach(f =>
      WorkspacePaths.confineFile(o.workspace.getOrElse(r), r, f))
  }

  private val Provided = new MetadataBuilder().putBoolean(DrillOptions.ProvidedKey, true).build()

  /** The discovered root with only the top-level members (folded names) `keep` accepts; the
   * cached root itself is left as it is. */
  private def pruned(found: Node, keep: String => Boolean): Node = {
    if (found.members == null || found.members.keySet.asScala.forall(keep)) return found
    val out = Node.root(found.file)
    out.members = new util.LinkedHashMap[String, Member]()
    found.members.asScala.foreach { case (k, m) => if (keep(k)) out.members.put(k, m) }
    out
  }
}
