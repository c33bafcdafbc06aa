package drillspark.source.input

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, StringType}

/**
 * Drill's implicit columns. File columns (filename, filepath, fqn, suffix) are Spark metadata
 * columns: present only when selected. Partition columns dir0, dir1, ... are ordinary columns
 * after the data columns (so `select *` has them), null for files at a shallower level.
 */
object ImplicitColumns {
  val FileColumns: Seq[String] = Seq("filename", "filepath", "fqn", "suffix")
  private val DirRe = "dir(\\d+)".r

  def dirName(i: Int): String = s"dir$i"

  def dirIndex(name: String): Option[Int] = name match {
    case DirRe(n) => Some(n.toInt)
    case _ => None
  }

  final class FileMetadataColumn(val name: String) extends MetadataColumn {
    override def dataType(): DataType = StringType
    override def isNullable: Boolean = false
    override def comment(): String = s"Drill implicit column $name"
  }

  def metadataColumns: Array[MetadataColumn] = FileColumns.map(n => new FileMetadataColumn(n): MetadataColumn).toArray

  /** The value of an implicit column for a file, as Drill computes it. */
  def value(name: String, f: InputFile): String = {
    if (HeldPages.isPage(f.path)) return null // records from no file have no file columns
    val p = new Path(f.path)
    name match {
      case "filename" => p.getName
      case "filepath" => p.getParent.toUri.getPath
      case "fqn" => p.toUri.getPath
      case "suffix" => InputFiles.suffix(p.getName)
      case other => dirIndex(other).flatMap(i => f.dirs.lift(i)).orNull
    }
  }
}
