package org.apache.spark.sql.drillspark.compat

import java.util.concurrent.{CancellationException, ConcurrentHashMap, ExecutionException, Executors, FutureTask}
import java.util.concurrent.atomic.AtomicLong

import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, SparkContext, SparkEnv, SparkException, TaskContext, TaskContextImpl, TaskKilledException}
import org.apache.spark.memory.TaskMemoryManager
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions.{CodegenObjectFactoryMode, PlanExpression}
import org.apache.spark.sql.classic.Dataset
import org.apache.spark.sql.connector.read.SupportsReportStatistics
import org.apache.spark.sql.execution.{SparkPlan, SQLExecution}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.util.{AccumulatorContext, AccumulatorV2, Utils}

/**
 * A small statement's one task run for the thread that collects it, without a Spark job (#37).
 *
 * A BI chart over a file of a few hundred records is one task of a few milliseconds' work; the
 * job around it cost more: the DAG scheduler's events, the task set's bookkeeping, the result's
 * serialization, the listener bus and the status store (docs/performance.md, "A small
 * statement's task run where it is collected"). Spark 1.x did the same for `take`
 * (`spark.localExecution.enabled`).
 *
 * Only where nothing is lost by it: a local master (the driver is where the task would run), a
 * plan whose every input is a scan of this extension's files in one input partition of a
 * reported size at most `maxBytes`, with no exchange (no other job's output is read), no union,
 * no subquery and no Python. The task is what Spark ships: the RDD serialized and read back, so
 * it shares no state with the plan (a kept reader factory keeps its reader, an operator its
 * sorter: tasks never share them, each reads its own copy). Its metrics are merged and posted as
 * a task's are, so Spark's UI and the server's profiles show them for the statement's SQL
 * execution. A run holds no job for `SparkContext.cancelJobGroup` or `cancelJobsWithTag` to
 * cancel, so those who cancel call `cancel` too (a small input can still make a long run: a
 * FLATTEN of a FLATTEN). Where its session says so (`interpreted`, the default), the task builds
 * its projections, orderings and predicates interpreted (Spark's `NO_CODEGEN` factory mode, in
 * the task's SQL conf): a hash aggregate's key and buffer projections, a sort's ordering, each
 * built again in every task, cost more to generate than a small input's rows take through
 * them; the stage's own generated code stays.
 */
object LocalPartitionRun {

  /** Attempt ids of the runs here: negative, so never those of Spark's tasks. */
  private val attempts = new AtomicLong(0L)

  /** The runs in progress: each one's task, with its context, job group and job tags. */
  private val running = new ConcurrentHashMap[FutureTask[_], (TaskContextImpl, Set[String])]()

  /** Cancels the runs of the job group or job tag `key` for `reason`: each one's caller fails at
   * once, as a cancelled job's does, and its task stops at its next check, as a cancelled task
   * does (its thread interrupted, as Spark's `interruptOnCancel`). */
  def cancel(key: String, reason: String): Unit =
    running.forEach { (task, entry) =>
      val (context, keys) = entry
      if (keys.contains(key)) {
        context.markInterrupted(reason)
        task.cancel(true)
      }
    }

  private val Refused = Seq("Exchange", "QueryStage", "Adaptive", "Union", "Python", "Pandas", "Subquery")

  /** Whether `plan`'s one partition can run in the collecting thread (above). */
  private def fits(sc: SparkContext, plan: SparkPlan, maxBytes: Long): Boolean =
    maxBytes > 0 && sc.isLocal && SparkEnv.get != null && plan.find(p => !allowed(p, maxBytes)).isEmpty

  private def allowed(p: SparkPlan, maxBytes: Long): Boolean = p match {
    case s: BatchScanExec => small(s, maxBytes)
    case _ if p.children.isEmpty => false // another leaf: a query stage, a relation of unknown cost
    case _ =>
      val name = p.getClass.getSimpleName
      // an exchange reads another job's output, a union is several partitions, Python (every
      // operator of Spark's `python` package) needs its workers, a subquery its own job
      !Refused.exists(name.contains) && !p.getClass.getName.contains(".python.") &&
        !p.expressions.exists(_.exists(_.isInstanceOf[PlanExpression[_]]))
  }

