package drillspark.functions

import java.util.regex.{Pattern, PatternSyntaxException}

import org.apache.spark.sql.catalyst.analysis.{TypeCheckResult, TypeCoercion}
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{TypeCheckFailure, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Cast, Expression, RowOrdering, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.util.{ArrayData, TypeUtils}
import org.apache.spark.sql.drillspark.compat.DrillVariant
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{UTF8String, VariantVal}

/**
 * `drill_repeated_count(array)`: the number of elements (the outer dimension of a nested
 * array). Drill's arrays are never null, so a null or missing array counts 0.
 */
case class DrillRepeatedCount(child: Expression, where: String) extends UnaryExpression {
  override def sql: String = where
  override def prettyName: String = DrillRepeatedCount.Name
  override def dataType: DataType = IntegerType
  override def nullable: Boolean = false

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case _: ArrayType | NullType | VariantType => TypeCheckSuccess
    case other => TypeCheckFailure(
      s"repeated_count needs an array, got a ${DrillTypeNames.minorType(other)} value")
  }

  override def eval(input: org.apache.spark.sql.catalyst.InternalRow): Any = child.eval(input) match {
    case null => 0
    case a: ArrayData => a.numElements()
    case v: VariantVal => DrillRepeatedCount.variantCount(v, where)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val c = child.genCode(ctx)
    val count = child.dataType match {
      case NullType => "0"
      case VariantType =>
        val w = ctx.addReferenceObj("where", where, "java.lang.String")
        s"${DrillRepeatedCount.getClass.getName.stripSuffix("$")}.variantCount(${c.value}, $w)"
      case _ => s"${c.value}.numElements()"
    }
    ev.copy(code = code"""
      ${c.code}
      int ${ev.value} = ${c.isNull} ? 0 : $count;""", isNull = FalseLiteral)
  }

  override protected def withNewChildInternal(newChild: Expression): DrillRepeatedCount =
    copy(child = newChild)
}

object DrillRepeatedCount {
  val Name = "drill_repeated_count"

  /** A VARIANT array's size; a variant null counts 0; anything else is not an array. */
  def variantCount(v: VariantVal, where: String): Int = {
    DrillVariant.kind(v) match {
      case DrillVariant.Array => DrillVariant.arraySize(v)
      case DrillVariant.Null => 0
      case _ => throw DrillErrors.runtime(
        s"repeated_count needs an array, got a ${DrillTypeNames.variantMinorType(v)} value ($where)")
    }
  }

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillRepeatedCount].getName,
    usage = "_FUNC_(array) - Drill's REPEATED_COUNT: the number of elements of `array` (INT); " +
      "a null or missing array counts 0.",
    examples = """
    Examples:
      > SELECT _FUNC_(array(array(1, 2), array(3)));
       2
  """,
    group = "collection_funcs") { args =>
    DrillFunctions.arity(Name, args, 1)
    DrillRepeatedCount(args.head, s"$Name(${args.head.sql})")
  }
}

/**
 * `drill_repeated_contains(array, value)`: true if an element matches. For strings `value` is
 * a java.util.regex pattern searched with `find()` (Drill: `'Choc*'` matches "Chocolate");
 * other types compare by Spark's equality, as `array_contains` does: the interpreted path uses
 * Spark's ordering (`equiv`: NaN equals NaN, binaries and structs by content whatever their
 * row format) and generated code `genEqual`, so both give the same answers. Numbers of
 * different types are first cast to their common type by the builder (BIGINT vs DECIMAL
 * compares as DECIMAL, exactly).
 */
