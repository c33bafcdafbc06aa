package drillspark.source.read

import org.apache.spark.sql.types.StructType

import drillspark.source.input.ImplicitColumns

/** Where each column of the read schema comes from: the JSON data, or a per-file constant. */
final case class ReadPlan(readSchema: StructType) {
  private val isConst: Array[Boolean] = readSchema.fields.map { f =>
    ImplicitColumns.dirIndex(f.name).isDefined && f.metadata.contains(ReadPlan.PartitionKey) ||
      f.metadata.contains(ReadPlan.FileColumnKey)
  }
  val dataCols: Array[Int] = readSchema.fields.indices.filterNot(isConst).toArray
  val constCols: Array[Int] = readSchema.fields.indices.filter(isConst).toArray
  val constNames: Array[String] = constCols.map(readSchema.fields(_).name)
  val dataSchema: StructType = StructType(dataCols.map(readSchema.fields(_)))
}

object ReadPlan {
  /** Bytes of one implicit-column entry besides its text: null flag, offset and length. */
  val ConstSlot = 9
  /** Field metadata marking dirN partition columns and implicit file columns in the read schema. */
  val PartitionKey = "drill.partition"
  val FileColumnKey = "drill.implicit"
}
