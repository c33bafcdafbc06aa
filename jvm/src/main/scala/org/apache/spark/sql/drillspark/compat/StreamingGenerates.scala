package org.apache.spark.sql.drillspark.compat

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, GenerateExec, SortExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.exchange.Exchange
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

/**
 * Physical rule: a FLATTEN (Spark's Generate) whose generated code would hold a record's whole
 * output at once runs row by row instead.
 *
 * Whole-stage generated code hands its rows on through a buffer that its loops drain only where
 * they check `shouldStop`, and Spark's Generate loops over a record's array without that check:
 * all the rows one input record makes are buffered before the first moves on. That is as many
 * rows as its array has elements, harmless, until the rows grow with the array: FLATTENs nested
 * in one stage buffer the product of their arrays (three over one record of 3,000 elements, 27
 * billion rows: the driver JVM ran out of memory and died), and a FLATTEN that carries an array
 * or map on along each row (the array it flattens, for a FLATTEN after it) buffers the square of
 * its size. Such a Generate runs as Spark runs it without generated code: it asks its input for
 * a row only when the rows of the one before have moved on, the memory of one record's array. A
 * FLATTEN carrying only scalars, the common one, keeps its generated code. `enabled` is read per
 * plan (a Spark conf: a session can turn it off to compare). (In compat: Spark's physical plans.)
 */
final case class StreamingGenerates(enabled: () => Boolean) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = if (!enabled()) plan else plan.transformUp {
    case g: GenerateExec if g.generator.supportCodegen && (carriesGrowing(g) || generateBelow(g.child)) =>
      StreamingGenerateExec(g)
  }

  private def carriesGrowing(g: GenerateExec): Boolean = g.requiredChildOutput.exists(a => grows(a.dataType))

  private def grows(t: DataType): Boolean = t match {
    case _: ArrayType | _: MapType => true
    case s: StructType => s.fields.exists(f => grows(f.dataType))
    case _ => false
  }

  /** Whether a Generate with generated code may run in the same generated loop under `p`: the
   * nodes between pass each row on as it comes (an aggregate, a sort or an exchange takes all
   * its input before it hands on a row, and a streaming Generate is not in generated code). */
  private def generateBelow(p: SparkPlan): Boolean = p match {
    case _: GenerateExec => true
    case _: StreamingGenerateExec | _: BaseAggregateExec | _: SortExec | _: Exchange => false
    case other => other.children.exists(generateBelow)
  }
}

object StreamingGenerates {

  /** The rule as Spark's columnar-rule hook takes it: that hook runs on every physical plan (a
   * plan without exchanges too), before Spark fuses its operators into generated code. */
  def hook(enabled: () => Boolean): ColumnarRule = new ColumnarRule {
    override def preColumnarTransitions: Rule[SparkPlan] = StreamingGenerates(enabled)
  }
}

/** `generate` run without generated code (StreamingGenerates); EXPLAIN shows it after this
 * node's name, and its metrics are the profile's. */
final case class StreamingGenerateExec(generate: GenerateExec) extends UnaryExecNode {

  override def child: SparkPlan = generate.child

  override def output: Seq[Attribute] = generate.output

  override def producedAttributes: AttributeSet = generate.producedAttributes

  override def outputPartitioning: Partitioning = generate.outputPartitioning

  override def outputOrdering: Seq[SortOrder] = generate.outputOrdering

  override lazy val metrics: Map[String, SQLMetric] = generate.metrics

  override protected def doExecute(): RDD[InternalRow] = generate.execute()

  override def simpleString(maxFields: Int): String = s"$nodeName ${generate.simpleString(maxFields)}"

  override protected def doCanonicalize(): SparkPlan = StreamingGenerateExec(generate.canonicalized.asInstanceOf[GenerateExec])

  override protected def withNewChildInternal(newChild: SparkPlan): StreamingGenerateExec =
    copy(generate = generate.withNewChildren(Seq(newChild)).asInstanceOf[GenerateExec])
}
