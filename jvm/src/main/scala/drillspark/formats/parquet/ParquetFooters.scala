package drillspark.formats.parquet

import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.Using
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.{MessageType, PrimitiveType, Type}
import org.apache.parquet.schema.LogicalTypeAnnotation.{DateLogicalTypeAnnotation, TimeLogicalTypeAnnotation, TimeUnit}
import org.apache.parquet.schema.Type.Repetition
import org.apache.spark.sql.drillspark.compat.{ImplicitValues, ParquetCatalogTable, ParquetLayout, ParquetScans}
import org.apache.spark.sql.types.{ArrayType, DataType, MetadataBuilder, StructType, TimeType}

import drillspark.formats.FormatErrors
import drillspark.functions.DrillTypeOf
import drillspark.source.input.{ImplicitColumns, InputFile}

/**
 * What Drill reads differently from Spark in a Parquet file's footer, for both doors (the
 * `dfs` catalog, and drillspark.sql through [[ParquetSource]], `drill-parquet`):
 *  - a TIME(MILLIS/MICROS/NANOS) column, which Spark's schema converter refuses, is read as
 *    its integer and turned into Drill's TIME (Spark `TIME(3)`);
 *  - DATE values of files Drill wrote before 1.9 (DRILL-4203) are shifted back when past the
 *    year 5000 (Drill's `autoCorrectCorruptDates`, default true);
 *  - a column REQUIRED in every file is NOT NULL for drill_modeof (`drill.required` metadata).
 * Only top-level columns, as the Python reader.
 */
final case class ParquetFooter(path: String, schema: StructType, times: Map[String, String],
    dates: Set[String], corruptDates: Boolean, required: Set[String])

object ParquetFooters {
  private val CorruptDateThreshold = ParquetScans.CorruptDateThreshold

  private def version(text: String): Seq[Int] = "\\d+".r.findAllIn(text).take(3).map(_.toInt).toSeq

  /** Whether a file may hold Drill's pre-1.9 shifted dates (by its writer's metadata). */
  def maybeCorruptDates(createdBy: String, kv: Map[String, String]): Boolean = kv.get("drill.version") match {
    case Some(v) =>
      val writer = scala.util.Try(kv.getOrElse("drill-writer.version", "1").trim.toInt).getOrElse(1)
      val fixed = kv.get("is.date.correct").exists(_.equalsIgnoreCase("true")) || writer >= 2
      !fixed && Ordering.Implicits.seqOrdering[Seq, Int].lt(version(v), Seq(1, 9))
    case None =>
      val c = Option(createdBy).getOrElse("").trim
      c.isEmpty || c == "parquet-mr" || (c.contains("parquet-mr") && c.contains("drill"))
  }

  private def unit(t: TimeLogicalTypeAnnotation): String = t.getUnit match {
    case TimeUnit.MILLIS => "ms"
    case TimeUnit.MICROS => "us"
    case _ => "ns"
  }

