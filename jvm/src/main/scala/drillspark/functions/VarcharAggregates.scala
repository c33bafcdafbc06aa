package drillspark.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.catalyst.trees.UnaryLike
import org.apache.spark.sql.catalyst.util.CollationFactory
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import drillspark.BoundedAggregateState

/** A group's text so far in `drill_max_varchar`, `drill_min_varchar`, `drill_any_varchar`: its
 * own copy, or null. */
final class KeptText(var text: UTF8String)

/**
 * Which text a `drill_*_varchar` aggregate keeps: its name, Drill's function, and whether a new
 * text `s` replaces the group's `kept` one (not null). Objects, so a plan's expression (which
 * Spark serializes to its tasks) carries the rule by reference.
 */
sealed abstract class VarcharKeep(val name: String, val drillName: String, val what: String, val example: String)
    extends Serializable {
  def replaces(s: UTF8String, kept: UTF8String): Boolean
}

object VarcharKeep {
  case object Greatest extends VarcharKeep("drill_max_varchar", "MAX", "the greatest text of the group by its bytes", "b") {
    def replaces(s: UTF8String, kept: UTF8String): Boolean = s.binaryCompare(kept) > 0
  }
  case object Least extends VarcharKeep("drill_min_varchar", "MIN", "the least text of the group by its bytes", "ab") {
    def replaces(s: UTF8String, kept: UTF8String): Boolean = s.binaryCompare(kept) < 0
  }
  /** Drill's ANY_VALUE of a VARCHAR keeps the first text it reads that is not NULL (of other
   * types the last: Drill 1.22, asked 2026-12-07); a merge keeps the earlier partial's. */
  case object First extends VarcharKeep("drill_any_varchar", "ANY_VALUE", "the first text of the group read that is not NULL", "b") {
    def replaces(s: UTF8String, kept: UTF8String): Boolean = false
  }

  val all: Seq[VarcharKeep] = Seq(Greatest, Least, First)
}

/**
 * Drill's MAX, MIN and ANY_VALUE of a VARCHAR (`drill_max_varchar`, `drill_min_varchar`,
 * `drill_any_varchar`) as aggregates a hash map holds. Spark's own `max`, `min` and `first` keep
 * their value in an UnsafeRow buffer, which takes only fixed-width values, so over a string
 * Spark plans a sort aggregate: every row of a task sorted by its group before any is
 * aggregated. A typed imperative aggregate plans Spark's ObjectHashAggregate instead (which
 * turns to sorting only past `spark.sql.objectHashAggregate.sortBased.fallbackThreshold`
 * groups in one task). Texts compare by their bytes, as Spark's `max` of a UTF-8 binary string
 * does. NULL when a group has no text.
 */
case class DrillVarcharAggregate(child: Expression, keep: VarcharKeep, mutableAggBufferOffset: Int = 0,
    inputAggBufferOffset: Int = 0) extends TypedImperativeAggregate[KeptText] with UnaryLike[Expression]
    with BoundedAggregateState {

  override def prettyName: String = keep.name
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
    if (v != null) take(buffer, v.asInstanceOf[UTF8String], copy = true)
    buffer
  }

  override def merge(buffer: KeptText, input: KeptText): KeptText = {
    if (input.text != null) take(buffer, input.text, copy = false)
    buffer
  }

  private def take(buffer: KeptText, s: UTF8String, copy: Boolean): Unit =
    if (buffer.text == null || keep.replaces(s, buffer.text)) buffer.text = if (copy) s.copy() else s

  override def eval(buffer: KeptText): Any = buffer.text

  // one leading byte tells an empty text (1) from no text yet (the empty array)
  override def serialize(buffer: KeptText): Array[Byte] =
    if (buffer.text == null) Array.emptyByteArray else 1.toByte +: buffer.text.getBytes

  override def deserialize(bytes: Array[Byte]): KeptText =
    new KeptText(if (bytes.isEmpty) null else UTF8String.fromBytes(bytes, 1, bytes.length - 1))

  override def withNewMutableAggBufferOffset(o: Int): DrillVarcharAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): DrillVarcharAggregate = copy(inputAggBufferOffset = o)
  override protected def withNewChildInternal(c: Expression): DrillVarcharAggregate = copy(child = c)
}

object DrillVarcharAggregate {
  /** DESCRIBE FUNCTION's descriptions, one a rule (DrillSparkExtensions.functions). */
  val descriptions: Seq[DrillFunctions.Description] = VarcharKeep.all.map { keep =>
    DrillFunctions.describe(
      keep.name,
      classOf[DrillVarcharAggregate].getName,
      usage = s"_FUNC_(s) - Drill's ${keep.drillName} of a VARCHAR: ${keep.what}, NULL when it has none; " +
        "planned as a hash aggregate where Spark's own plans a sort.",
      examples = s"""
    Examples:
      > SELECT _FUNC_(col) FROM VALUES ('b'), ('ab'), (NULL) AS tab(col);
       ${keep.example}
  """,
      group = "agg_funcs") { args =>
      DrillFunctions.arity(keep.name, args, 1)
      DrillVarcharAggregate(args.head, keep)
    }
  }
}
