package drillspark.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{TypeCheckFailure, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.drillspark.compat.DrillVariant
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{UTF8String, VariantVal}

/**
 * `drill_kvgen(m)` (alias `drill_mappify`): Drill's KVGEN. A map (a Spark struct or map)
 * becomes an array of `{key, value}` structs in field order; null members are skipped; a
 * null map gives `[]`. All members must share one type (Drill's error names the field and
 * the type), except for a VARIANT, whose members stay VARIANTs, and for members that are all maps
 * of different members (`{"a": {"x": 1}}`, `{"b": {"x": 2, "y": "q"}}`): each value is read as
 * their union, as Drill's one map type of the column has it. A VARCHAR member beside members
 * of another type is checked per row instead: the scan types a member null in every record
 * VARCHAR, and Drill skips its nulls (`{"a": 1, "b": null}` is `[{a, 1}]`); a value there fails
 * the row with Drill's error. `where` is the call as written.
 */
case class DrillKvgen(child: Expression, where: String) extends UnaryExpression {

  override def sql: String = where

  override def prettyName: String = DrillKvgen.Name
  override def nullable: Boolean = false

  /** Struct members that can hold a value (an all-null NullType member never does). */
  @transient private lazy val typedFields: Seq[(StructField, Int)] = child.dataType match {
    case s: StructType => s.fields.toSeq.zipWithIndex.filter(_._1.dataType != NullType)
    case _ => Nil
  }

  /** The union of the members' map types, when every member is a map and they differ. */
  @transient private lazy val mapUnion: Option[StructType] = {
    val members = typedFields.map(f => DrillKvgen.asNullable(f._1.dataType))
    if (members.distinct.size < 2 || !members.forall(_.isInstanceOf[StructType])) None
    else members.foldLeft(Option(new StructType()))((u, m) => u.flatMap(DrillKvgen.union(_, m.asInstanceOf[StructType])))
  }

  /** Per member, its value as the union's map (members it lacks null), when there is a union. */
  @transient private lazy val reshapers: Seq[Any => Any] =
    mapUnion.map(u => typedFields.map(f => DrillKvgen.reshaper(f._1.dataType, u))).getOrElse(Nil)

  @transient lazy val valueType: DataType = child.dataType match {
    case _: StructType if mapUnion.isDefined => mapUnion.get
    case _: StructType =>
      // the first member that is not text, else the first: a text member may be all nulls
      val first = typedFields.find(!_._1.dataType.isInstanceOf[StringType]).orElse(typedFields.headOption)
      first.map(f => DrillKvgen.asNullable(f._1.dataType)).getOrElse(StringType)
    case m: MapType => m.valueType
    case VariantType => VariantType
    case _ => StringType // a null map: no members, VARCHAR like Drill's untyped default
  }

  override def dataType: DataType = ArrayType(
    new StructType().add("key", StringType, nullable = false).add("value", valueType, nullable = true),
    containsNull = false)

  /** Text members beside a value type that is not text: only their nulls are read. */
  @transient private lazy val nullOnly: Set[Int] =
    typedFields.collect { case (f, i) if DrillKvgen.asNullable(f.dataType) != valueType && f.dataType.isInstanceOf[StringType] => i }.toSet

  private def valueDrillType: String = DrillTypeNames.minorType(valueType)

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case _: StructType if mapUnion.isDefined => TypeCheckSuccess
    case _: StructType =>
      val first = typedFields.find(f => DrillKvgen.asNullable(f._1.dataType) == valueType).map(_._1)
      typedFields.filterNot(f => nullOnly(f._2)).map(_._1).find(f => DrillKvgen.asNullable(f.dataType) != valueType) match {
        case Some(f) => TypeCheckFailure(DrillErrors.heterogeneousMessage(
          f.name, DrillTypeNames.minorType(f.dataType), DrillTypeNames.minorType(first.get.dataType)))
        case None => TypeCheckSuccess
      }
    case MapType(StringType, _, _) | VariantType | NullType => TypeCheckSuccess
    case MapType(k, _, _) =>
      TypeCheckFailure(s"kvgen function only supports maps with VARCHAR keys, got ${DrillTypeNames.minorType(k)} keys")
    case other =>
      TypeCheckFailure(s"kvgen function only supports Simple maps as input, got ${DrillTypeNames.minorType(other)}")
  }

  private def entry(key: UTF8String, value: Any): InternalRow = new GenericInternalRow(Array[Any](key, value))

  override def eval(input: InternalRow): Any = {
    val v = child.eval(input)
    if (v == null) return new GenericArrayData(Array.empty[Any])
    child.dataType match {
      case _: StructType =>
        val row = v.asInstanceOf[InternalRow]
        new GenericArrayData(typedFields.zipWithIndex.collect {
          case ((f, i), j) if !row.isNullAt(i) =>
            if (nullOnly(i)) throw DrillErrors.kvgenHeterogeneous(where, f.name, DrillTypeNames.minorType(f.dataType), valueDrillType)
            val value = row.get(i, f.dataType)
            entry(UTF8String.fromString(f.name), if (reshapers.isEmpty) value else reshapers(j)(value))
        }.toArray[Any])
      case m: MapType =>
        val map = v.asInstanceOf[MapData]
        val (keys, values) = (map.keyArray(), map.valueArray())
        new GenericArrayData((0 until map.numElements()).collect {
          case i if !values.isNullAt(i) => entry(keys.getUTF8String(i), values.get(i, m.valueType))
        }.toArray[Any])
      case VariantType => DrillKvgen.variantEntries(v.asInstanceOf[VariantVal], where)
      case _ => new GenericArrayData(Array.empty[Any])
    }
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val c = child.genCode(ctx)
    val arrayClass = classOf[GenericArrayData].getName
    val rowClass = classOf[GenericInternalRow].getName
    val (buf, k) = (ctx.freshName("buf"), ctx.freshName("k"))
    val fill: String = child.dataType match {
      case _: StructType =>
        val keys = ctx.addReferenceObj("kvgenKeys",
          typedFields.map(f => UTF8String.fromString(f._1.name)).toArray, "org.apache.spark.unsafe.types.UTF8String[]")
        val errors = DrillErrors.getClass.getName.stripSuffix("$")
        val members = typedFields.zipWithIndex.map { case ((f, ordinal), _) if nullOnly(ordinal) =>
          val (w, name) = (ctx.addReferenceObj("where", where, "java.lang.String"), ctx.addReferenceObj("field", f.name, "java.lang.String"))
          s"""if (!${c.value}.isNullAt($ordinal)) {
             |  throw $errors.kvgenHeterogeneous($w, $name, "${DrillTypeNames.minorType(f.dataType)}", "$valueDrillType");
             |}""".stripMargin
        case ((f, ordinal), j) =>
          val boxed = FlattenLists.box(f.dataType, CodeGenerator.getValue(c.value, f.dataType, ordinal.toString))
          val value = if (reshapers.isEmpty) boxed
            else s"((scala.Function1) ${ctx.addReferenceObj("reshape", reshapers(j), "scala.Function1")}).apply($boxed)"
          s"""if (!${c.value}.isNullAt($ordinal)) {
             |  $buf[$k++] = new $rowClass(new Object[]{$keys[$j], $value});
             |}""".stripMargin
        }
        s"""Object[] $buf = new Object[${typedFields.size}];
           |int $k = 0;
           |${members.mkString("\n")}
           |${ev.value} = new $arrayClass(java.util.Arrays.copyOf($buf, $k));""".stripMargin
      case m: MapType =>
        val (keysArr, valuesArr, i) = (ctx.freshName("keys"), ctx.freshName("values"), ctx.freshName("i"))
        val arrayData = classOf[ArrayData].getName
        s"""$arrayData $keysArr = ${c.value}.keyArray();
           |$arrayData $valuesArr = ${c.value}.valueArray();
           |Object[] $buf = new Object[${c.value}.numElements()];
           |int $k = 0;
           |for (int $i = 0; $i < ${c.value}.numElements(); $i++) {
           |  if ($valuesArr.isNullAt($i)) continue;
           |  $buf[$k++] = new $rowClass(new Object[]{$keysArr.getUTF8String($i),
           |    ${FlattenLists.box(m.valueType, CodeGenerator.getValue(valuesArr, m.valueType, i))}});
           |}
           |${ev.value} = new $arrayClass(java.util.Arrays.copyOf($buf, $k));""".stripMargin
      case VariantType =>
        val w = ctx.addReferenceObj("where", where, "java.lang.String")
        s"${ev.value} = ${DrillKvgen.getClass.getName.stripSuffix("$")}.variantEntries(${c.value}, $w);"
      case _ => s"${ev.value} = new $arrayClass(new Object[0]);"
    }
    val arrayData = classOf[ArrayData].getName
    ev.copy(code = code"""
      ${c.code}
      $arrayData ${ev.value};
      if (${c.isNull}) {
        ${ev.value} = new $arrayClass(new Object[0]);
      } else {
        $fill
      }""", isNull = org.apache.spark.sql.catalyst.expressions.codegen.FalseLiteral)
  }

  override protected def withNewChildInternal(newChild: Expression): DrillKvgen = copy(child = newChild)
}