  /** One file's footer as Drill reads it. */
  def read(path: String, conf: Configuration, autoCorrectDates: Boolean = true): ParquetFooter = {
    val meta = try Using.resource(ParquetFileReader.open(HadoopInputFile.fromPath(new Path(path), conf)))(_.getFooter)
      catch { case NonFatal(e) => throw FormatErrors.badData("parquet", path, "footer", FormatErrors.describe(e)) }
    val file = meta.getFileMetaData
    val message = file.getSchema
    var times = Map.empty[String, String]
    var dates = Set.empty[String]
    var required = Set.empty[String]
    // TIME columns lose their annotation, so Spark's converter reads them as their integers
    val fields: Seq[Type] = message.getFields.asScala.toSeq.map { f =>
      val name = f.getName.toLowerCase(Locale.ROOT)
      if (f.isPrimitive && f.isRepetition(Repetition.REQUIRED)) required += name
      f.getLogicalTypeAnnotation match {
        case t: TimeLogicalTypeAnnotation if f.isPrimitive && !f.isRepetition(Repetition.REPEATED) =>
          times += name -> unit(t)
          new PrimitiveType(f.getRepetition, f.asPrimitiveType.getPrimitiveTypeName, f.getName)
        case _: DateLogicalTypeAnnotation if f.isPrimitive && !f.isRepetition(Repetition.REPEATED) =>
          dates += name
          f
        case _ => f
      }
    }
    val schema =
      try ParquetScans.sparkSchema(new MessageType(message.getName, fields.asJava))
      catch { case NonFatal(e) => throw FormatErrors.badData("parquet", path, "schema", FormatErrors.describe(e)) }
    // a writer that may have shifted dates, but whose statistics show no date past the year
    // 5000 in any row group, has nothing to correct (and its date filters can be pushed)
    def beyond(column: String): Boolean = meta.getBlocks.asScala.exists { block =>
      block.getColumns.asScala.find(_.getPath.toDotString.equalsIgnoreCase(column)).forall { c =>
        val st: org.apache.parquet.column.statistics.Statistics[_] = c.getStatistics
        // no statistics (old writers): it may hold them
        st == null || st.isEmpty || (st.hasNonNullValue &&
          (st.genericGetMax match { case d: Integer => d > CorruptDateThreshold; case _ => true }))
      }
    }
    val corrupt = autoCorrectDates && maybeCorruptDates(file.getCreatedBy, file.getKeyValueMetaData.asScala.toMap) &&
      message.getFields.asScala.exists(f => dates(f.getName.toLowerCase(Locale.ROOT)) && beyond(f.getName))
    ParquetFooter(path, schema, times, dates, corrupt, required)
  }

  /** Files that type one top-level column differently (DECIMAL in one, DOUBLE in another). */
  private final class Disagree(message: String) extends RuntimeException(message)

  /** The parts of a table of Parquet `files` (each footer read on the driver, as Drill plans):
   * one part, the files' columns merged as Spark merges them (by name, case-insensitive, first
   * spelling kept, structs merged); or, when files type a column differently, one part per
   * schema, each read with its own types, with the common type of each column (integers widen to BIGINT, other numbers to DOUBLE, anything else
   * to VARCHAR). */
  def parts(files: Seq[String], conf: Configuration,
      autoCorrectDates: Boolean = true): (Seq[(Seq[String], ParquetLayout)], StructType) = {
    val feet = files.map(read(_, conf, autoCorrectDates))
    try {
      val one = layout(feet)
      (Seq((files, one)), one.drill)
    } catch {
      case _: Disagree =>
        val groups = feet.groupBy(f => f.schema.fields.map(x => (x.name.toLowerCase(Locale.ROOT), x.dataType)).toSeq)
          .values.toSeq.sortBy(g => feet.indexOf(g.head))
        val laid = groups.map(g => (g.map(_.path), layout(g)))
        val common = scala.collection.mutable.LinkedHashMap[String, org.apache.spark.sql.types.StructField]()
        for ((_, l) <- laid; f <- l.drill.fields) {
          val key = f.name.toLowerCase(Locale.ROOT)
          common(key) = common.get(key).map(c => c.copy(dataType = widen(c.dataType, f.dataType),
            metadata = if (c.metadata == f.metadata) c.metadata else org.apache.spark.sql.types.Metadata.empty))
            .getOrElse(f)
        }
        (laid, StructType(common.values.map(_.copy(nullable = true)).toSeq))
    }
  }

  private def widen(a: DataType, b: DataType): DataType = {
    import org.apache.spark.sql.types._
    def integral(t: DataType) = t match { case ByteType | ShortType | IntegerType | LongType => true; case _ => false }
    def numeric(t: DataType) = integral(t) || (t match { case FloatType | DoubleType | _: DecimalType => true; case _ => false })
    if (a == b) a
    else if (integral(a) && integral(b)) LongType
    else if (numeric(a) && numeric(b)) DoubleType
    else StringType
  }

