package drillspark.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.catalyst.trees.UnaryLike
import org.apache.spark.sql.catalyst.util.CollationFactory
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/** A group's text so far in `drill_max_varchar`, `drill_min_varchar`, `drill_any_varchar`: its
 * own copy, or null. */
final class KeptText(var text: UTF8String)

/**
 * Drill's MAX, MIN and ANY_VALUE of a VARCHAR as aggregates a hash map holds. Spark's own
 * `max`, `min` and `last` keep their value in an UnsafeRow buffer, which takes only fixed-width
 * values, so over a string Spark plans a sort aggregate: every row of a task sorted by its
 * group before any is aggregated. A typed imperative aggregate plans Spark's
 * ObjectHashAggregate instead (which turns to sorting only past
 * `spark.sql.objectHashAggregate.sortBased.fallbackThreshold` groups in one task). Texts compare
 * by their bytes, as Spark's `max` of a UTF-8 binary string does.
 */
abstract class DrillVarcharAggregate extends TypedImperativeAggregate[KeptText] with UnaryLike[Expression] {

  /** Whether the text `s` replaces the group's `kept` one (not null). */
  protected def replaces(s: UTF8String, kept: UTF8String): Boolean

  override def dataType: DataType = child.dataType
  override def nullable: Boolean = true

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case s: StringType if s.collationId == CollationFactory.UTF8_BINARY_COLLATION_ID => TypeCheckResult.TypeCheckSuccess
    case other => TypeCheckResult.TypeCheckFailure(
      s"$prettyName takes a UTF-8 binary string, not ${other.catalogString}")
  }

  override def createAggregationBuffer(): KeptText = new KeptText(null)

  override def update(buffer: KeptText, input: InternalRow): KeptText = {
    val v = child.eval(input)
    // the input's text may be a view of a reader's reused bytes: a replacement is copied
    if (v != null) keep(buffer, v.asInstanceOf[UTF8String], copy = true)
    buffer
  }

  override def merge(buffer: KeptText, input: KeptText): KeptText = {
    if (input.text != null) keep(buffer, input.text, copy = false)
    buffer
  }

  private def keep(buffer: KeptText, s: UTF8String, copy: Boolean): Unit =
    if (buffer.text == null || replaces(s, buffer.text)) buffer.text = if (copy) s.copy() else s

  override def eval(buffer: KeptText): Any = buffer.text

  // one leading byte tells an empty text (1) from no text yet (the empty array)
  override def serialize(buffer: KeptText): Array[Byte] =
    if (buffer.text == null) Array.emptyByteArray else 1.toByte +: buffer.text.getBytes

  override def deserialize(bytes: Array[Byte]): KeptText =
    new KeptText(if (bytes.isEmpty) null else UTF8String.fromBytes(bytes, 1, bytes.length - 1))
}

/** `drill_max_varchar(s)`: the greatest text of a group, NULL when it has none. */
case class DrillMaxVarchar(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends DrillVarcharAggregate {
  override protected def replaces(s: UTF8String, kept: UTF8String): Boolean = s.binaryCompare(kept) > 0
  override def prettyName: String = DrillMaxVarchar.Name
  override def withNewMutableAggBufferOffset(o: Int): DrillMaxVarchar = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): DrillMaxVarchar = copy(inputAggBufferOffset = o)
  override protected def withNewChildInternal(c: Expression): DrillMaxVarchar = copy(child = c)
}

/** `drill_min_varchar(s)`: the least text of a group, NULL when it has none. */
case class DrillMinVarchar(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends DrillVarcharAggregate {
  override protected def replaces(s: UTF8String, kept: UTF8String): Boolean = s.binaryCompare(kept) < 0
  override def prettyName: String = DrillMinVarchar.Name
  override def withNewMutableAggBufferOffset(o: Int): DrillMinVarchar = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): DrillMinVarchar = copy(inputAggBufferOffset = o)
  override protected def withNewChildInternal(c: Expression): DrillMinVarchar = copy(child = c)
}

/** `drill_any_varchar(s)`: the last text of a group that is not NULL, as Drill's ANY_VALUE keeps
 * the last one it reads; NULL when it has none. */
case class DrillAnyVarchar(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends DrillVarcharAggregate {
  override protected def replaces(s: UTF8String, kept: UTF8String): Boolean = true
  override def prettyName: String = DrillAnyVarchar.Name
  override def withNewMutableAggBufferOffset(o: Int): DrillAnyVarchar = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): DrillAnyVarchar = copy(inputAggBufferOffset = o)
  override protected def withNewChildInternal(c: Expression): DrillAnyVarchar = copy(child = c)
}

object DrillMaxVarchar {
  val Name = "drill_max_varchar"

  val description: DrillFunctions.Description = VarcharAggregates.describe(Name, "MAX",
    "the greatest text of the group by its bytes", classOf[DrillMaxVarchar].getName, "b")(DrillMaxVarchar(_))
}

object DrillMinVarchar {
  val Name = "drill_min_varchar"

  val description: DrillFunctions.Description = VarcharAggregates.describe(Name, "MIN",
    "the least text of the group by its bytes", classOf[DrillMinVarchar].getName, "ab")(DrillMinVarchar(_))
}

object DrillAnyVarchar {
  val Name = "drill_any_varchar"

  val description: DrillFunctions.Description = VarcharAggregates.describe(Name, "ANY_VALUE",
    "the last text of the group read that is not NULL", classOf[DrillAnyVarchar].getName, "ab")(DrillAnyVarchar(_))
}

private object VarcharAggregates {
  def describe(name: String, drillName: String, what: String, className: String, answer: String)(
      build: Expression => Expression): DrillFunctions.Description =
    DrillFunctions.describe(
      name,
      className,
      usage = s"_FUNC_(s) - Drill's $drillName of a VARCHAR: $what, NULL when it has none; " +
        "planned as a hash aggregate where Spark's own plans a sort.",
      examples = s"""
    Examples:
      > SELECT _FUNC_(col) FROM VALUES ('b'), ('ab'), (NULL) AS tab(col);
       $answer
  """,
      group = "agg_funcs") { args =>
      DrillFunctions.arity(name, args, 1)
      build(args.head)
    }
}