object DrillKvgen {
  val Name = "drill_kvgen"
  val Alias = "drill_mappify"

  private def usage = "_FUNC_(map) - Drill's KVGEN: an array of {key, value} structs, one per " +
    "non-null member of the struct, map or VARIANT object `map`, in field order. A null map " +
    "gives an empty array; members of different types are an error (except in a VARIANT)."

  private def examples = """
    Examples:
      > SELECT _FUNC_(named_struct('a', 1, 'b', CAST(NULL AS INT), 'c', 3));
       [{"key":"a","value":1},{"key":"c","value":3}]
  """

  private def describe(name: String): DrillFunctions.Description =
    DrillFunctions.describe(name, classOf[DrillKvgen].getName, usage, examples = examples,
      group = "collection_funcs") { args =>
      DrillFunctions.arity(name, args, 1)
      DrillKvgen(args.head, s"$name(${args.head.sql})")
    }

  val description: DrillFunctions.Description = describe(Name)
  val aliasDescription: DrillFunctions.Description = describe(Alias)

  /** The type with every nested field, element and value nullable (Drill ignores modes here). */
  def asNullable(dt: DataType): DataType = dt match {
    case s: StructType => StructType(s.fields.map(f => f.copy(dataType = asNullable(f.dataType), nullable = true)))
    case a: ArrayType => ArrayType(asNullable(a.elementType), containsNull = true)
    case m: MapType => MapType(asNullable(m.keyType), asNullable(m.valueType), valueContainsNull = true)
    case other => other
  }