  /** A scan of this extension's files (not a record plugin's: a database, a broker or an HTTP
   * API answers at its own pace) whose reported size is at most `maxBytes`. */
  private def small(s: BatchScanExec, maxBytes: Long): Boolean = {
    val names = Seq(s.scan.getClass.getName, s.table.getClass.getName)
    val ours = names.exists(n => n.startsWith("drillspark.") || n.startsWith("org.apache.spark.sql.drillspark.")) &&
      !names.exists(_.startsWith("drillspark.records."))
    ours && s.runtimeFilters.isEmpty && s.inputPartitions.length == 1 && (s.scan match {
      case r: SupportsReportStatistics =>
        val n = r.estimateStatistics().sizeInBytes()
        n.isPresent && n.getAsLong <= maxBytes
      case _ => false
    })
  }

  /**
   * The rows of the one partition of `rdd`, run in this thread as its task would run: a copy of
   * the RDD and its functions as a task gets them (serialized and read back, so the run shares no
   * state with the plan, which later runs and other threads use: a kept reader factory, an
   * operator's sorter), its context, memory and completion; then its metrics merged and posted
   * as a task's are. A failure fails as a job's does (the task's error its cause). None if `rdd`
   * is not one partition of narrow steps only (an operator may shuffle inside its own `execute`,
   * which needs a job for its map side): the caller runs its job.
   */
  def rows[T: ClassTag](plan: SparkPlan, rdd: RDD[T]): Option[Array[T]] =
    Option.when(runsHere(plan, rdd))(run(rdd, OnePartitionCollect.interpreted(plan.session))((_, items) => items.toArray))

  /** Whether `rdd`, made of `plan`'s rows, runs here: `plan` reads a small input (up to its
   * session's limit, OnePartitionCollect.localBytes) and `rdd` is one partition of narrow steps
   * only (above). */
  def runsHere(plan: SparkPlan, rdd: RDD[_]): Boolean =
    fits(rdd.sparkContext, plan, OnePartitionCollect.localBytes(plan.session)) &&
      rdd.partitions.length == 1 && narrow(rdd)

  /** `runsHere` for `rdd`, made of `df`'s executed plan (its Arrow batches). */
  def runsHere(df: DataFrame, rdd: RDD[_]): Boolean =
    runsHere(df.asInstanceOf[Dataset[_]].queryExecution.executedPlan, rdd)

  private def narrow(rdd: RDD[_]): Boolean = rdd.dependencies.forall {
    case d: NarrowDependency[_] => narrow(d.rdd)
    case _ => false
  }

  /** `f` of the one partition of `rdd`, made of `df`'s executed plan, run here (`runsHere`). */
  def run[T, U](df: DataFrame, rdd: RDD[T])(f: (TaskContext, Iterator[T]) => U): U =
    run(rdd, OnePartitionCollect.interpreted(df.asInstanceOf[Dataset[_]].sparkSession))(f)

