package org.apache.spark.sql.drillspark.compat

import org.apache.spark.types.variant.{Variant, VariantUtil}
import org.apache.spark.unsafe.types.VariantVal

/**
 * Reading VARIANT values (Spark's `org.apache.spark.types.variant` is internal API): the kind
 * of a value, and the elements of an array or the fields of an object as VARIANTs.
 */
object DrillVariant {
  /** Kinds of VARIANT values, as `kind` names them (VariantUtil.Type's names). */
  val Object = "OBJECT"
  val Array = "ARRAY"
  val Null = "NULL"
  val Boolean = "BOOLEAN"
  val Long = "LONG"
  val String = "STRING"
  val Uuid = "UUID"
  val Double = "DOUBLE"
  val Decimal = "DECIMAL"
  val Float = "FLOAT"
  val Date = "DATE"
  val Timestamp = "TIMESTAMP"
  val TimestampNtz = "TIMESTAMP_NTZ"
  val Binary = "BINARY"

  private def of(v: VariantVal): Variant = new Variant(v.getValue, v.getMetadata)
  private def asVal(v: Variant): VariantVal = new VariantVal(v.getValue, v.getMetadata)

  def kind(v: VariantVal): String = of(v).getType.name

  def arraySize(v: VariantVal): Int = of(v).arraySize()

  /** The elements of a VARIANT array. */
  def elements(v: VariantVal): scala.Array[Any] = {
    val variant = of(v)
    scala.Array.tabulate[Any](variant.arraySize())(i => asVal(variant.getElementAtIndex(i)))
  }

  /** The (name, value) members of a VARIANT object whose value is not a variant null. */
  def nonNullFields(v: VariantVal): Seq[(String, VariantVal)] = {
    val variant = of(v)
    (0 until variant.objectSize()).map(variant.getFieldAtIndex)
      .filter(_.value.getType != VariantUtil.Type.NULL)
      .map(f => f.key -> asVal(f.value))
  }
}

/**
 * Parsing JSON text into a VARIANT the way Drill's JSON reader reads it: unquoted field names
 * (`{x: 1}`) and NaN / Infinity are accepted (Spark's parse_json refuses both).
 */
object DrillVariantJson {
  /** Jackson's factory with Drill's leniency. */
  val factory: com.fasterxml.jackson.core.JsonFactory = new com.fasterxml.jackson.core.JsonFactoryBuilder()
    .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES)
    .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
    .build()

  /** A Jackson parser over `text` with Drill's leniency. */
  def parser(text: String): com.fasterxml.jackson.core.JsonParser = factory.createParser(text)

  /** `text` as a VARIANT; invalid JSON throws Jackson's or the builder's exception. */
  def parse(text: String): VariantVal = {
    val p = parser(text)
    try {
      p.nextToken() // the builder reads from the parser's current token
      val v = org.apache.spark.types.variant.VariantBuilder.parseJson(p, false)
      new VariantVal(v.getValue, v.getMetadata)
    } finally p.close()
  }
}
