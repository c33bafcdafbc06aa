package drillspark.functions

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.drillspark.compat.DrillVariantJson
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * `drill_convert_from(text, 'JSON')` at run time: the text as a VARIANT, read with Drill's
 * leniency (unquoted field names, NaN / Infinity). Invalid JSON fails, naming the text.
 */
case class DrillParseJson(child: Expression) extends UnaryExpression {
  override def prettyName: String = "drill_parse_json"
  override def dataType: DataType = VariantType

  override protected def nullSafeEval(input: Any): Any = DrillParseJson.parse(input.toString)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val owner = DrillParseJson.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, c => s"$owner.parse($c.toString())")
  }

  override protected def withNewChildInternal(newChild: Expression): DrillParseJson = copy(child = newChild)
}

object DrillParseJson {
  def parse(text: String): org.apache.spark.unsafe.types.VariantVal =
    try DrillVariantJson.parse(text)
    catch { case NonFatal(e) => throw DrillErrors.runtime(
      s"convert_from(..., 'JSON'): invalid JSON ${abbreviate(text)}: ${e.getMessage}") }

  private def abbreviate(text: String): String =
    if (text.length <= 80) s"'$text'" else s"'${text.take(77)}...'"
}

/**
 * The value of a constant `convert_from(text, 'JSON')` typed as Drill's JSON reader types it,
 * for the planner folds such a call: integers are BIGINT, other numbers DOUBLE, objects maps
 * (structs, fields in first-seen order, the fields of a list's maps merged), lists arrays of
 * one element type (BIGINT and DOUBLE widen to DOUBLE). None when the text has no such type
 * (a list mixing kinds), which keeps the VARIANT.
 */
object ConvertFromJson {
  private val mapper = new ObjectMapper(DrillVariantJson.factory)

  private final class Mixed extends RuntimeException

  def constant(text: String): Option[Literal] =
    try {
      val node = mapper.readTree(text)
      if (node == null || node.isMissingNode) None
      else {
        val t = literalType(typeOf(node))
        Some(Literal(value(node, t), t))
      }
    } catch { case _: Mixed => None; case NonFatal(_) => None }

  private def typeOf(n: JsonNode): DataType =
    if (n.isNull) NullType
    else if (n.isBoolean) BooleanType
    else if (n.isIntegralNumber) { if (n.canConvertToLong) LongType else DoubleType }
    else if (n.isNumber) DoubleType
    else if (n.isTextual) StringType
    else if (n.isArray) ArrayType(n.elements().asScala.map(typeOf).foldLeft(NullType: DataType)(unify))
    else if (n.isObject) StructType(n.properties().asScala.toSeq.map(e => StructField(e.getKey, typeOf(e.getValue))))
    else throw new Mixed

  private def unify(a: DataType, b: DataType): DataType = (a, b) match {
    case (NullType, x) => x
    case (x, NullType) => x
    case (x, y) if x == y => x
    case (LongType, DoubleType) | (DoubleType, LongType) => DoubleType
    case (ArrayType(x, _), ArrayType(y, _)) => ArrayType(unify(x, y))
    case (x: StructType, y: StructType) =>
      val fields = mutable.LinkedHashMap[String, DataType]()
      (x.fields ++ y.fields).foreach(f => fields(f.name) = fields.get(f.name).fold(f.dataType)(unify(_, f.dataType)))
      StructType(fields.toSeq.map { case (k, v) => StructField(k, v) })
    case _ => throw new Mixed
  }

  /** The Catalyst value of `n` as type `t` (NullType fields and elements read as strings). */
  private def value(n: JsonNode, t: DataType): Any =
    if (n == null || n.isNull || n.isMissingNode) null
    else t match {
      case BooleanType => n.booleanValue()
      case LongType => n.longValue()
      case DoubleType => n.doubleValue()
      case StringType | NullType => UTF8String.fromString(n.asText())
      case ArrayType(e, _) => new GenericArrayData(n.elements().asScala.map(value(_, e)).toArray)
      case s: StructType => InternalRow.fromSeq(s.fields.toSeq.map(f => value(n.get(f.name), f.dataType)))
      case _ => throw new Mixed
    }

  /** NullType (a JSON null with nothing else known) is VARCHAR, as Drill's missing values. */
  def literalType(t: DataType): DataType = t match {
    case NullType => StringType
    case ArrayType(e, n) => ArrayType(literalType(e), n)
    case s: StructType => StructType(s.fields.map(f => f.copy(dataType = literalType(f.dataType))))
    case other => other
  }
}
