package drillspark.functions

import org.apache.spark.sql.catalyst.expressions.Explode
import org.apache.spark.sql.catalyst.plans.logical.{Generate, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreePattern.GENERATE

/**
 * Optimizer rule: a resolved drill_flatten is Spark's `explode` over the array its builder
 * prepared (Drill's empty/null/missing rules are explode's). Handing the optimizer a real
 * `Explode` gives drill_flatten everything Spark does for explode, notably pruning nested
 * fields through the generator (GeneratorNestedColumnAliasing only knows Explode), so a
 * `drill_flatten(a).x` reads only `a.x` from Parquet or the drill source.
 */
object FlattenAsExplode extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan =
    plan.transformUpWithPruning(_.containsPattern(GENERATE)) {
      case g @ Generate(f: DrillFlatten, _, _, _, _, _) => g.copy(generator = Explode(f.child))
    }
}
