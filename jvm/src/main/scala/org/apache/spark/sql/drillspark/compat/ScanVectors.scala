package org.apache.spark.sql.drillspark.compat

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.vectorized.{OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types._
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

  /** Bytes [[allocate]] sets aside per row of capacity, as Spark's vectors size themselves: a
   * null flag and the fixed-width slot per column, children at the same capacity, and 4 bytes
   * per row for the bytes of strings and binaries. */
  def preallocatedRowBytes(schema: StructType): Long = schema.fields.map(f => preallocated(f.dataType)).sum

  private def preallocated(dt: DataType): Long = dt match {
    case s: StructType => 1L + preallocatedRowBytes(s)
    case a: ArrayType => 9L + preallocated(a.elementType)
    case m: MapType => 9L + preallocated(m.keyType) + preallocated(m.valueType)
    case StringType | BinaryType | _: VarcharType | _: CharType => 9L + 4L
    case d: DecimalType if d.precision > Decimal.MAX_LONG_DIGITS => 9L + 4L
    case VariantType => 1L + 2 * (9L + 4L)
    case other => 1L + other.defaultSize
  }

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
