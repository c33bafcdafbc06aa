package org.apache.spark.sql.drillspark.compat

import scala.jdk.CollectionConverters._
import scala.util.Using
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.Type.Repetition
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.ExprId
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat

/**
 * Which columns of Spark's own Parquet relations are REQUIRED in every file they read: Spark
 * reads every Parquet column as nullable, and Drill's MODEOF answers NOT NULL for a REQUIRED
 * one. The relation classes (HadoopFsRelation, LogicalRelation) are Spark-internal API; the
 * footers are read with parquet-hadoop, which Spark ships.
 */
object ParquetModes {

  /** The output columns (by expression id) of `plan`'s Parquet relations that no file reads
   * as optional or repeated; empty when `plan` reads no Parquet file through Spark's source. */
  def requiredColumns(plan: LogicalPlan): Set[ExprId] = plan.collectLeaves().flatMap {
    case l: LogicalRelation => l.relation match {
      case h: HadoopFsRelation if h.fileFormat.isInstanceOf[ParquetFileFormat] =>
        val required = requiredNames(h.location.inputFiles.toSeq)
        l.output.filter(a => required(a.name.toLowerCase(java.util.Locale.ROOT))).map(_.exprId)
      case _ => Nil
    }
    case _ => Nil
  }.toSet

  /** Lower-cased top-level names of primitive columns REQUIRED in all `files`. */
  private def requiredNames(files: Seq[String]): Set[String] = {
    if (files.isEmpty) return Set.empty
    val conf = SparkSession.active.sparkContext.hadoopConfiguration
    files.map { f =>
      try Using.resource(ParquetFileReader.open(HadoopInputFile.fromPath(new Path(f), conf))) { r =>
        r.getFooter.getFileMetaData.getSchema.getFields.asScala
          .filter(t => t.isPrimitive && t.isRepetition(Repetition.REQUIRED))
          .map(_.getName.toLowerCase(java.util.Locale.ROOT)).toSet
      } catch { case NonFatal(_) => Set.empty[String] }
    }.reduce(_ intersect _)
  }
}