  private def layout(feet: Seq[ParquetFooter]): ParquetLayout = {
    val physical = feet.map(f => (f.path, f.schema)).reduceOption { (a, b) =>
      (a._1, merge(a._2, b._2, a._1, b._1, ""))
    }.map(_._2).getOrElse(new StructType())
    val times = feet.flatMap(_.times).toMap
    val dates = feet.flatMap(_.dates).toSet
    // Drill's autoCorrectCorruptDates (footers read without it mark no file corrupt)
    val corrupt = feet.filter(f => f.corruptDates && f.dates.nonEmpty).map(f => new Path(f.path).toUri.getPath).toSet
    val required = if (feet.isEmpty) Set.empty[String] else feet.map(_.required).reduce(_ intersect _)
    val drill = StructType(physical.fields.map { f =>
      val key = f.name.toLowerCase(Locale.ROOT)
      val typed = if (times.contains(key)) f.copy(dataType = TimeType(3)) else f
      if (required(key)) typed.copy(metadata = new MetadataBuilder().withMetadata(f.metadata)
        .putBoolean(DrillTypeOf.RequiredKey, true).build())
      else typed
    })
    ParquetLayout(physical, drill, times, dates, corrupt)
  }

  private def merge(a: StructType, b: StructType, fileA: String, fileB: String, prefix: String): StructType = {
    val byName = b.fields.map(f => f.name.toLowerCase(Locale.ROOT) -> f).toMap
    val kept = a.fields.map { fa =>
      byName.get(fa.name.toLowerCase(Locale.ROOT)) match {
        case None => fa
        case Some(fb) => fa.copy(dataType = mergeType(fa.dataType, fb.dataType, fileA, fileB, prefix + fa.name),
          nullable = fa.nullable || fb.nullable)
      }
    }
    val seen = a.fieldNames.map(_.toLowerCase(Locale.ROOT)).toSet
    StructType(kept ++ b.fields.filterNot(f => seen(f.name.toLowerCase(Locale.ROOT))))
  }

  private def mergeType(a: DataType, b: DataType, fileA: String, fileB: String, column: String): DataType = (a, b) match {
    case _ if a == b => a
    case (x: StructType, y: StructType) => merge(x, y, fileA, fileB, column + ".")
    case (ArrayType(x, n1), ArrayType(y, n2)) => ArrayType(mergeType(x, y, fileA, fileB, column), n1 || n2)
    case _ => throw new Disagree(s"$fileB: column $column is ${b.sql} there but ${a.sql} in $fileA")
  }

  /** The catalog's table of Parquet `files` (listed and confined by the catalog) named `name`;
   * with `listed` (the catalog's files, their folders below the table's) Drill's implicit
   * columns too (dirN, filename, ...). */
  def table(name: String, files: Seq[String], conf: Configuration,
      autoCorrectDates: Boolean = true, listed: Seq[InputFile] = Nil): ParquetCatalogTable = {
    val (laid, shown) = parts(files, conf, autoCorrectDates)
    new ParquetCatalogTable(name, laid, shown, implicitValues(listed))
  }

  /** Drill's implicit columns of the listed files and each file's values (none unlisted). */
  private def implicitValues(listed: Seq[InputFile]): ImplicitValues = if (listed.isEmpty) ImplicitValues(Nil, Nil, Map.empty)
    else {
      val dirs = (0 until listed.map(_.dirs.size).max).map(ImplicitColumns.dirName)
      val names = dirs ++ ImplicitColumns.FileColumns
      ImplicitValues(dirs, ImplicitColumns.FileColumns, listed.map { f =>
        new Path(f.path).toUri.getPath -> names.flatMap(n => Option(ImplicitColumns.value(n, f)).map(n -> _)).toMap
      }.toMap)
    }
}