case class DrillRepeatedContains(left: Expression, right: Expression, where: String)
    extends BinaryExpression {
  override def sql: String = where
  override def prettyName: String = DrillRepeatedContains.Name
  override def dataType: DataType = BooleanType
  override def nullable: Boolean = right.nullable

  private def elementType: DataType = left.dataType match {
    case ArrayType(e, _) => e
    case _ => NullType
  }
  private def regex: Boolean = elementType.isInstanceOf[StringType]

  @transient private lazy val ordering: Ordering[Any] = TypeUtils.getInterpretedOrdering(elementType)

  override def checkInputDataTypes(): TypeCheckResult = (left.dataType, right.dataType) match {
    case (NullType, _) => TypeCheckSuccess
    case (ArrayType(_: StringType, _), _: StringType) => TypeCheckSuccess
    case (ArrayType(e, _), r) if DrillKvgen.asNullable(e) == DrillKvgen.asNullable(r) && RowOrdering.isOrderable(e) =>
      TypeCheckSuccess
    case (l, r) => TypeCheckFailure(s"repeated_contains needs an array and a value of its element " +
      s"type, got ${DrillTypeNames.sqlType(l)} of ${DrillTypeNames.minorType(l)} and ${DrillTypeNames.minorType(r)}")
  }

  override def eval(input: org.apache.spark.sql.catalyst.InternalRow): Any = {
    val value = right.eval(input)
    if (value == null) return null
    val array = left.eval(input).asInstanceOf[ArrayData]
    if (array == null) return false
    if (regex) {
      val p = DrillRepeatedContains.compile(value.asInstanceOf[UTF8String], where)
      (0 until array.numElements()).exists(i =>
        !array.isNullAt(i) && p.matcher(array.getUTF8String(i).toString).find())
    } else {
      (0 until array.numElements()).exists(i =>
        !array.isNullAt(i) && ordering.equiv(array.get(i, elementType), value))
    }
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val l = left.genCode(ctx)
    val r = right.genCode(ctx)
    val (i, found) = (ctx.freshName("i"), ev.value)
    val helpers = DrillRepeatedContains.getClass.getName.stripSuffix("$")
    val test: String =
      if (regex) {
        // Compile once per distinct pattern (a literal pattern compiles once per task).
        val pattern = ctx.addMutableState(classOf[Pattern].getName, "pattern")
        val last = ctx.addMutableState("UTF8String", "lastPattern")
        val w = ctx.addReferenceObj("where", where, "java.lang.String")
        s"""if ($last == null || !$last.equals(${r.value})) {
           |  $last = ${r.value}.clone();
           |  $pattern = $helpers.compile($last, $w);
           |}
           |for (int $i = 0; $i < ${l.value}.numElements() && !$found; $i++) {
           |  $found = !${l.value}.isNullAt($i) && $pattern.matcher(${l.value}.getUTF8String($i).toString()).find();
           |}""".stripMargin
      } else {
        val e = CodeGenerator.getValue(l.value, elementType, i)
        s"""for (int $i = 0; $i < ${l.value}.numElements() && !$found; $i++) {
           |  $found = !${l.value}.isNullAt($i) && (${ctx.genEqual(elementType, e, r.value)});
           |}""".stripMargin
      }
    val body = if (left.dataType == NullType) "" else
      s"""if (!${l.isNull}) {
         |  $test
         |}""".stripMargin
    ev.copy(code = code"""
      ${r.code}
      boolean ${ev.isNull} = ${r.isNull};
      boolean $found = false;
      if (!${ev.isNull}) {
        ${l.code}
        $body
      }""")
  }

  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression)
      : DrillRepeatedContains = copy(left = newLeft, right = newRight)
}

object DrillRepeatedContains {
  val Name = "drill_repeated_contains"

  def compile(pattern: UTF8String, where: String): Pattern =
    try Pattern.compile(pattern.toString)
    catch {
      case e: PatternSyntaxException =>
        throw DrillErrors.runtime(s"Invalid regular expression '$pattern' in $where: ${e.getDescription}")
    }

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillRepeatedContains].getName,
    usage = "_FUNC_(array, value) - Drill's REPEATED_CONTAINS: true if an element of `array` " +
      "matches `value`. For strings `value` is a regular expression searched in each element " +
      "(so 'Choc*' matches 'Chocolate'); other types compare by equality.",
    examples = """
    Examples:
      > SELECT _FUNC_(array('Chocolate', 'Plain'), 'Choc*');
       true
      > SELECT _FUNC_(array(1, 2), 3);
       false
  """,
    group = "collection_funcs") { args =>
    DrillFunctions.arity(Name, args, 2)
    val (array, value) = if (!args.forall(_.resolved)) (args.head, args(1)) else (args.head.dataType, args(1).dataType) match {
      // A string array searched with a non-string value: search its text, as Drill casts.
      case (ArrayType(_: StringType, _), t) if !t.isInstanceOf[StringType] && t != NullType =>
        (args.head, Cast(args(1), StringType))
      case (ArrayType(e, _), NullType) => (args.head, Cast(args(1), e))
      // Numbers of different types: both sides in Spark's common type, compared exactly there.
      case (ArrayType(e: NumericType, containsNull), t: NumericType) if e != t =>
        TypeCoercion.findWiderTypeForTwo(e, t) match {
          case Some(common) =>
            (if (common == e) args.head else Cast(args.head, ArrayType(common, containsNull)),
              if (common == t) args(1) else Cast(args(1), common))
          case None => (args.head, args(1))
        }
      case _ => (args.head, args(1))
    }
    DrillRepeatedContains(array, value, s"$Name(${args.head.sql}, ${args(1).sql})")
  }
}
