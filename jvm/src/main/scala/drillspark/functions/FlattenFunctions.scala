package drillspark.functions

import org.apache.spark.sql.catalyst.expressions.{ExplodeBase, Expression, Literal, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}
import org.apache.spark.sql.drillspark.compat.DrillVariant
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.VariantVal

/**
 * `drill_flatten(x)`: Drill's FLATTEN as a Spark generator. One row per element of an array
 * (an empty, null or missing array gives none); a scalar or map gives one row holding it
 * (the logical plan's flatten operator, docs/functions.md) or, with `spark.drillspark.flatten.strict=true`, Drill SQL's
 * "Flatten does not support inputs of non-list values"; a VARIANT decides per row.
 * `drill_flatten(drill_flatten(x))` is one generator of depth 2: Spark refuses generators
 * nested in expressions, so the builder folds the outer call into the inner one.
 *
 * The builder turns the input into the array to walk (see [[FlattenLists]]) and makes that
 * the generator's child, so for an array column this is exactly Spark's `explode`: same
 * generated loop in GenerateExec, same optimizer treatment. `where` is the call as written,
 * for error messages and the plan.
 */
case class DrillFlatten(child: Expression, strict: Boolean, depth: Int, where: String)
    extends ExplodeBase {

  override val position: Boolean = false
  override def prettyName: String = DrillFlatten.Name
  override def sql: String = where
  override def toString: String = where

  override protected def withNewChildInternal(newChild: Expression): DrillFlatten =
    copy(child = newChild)
}

object DrillFlatten {
  val Name = "drill_flatten"

  val description: DrillFunctions.Description = DrillFunctions.describe(
    Name,
    classOf[DrillFlatten].getName,
    usage = "_FUNC_(expr) - Drill's FLATTEN: one row per element of the array `expr`, other " +
      "selected columns copied. An empty, null or missing array gives no rows; a scalar or map " +
      "gives one row (or Drill's error when spark.drillspark.flatten.strict is true); a VARIANT " +
      "decides per row; _FUNC_(_FUNC_(expr)) flattens two levels.",
    examples = """
    Examples:
      > SELECT _FUNC_(array(10, 20));
       10
       20
      > SELECT _FUNC_(_FUNC_(array(array(1, 2), array(3))));
       1
       2
       3
  """,
    group = "generator_funcs") { args =>
    DrillFunctions.arity(Name, args, 1)
    args.head match {
      case inner: DrillFlatten =>
        val where = s"$Name(${inner.where})"
        inner.copy(child = FlattenLists.concat(inner.child, inner.strict, where), depth = inner.depth + 1, where = where)
      case e =>
        val (strict, where) = (DrillConf.flag(DrillConf.FlattenStrict, default = false), s"$Name(${e.sql})")
        DrillFlatten(FlattenLists.asList(e, strict, where), strict, 1, where)
    }
  }
}

/** Building blocks that turn drill_flatten's input into the array it walks. */
object FlattenLists {

  /** One level: arrays as they are, others by Drill's rules. */
  def asList(e: Expression, strict: Boolean, where: String): Expression = e.dataType match {
    case _: ArrayType => e
    case VariantType => VariantElements(e, strict, where)
    case NullType => Literal.create(null, ArrayType(NullType))
    case _ if strict => NonListError(e, where)
    case _ => SingletonList(e)
  }

  /** One more level: the elements of every element of the array `c`. */
  def concat(c: Expression, strict: Boolean, where: String): Expression =
    c.dataType.asInstanceOf[ArrayType].elementType match {
      case _: ArrayType | VariantType => ConcatLists(c, strict, where)
      case NullType => Literal.create(null, ArrayType(NullType))
      case _ if strict => ConcatLists(c, strict, where)
      case _ => c // a scalar element flattens to itself
    }

  def box(dt: DataType, value: String): String =
    if (CodeGenerator.isPrimitiveType(dt)) s"${CodeGenerator.boxedType(dt)}.valueOf($value)"
    else value

  /** The elements of a VARIANT array; a non-array gives itself (or an error when strict). */
  def variantElements(v: VariantVal, strict: Boolean, where: String): ArrayData = {
    DrillVariant.kind(v) match {
      case DrillVariant.Array => new GenericArrayData(DrillVariant.elements(v))
      case DrillVariant.Null => null
      case _ if strict => throw DrillErrors.flattenNonList(where, DrillTypeNames.variantMinorType(v))
      case _ => new GenericArrayData(Array[Any](v))
    }
  }

  /** Every element's elements, for an array of VARIANT values. */
  def concatVariants(a: ArrayData, strict: Boolean, where: String): ArrayData = {
    val out = scala.collection.mutable.ArrayBuffer.empty[Any]
    var i = 0
    while (i < a.numElements()) {
      if (!a.isNullAt(i)) {
        val inner = variantElements(a.getVariant(i), strict, where)
        if (inner != null) out ++= inner.toObjectArray(VariantType)
      }
      i += 1
    }
    new GenericArrayData(out.toArray)
  }

  /** Strict mode over an array of scalars: fail on the first non-null one. */
  def checkNoScalars(a: ArrayData, elementType: DataType, where: String): ArrayData = {
    var i = 0
    while (i < a.numElements()) {
      if (!a.isNullAt(i)) throw DrillErrors.flattenNonList(where, DrillTypeNames.minorType(elementType))
      i += 1
    }
    null
  }
}