  /** Two maps' members together (a member of both: the union of its two map types, its one
   * type when they agree), or None when a member's types differ otherwise. */
  def union(x: StructType, y: StructType): Option[StructType] =
    y.fields.foldLeft(Option(x.fields.toSeq.map(f => f.name -> f.dataType))) { (acc, f) =>
      acc.flatMap { fields =>
        val merged: Option[DataType] = (fields.find(_._1 == f.name).map(_._2), f.dataType) match {
          case (None, t) => Some(t)
          case (Some(have), t) if have == t || t == NullType => Some(have)
          case (Some(NullType), t) => Some(t)
          case (Some(have: StructType), t: StructType) => union(have, t)
          case _ => None
        }
        merged.map { t =>
          if (fields.exists(_._1 == f.name)) fields.map(p => if (p._1 == f.name) p._1 -> t else p)
          else fields :+ (f.name -> t)
        }
      }
    }.map(fields => StructType(fields.map { case (n, t) => StructField(n, t, nullable = true) }))

  /** A value of type `from` as the union map type `to`: members it lacks null, a null stays
   * null; rows are rebuilt by member name. */
  def reshaper(from: DataType, to: DataType): Any => Any = (from, to) match {
    case (NullType, _) => _ => null
    case (f: StructType, t: StructType) =>
      val members: Array[InternalRow => Any] = t.fields.map { tf =>
        f.fieldNames.indexOf(tf.name) match {
          case i if i >= 0 =>
            val (dt, r) = (f.fields(i).dataType, reshaper(f.fields(i).dataType, tf.dataType))
            (row: InternalRow) => if (row.isNullAt(i)) null else r(row.get(i, dt))
          case _ => (_: InternalRow) => null
        }
      }
      v => if (v == null) null else {
        val row = v.asInstanceOf[InternalRow]
        new GenericInternalRow(members.map(_(row)))
      }
    case _ => identity
  }

  /** Entries of a VARIANT object; a variant null gives none, a non-object is Drill's error. */
  def variantEntries(v: VariantVal, where: String): ArrayData = {
    DrillVariant.kind(v) match {
      case DrillVariant.Object =>
        new GenericArrayData(DrillVariant.nonNullFields(v).map { case (key, value) =>
          new GenericInternalRow(Array[Any](UTF8String.fromString(key), value))
        }.toArray[Any])
      case DrillVariant.Null => new GenericArrayData(Array.empty[Any])
      case _ => throw DrillErrors.kvgenNotMap(where, DrillTypeNames.variantMinorType(v))
    }
  }
}
