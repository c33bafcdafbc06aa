package drillspark.functions

import org.apache.spark.sql.drillspark.compat.DrillVariant
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{UTF8String, VariantVal}

/**
 * Drill's names for Spark types: minor type names (typeof), SQL names (sqltypeof) and data
 * modes (modeof). Drill's maps are structs here, its DICT is a Spark map, a VARIANT plays
 * the part of Drill's UNION vector.
 */
object DrillTypeNames {

  /** Drill's minor type name; for an array, its element's (Drill reports the repeated type). */
  def minorType(dt: DataType): String = dt match {
    case ArrayType(ArrayType(_, _), _) => "LIST"
    case ArrayType(elem, _) => scalarMinorType(elem)
    case other => scalarMinorType(other)
  }

  private def scalarMinorType(dt: DataType): String = dt match {
    case NullType => "NULL"
    case BooleanType => "BIT"
    case ByteType => "TINYINT"
    case ShortType => "SMALLINT"
    case IntegerType => "INT"
    case LongType => "BIGINT"
    case FloatType => "FLOAT4"
    case DoubleType => "FLOAT8"
    case _: DecimalType => "VARDECIMAL"
    case _: StringType | _: CharType | _: VarcharType => "VARCHAR"
    case BinaryType => "VARBINARY"
    case DateType => "DATE"
    case TimestampType | TimestampNTZType => "TIMESTAMP"
    case _: YearMonthIntervalType => "INTERVALYEAR"
    case _: DayTimeIntervalType => "INTERVALDAY"
    case CalendarIntervalType => "INTERVAL"
    case _: StructType => "MAP"
    case _: MapType => "DICT"
    case _: ArrayType => "LIST"
    case VariantType => "UNION"
    case other if other.typeName.startsWith("time") => "TIME"
    case other => other.typeName.toUpperCase(java.util.Locale.ROOT)
  }

  /**
   * Drill's SQL type name (`Types.getExtendedSqlTypeName`): a repeated value reports its
   * element's (Drill 1.22: `sqltypeof` of a JSON array of numbers is BIGINT, of maps STRUCT);
   * an array of arrays, Drill's LIST, is ARRAY.
   */
  def sqlType(dt: DataType): String = dt match {
    case ArrayType(_: ArrayType, _) => "ARRAY"
    case ArrayType(elem, _) => scalarSqlType(elem)
    case other => scalarSqlType(other)
  }

  private def scalarSqlType(dt: DataType): String = dt match {
    case _: ArrayType => "ARRAY"
    case NullType => "NULL"
    case BooleanType => "BOOLEAN"
    case ByteType => "TINYINT"
    case ShortType => "SMALLINT"
    case IntegerType => "INTEGER"
    case LongType => "BIGINT"
    case FloatType => "FLOAT"
    case DoubleType => "DOUBLE"
    case d: DecimalType => s"DECIMAL(${d.precision}, ${d.scale})"
    case _: CharType => "CHARACTER"
    case _: StringType | _: VarcharType => "CHARACTER VARYING"
    case BinaryType => "BINARY VARYING"
    case DateType => "DATE"
    case TimestampType | TimestampNTZType => "TIMESTAMP"
    case _: YearMonthIntervalType => "INTERVAL YEAR TO MONTH"
    case _: DayTimeIntervalType => "INTERVAL DAY TO SECOND"
    case CalendarIntervalType => "INTERVAL"
    case _: StructType => "STRUCT"
    case _: MapType => "MAP"
    case VariantType => "UNION"
    case other if other.typeName.startsWith("time") => "TIME"
    case other => other.typeName.toUpperCase(java.util.Locale.ROOT)
  }

  /**
   * Drill's data mode. Drill's maps are never null (REQUIRED) and arrays are REPEATED; other
   * values follow Spark's nullability.
   */
  def mode(dt: DataType, nullable: Boolean): String = dt match {
    case _: ArrayType => "ARRAY"
    case _: StructType => "NOT NULL"
    case NullType => "NULLABLE"
    case _ => if (nullable) "NULLABLE" else "NOT NULL"
  }

  /** Per-row type of a VARIANT value, as Drill's typeof reports a UNION member. */
  def variantTypeName(v: VariantVal): UTF8String =
    UTF8String.fromString(if (v == null) "NULL" else variantMinorType(v))

  def variantMinorType(v: VariantVal): String = DrillVariant.kind(v) match {
    case DrillVariant.Object => "MAP"
    case DrillVariant.Array => "LIST"
    case DrillVariant.Null => "NULL"
    case DrillVariant.Boolean => "BIT"
    case DrillVariant.Long => "BIGINT"
    case DrillVariant.String | DrillVariant.Uuid => "VARCHAR"
    // JSON numbers with a fraction: parse_json stores them as decimals, Drill reads FLOAT8.
    case DrillVariant.Double | DrillVariant.Decimal => "FLOAT8"
    case DrillVariant.Float => "FLOAT4"
    case DrillVariant.Date => "DATE"
    case DrillVariant.Timestamp | DrillVariant.TimestampNtz => "TIMESTAMP"
    case DrillVariant.Binary => "VARBINARY"
    case _ => "UNION"
  }
}