/** `[x]` for a non-null scalar or map `x`; null for null (so no rows). */
case class SingletonList(child: Expression) extends UnaryExpression {
  override def dataType: DataType = ArrayType(child.dataType, containsNull = false)
  override protected def nullSafeEval(input: Any): Any = new GenericArrayData(Array[Any](input))
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    nullSafeCodeGen(ctx, ev, c =>
      s"${ev.value} = new ${classOf[GenericArrayData].getName}(" +
        s"new Object[]{${FlattenLists.box(child.dataType, c)}});")
  override protected def withNewChildInternal(newChild: Expression): SingletonList =
    copy(child = newChild)
}

/** Strict drill_flatten over a scalar or map: Drill's error for a value, no rows for null. */
case class NonListError(child: Expression, where: String) extends UnaryExpression {
  override def nullable: Boolean = true
  override def dataType: DataType = ArrayType(child.dataType, containsNull = false)
  override protected def nullSafeEval(input: Any): Any =
    throw DrillErrors.flattenNonList(where, DrillTypeNames.minorType(child.dataType))
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val w = ctx.addReferenceObj("where", where, "java.lang.String")
    val t = ctx.addReferenceObj("drillType", DrillTypeNames.minorType(child.dataType), "java.lang.String")
    nullSafeCodeGen(ctx, ev, _ => s"if (true) throw ${DrillErrors.getClass.getName.stripSuffix("$")}.flattenNonList($w, $t);")
  }
  override protected def withNewChildInternal(newChild: Expression): NonListError =
    copy(child = newChild)
}

/** A VARIANT as an array of VARIANTs: its elements, or itself when it is not an array. */
case class VariantElements(child: Expression, strict: Boolean, where: String) extends UnaryExpression {
  override def nullable: Boolean = true
  override def dataType: DataType = ArrayType(VariantType, containsNull = false)
  override protected def nullSafeEval(input: Any): Any =
    FlattenLists.variantElements(input.asInstanceOf[VariantVal], strict, where)
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val w = ctx.addReferenceObj("where", where, "java.lang.String")
    nullSafeCodeGen(ctx, ev, c =>
      s"""${ev.value} = ${FlattenLists.getClass.getName.stripSuffix("$")}.variantElements($c, $strict, $w);
         |${ev.isNull} = ${ev.value} == null;""".stripMargin)
  }
  override protected def withNewChildInternal(newChild: Expression): VariantElements =
    copy(child = newChild)
}

/**
 * The elements of the elements of an array, null inner arrays skipped: the collection of
 * drill_flatten(drill_flatten(x)).
 */
case class ConcatLists(child: Expression, strict: Boolean, where: String) extends UnaryExpression {
  override def nullable: Boolean = true
  private def elementType: DataType = child.dataType.asInstanceOf[ArrayType].elementType

  override def dataType: DataType = elementType match {
    case a: ArrayType => a
    case VariantType => ArrayType(VariantType, containsNull = false)
    case other => ArrayType(other) // strict over scalars: only ever null (or an error)
  }

  override protected def nullSafeEval(input: Any): Any = {
    val outer = input.asInstanceOf[ArrayData]
    elementType match {
      case ArrayType(inner, _) =>
        val out = scala.collection.mutable.ArrayBuffer.empty[Any]
        outer.foreach(elementType, (_, a) => if (a != null) out ++= a.asInstanceOf[ArrayData].toObjectArray(inner))
        new GenericArrayData(out.toArray)
      case VariantType => FlattenLists.concatVariants(outer, strict, where)
      case other => FlattenLists.checkNoScalars(outer, other, where)
    }
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val helpers = FlattenLists.getClass.getName.stripSuffix("$")
    val w = ctx.addReferenceObj("where", where, "java.lang.String")
    elementType match {
      case ArrayType(inner, _) =>
        val (total, i, j, k, buf, a) = (ctx.freshName("total"), ctx.freshName("i"),
          ctx.freshName("j"), ctx.freshName("k"), ctx.freshName("buf"), ctx.freshName("inner"))
        val arrayData = classOf[ArrayData].getName
        nullSafeCodeGen(ctx, ev, c =>
          s"""int $total = 0;
             |for (int $i = 0; $i < $c.numElements(); $i++) {
             |  if (!$c.isNullAt($i)) $total += $c.getArray($i).numElements();
             |}
             |Object[] $buf = new Object[$total];
             |int $k = 0;
             |for (int $i = 0; $i < $c.numElements(); $i++) {
             |  if ($c.isNullAt($i)) continue;
             |  $arrayData $a = $c.getArray($i);
             |  for (int $j = 0; $j < $a.numElements(); $j++) {
             |    $buf[$k++] = $a.isNullAt($j) ? null :
             |      ${FlattenLists.box(inner, CodeGenerator.getValue(a, inner, j))};
             |  }
             |}
             |${ev.value} = new ${classOf[GenericArrayData].getName}($buf);""".stripMargin)
      case VariantType =>
        nullSafeCodeGen(ctx, ev, c => s"${ev.value} = $helpers.concatVariants($c, $strict, $w);")
      case other =>
        val t = ctx.addReferenceObj("type", other, classOf[DataType].getName)
        nullSafeCodeGen(ctx, ev, c =>
          s"""${ev.value} = $helpers.checkNoScalars($c, $t, $w);
             |${ev.isNull} = true;""".stripMargin)
    }
  }

  override protected def withNewChildInternal(newChild: Expression): ConcatLists =
    copy(child = newChild)
}