  /** `f` of the one partition of `rdd` (one that `runsHere`), run as its task would run
   * (above; its objects `interpreted` or generated), in a thread of this object's while the
   * calling thread waits: a cancel (`cancel`) ends the wait at once, as a cancelled job's does,
   * while the task stops at its next check (a columnar scan checks once per batch, so a run
   * that makes many rows of few input rows would otherwise hold its caller until it ends). */
  private def run[T, U](rdd: RDD[T], interpreted: Boolean)(f: (TaskContext, Iterator[T]) => U): U = {
    val sc = rdd.sparkContext
    val env = SparkEnv.get
    val serializer = env.closureSerializer.newInstance()
    // as the DAG scheduler ships a task: its RDD, whose lineage `narrow` walked (an RDD keeps
    // its dependencies once asked, and is read back without the parents they were made from),
    // and its partition (an RDD read back has none)
    val shipped = serializer.serialize((rdd, rdd.partitions(0)))
    val attempt = attempts.decrementAndGet()
    val memory = new TaskMemoryManager(env.memoryManager, attempt)
    val properties = Utils.cloneProperties(sc.getLocalProperties) // a task's SQL conf reads them
    if (interpreted) properties.setProperty(SQLConf.CODEGEN_FACTORY_MODE.key, CodegenObjectFactoryMode.NO_CODEGEN.toString)
    val context = new TaskContextImpl(stageId = -1, stageAttemptNumber = 0, partitionId = 0, taskAttemptId = attempt,
      attemptNumber = 0, numPartitions = 1, taskMemoryManager = memory,
      localProperties = properties, metricsSystem = env.metricsSystem)
    val tags = Option(sc.getLocalProperty(SparkContext.SPARK_JOB_TAGS)).toSeq
      .flatMap(_.split(SparkContext.SPARK_JOB_TAGS_SEP)).filter(_.nonEmpty)
    val keys = (tags ++ Option(sc.getLocalProperty(SparkContext.SPARK_JOB_GROUP_ID))).toSet
    val loader = Thread.currentThread.getContextClassLoader // the session's jars
    val task = new FutureTask[U](() => {
      Thread.currentThread.setContextClassLoader(loader)
      env.blockManager.registerTask(attempt) // a broadcast's value is read under the task's lock
      TaskContext.setTaskContext(context) // read back under it: the copy's metrics are the task's
      try {
        val (copy, partition) = serializer.deserialize[(RDD[T], Partition)](shipped,
          Utils.getContextOrSparkClassLoader)
        val out = f(context, copy.iterator(partition, context))
        context.markTaskCompleted(None)
        out
      } catch {
        case e: Throwable =>
          Utils.tryLogNonFatalError(context.markTaskFailed(e))
          Utils.tryLogNonFatalError(context.markTaskCompleted(Some(e)))
          throw e
      } finally {
        memory.cleanUpAllAllocatedMemory()
        env.blockManager.releaseAllLocksForTask(attempt)
        TaskContext.unset()
        Utils.tryLogNonFatalError(report(sc, context))
      }
    })
    running.put(task, (context, keys))
    try {
      threads.execute(task)
      task.get()
    } catch {
      case _: CancellationException => throw cancelled(context.getKillReason().getOrElse("cancelled"))
      case e: ExecutionException => e.getCause match {
        case k: TaskKilledException => throw cancelled(k.reason, k)
        case c => throw new SparkException(
          "Job aborted due to stage failure: Task 0 failed (run where it is collected): " +
            Utils.exceptionString(c), c)
      }
    } finally running.remove(task)
  }

  private val threadIds = new AtomicLong(0L)

  /** The threads runs' tasks run in: daemons (a cancelled run still computing holds no exit). */
  private val threads = Executors.newCachedThreadPool { (r: Runnable) =>
    val t = new Thread(r, s"drillspark-local-run-${threadIds.incrementAndGet()}")
    t.setDaemon(true)
    t
  }

  private def cancelled(reason: String, cause: Throwable = null): SparkException =
    new SparkException(s"Job cancelled (run where it is collected): $reason", cause)

  /** The run's accumulator updates, as the DAG scheduler takes a task's: merged into the
   * originals, and the SQL metrics posted for the statement's SQL execution (Spark's UI and the
   * server's profiles show them). */
  private def report(sc: SparkContext, context: TaskContextImpl): Unit = {
    val updates = context.taskMetrics.withExternalAccums(_.toList).filterNot(_.isZero)
    updates.foreach(u => AccumulatorContext.get(u.id).foreach(_.asInstanceOf[AccumulatorV2[Any, Any]].merge(u.asInstanceOf[AccumulatorV2[Any, Any]])))
    val execution = context.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)
    if (execution != null) {
      val metrics = updates.collect { case m: SQLMetric => (m.id, m.value) }
      if (metrics.nonEmpty) SQLMetrics.postDriverMetricsUpdatedByValue(sc, execution, metrics)
      // no job names the execution: the server's profiles find it by the statement's job group
      SqlExecutions.ranWithoutJob(context.getLocalProperty(SparkContext.SPARK_JOB_GROUP_ID), execution.toLong)
    }
  }
}
