package org.apache.spark.sql.drillspark.compat

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.vectorized.{OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types.StructType
import org.apache.spark.types.variant.VariantBuilder
import org.apache.spark.util.SerializableConfiguration

import com.fasterxml.jackson.core.JsonParser

/**
 * The scan's only contact with Spark-internal classes: writable column vectors (there is no
 * public writable vector API), VARIANT encoding, and a serializable Hadoop configuration.
 */
object ScanVectors {
  /** Spark's writable on-heap vector; the `drill` scan's column writers fill these. */
  type Vec = WritableColumnVector

  def allocate(capacity: Int, schema: StructType): Array[Vec] =
    OnHeapColumnVector.allocateColumns(capacity, schema).map(v => v: Vec)

  /** Encode the JSON value under the parser (positioned on its first token) as a variant:
   * (value bytes, metadata bytes). Duplicate keys: last wins, as everywhere in the scan. */
  def parseVariant(p: JsonParser): (Array[Byte], Array[Byte]) = {
    val v = VariantBuilder.parseJson(p, true)
    (v.getValue, v.getMetadata)
  }

  final class HadoopConf(@transient private val conf: Configuration) extends Serializable {
    private val ser = new SerializableConfiguration(conf)
    def value: Configuration = ser.value
  }

  def hadoopConf(spark: SparkSession): HadoopConf =
    new HadoopConf(spark.sparkContext.hadoopConfiguration)
}
