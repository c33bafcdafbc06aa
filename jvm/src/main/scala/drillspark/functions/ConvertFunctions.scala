package drillspark.functions

import java.util.Locale

import org.apache.spark.sql.catalyst.expressions.{Cast, Expression}
import org.apache.spark.sql.drillspark.compat.{DrillBuiltins, DrillSparkErrors}
import org.apache.spark.sql.types._

/**
 * `drill_convert_from(x, 'JSON')` / `drill_convert_to(x, 'JSON')`: Drill's CONVERT_FROM and
 * CONVERT_TO for JSON (and UTF8). Drill turns JSON text into a map/list whose type comes from
 * the data: for constant text that type is inferred here (ConvertFromJson); other text is a
 * VARIANT, which drill_flatten, drill_kvgen and drill_typeof read per row. Both read JSON as
 * Drill does (unquoted field names, NaN). CONVERT_TO gives VARBINARY (Spark BINARY) JSON text,
 * as Drill does.
 */
object ConvertFunctions {
  val From = "drill_convert_from"
  val To = "drill_convert_to"

  /** DESCRIBE FUNCTION's class: this builder (the expression it makes is Spark's own). */
  private def className: String = getClass.getName.stripSuffix("$")

  private val JsonNames = Set("JSON", "SIMPLEJSON", "EXTENDEDJSON")
  private val Supported = "JSON, SIMPLEJSON, EXTENDEDJSON, UTF8"

  /** The encoding argument's value; Spark's errors (AnalysisExceptions with a class) if bad. */
  private def encoding(name: String, arg: Expression): String = {
    if (!arg.foldable || !arg.dataType.isInstanceOf[StringType]) {
      throw DrillSparkErrors.nonFoldableArgument(name, "encoding", StringType)
    }
    val value = arg.eval()
    if (value == null) throw DrillSparkErrors.nullParameter(name, "encoding")
    value.toString.toUpperCase(Locale.ROOT)
  }

  private def unsupported(name: String, enc: String): Nothing =
    throw DrillSparkErrors.unsupportedEncoding(name, "encoding", enc, Supported)

  val fromDescription: DrillFunctions.Description = DrillFunctions.describe(
    From,
    className,
    usage = "_FUNC_(expr, 'JSON') - Drill's CONVERT_FROM: parses JSON text (VARCHAR or " +
      "VARBINARY) into a VARIANT holding the map, list or scalar. _FUNC_(expr, 'UTF8') " +
      "decodes bytes to VARCHAR.",
    examples = """
    Examples:
      > SELECT drill_typeof(_FUNC_('{"a": [1, 2]}', 'JSON'));
       MAP
  """,
    group = "json_funcs") { args =>
    DrillFunctions.arity(From, args, 2)
    encoding(From, args(1)) match {
      case e if JsonNames(e) =>
        val text = Cast(args.head, StringType)
        // a constant is typed as Drill's reader types the data (the planner folds the call);
        // other text is a VARIANT, read per row
        val folded = if (text.foldable) Option(text.eval()).flatMap(v => ConvertFromJson.constant(v.toString)) else None
        folded.getOrElse(DrillParseJson(text))
      case "UTF8" => Cast(args.head, StringType)
      case other => unsupported(From, other)
    }
  }

  val toDescription: DrillFunctions.Description = DrillFunctions.describe(
    To,
    className,
    usage = "_FUNC_(expr, 'JSON') - Drill's CONVERT_TO: the JSON text of `expr` (a map, " +
      "list, VARIANT or scalar) as VARBINARY. _FUNC_(expr, 'UTF8') encodes text as bytes.",
    examples = """
    Examples:
      > SELECT CAST(_FUNC_(named_struct('a', 1), 'JSON') AS STRING);
       {"a":1}
  """,
    group = "json_funcs") { args =>
    DrillFunctions.arity(To, args, 2)
    val x = args.head
    encoding(To, args(1)) match {
      case e if JsonNames(e) =>
        val json = x.dataType match {
          case _: StructType | _: MapType | _: ArrayType | VariantType => DrillBuiltins.call("to_json", Seq(x))
          case _ => DrillBuiltins.call("to_json", Seq(Cast(x, VariantType)))
        }
        Cast(json, BinaryType)
      case "UTF8" => Cast(Cast(x, StringType), BinaryType)
      case other => unsupported(To, other)
    }
  }
}
