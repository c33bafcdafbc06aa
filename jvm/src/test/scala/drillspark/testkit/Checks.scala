package drillspark.testkit

import scala.collection.mutable.ArrayBuffer

/**
 * The JVM unit tests' assertions. pyspark's jars carry no test framework and the build needs
 * nothing else, so a suite is a plain object whose checks record here; [[drillspark.UnitTests]]
 * prints the failures and exits non-zero. A check names what it saw, so a failure reads alone.
 */
final class Checks(val suite: String) {
  var passed = 0
  val failures: ArrayBuffer[String] = ArrayBuffer()

  def check(cond: Boolean, what: => String): Unit =
    if (cond) passed += 1 else failures += what

  def equal[T](got: T, want: T, what: => String): Unit =
    check(got == want, s"$what: got $got, want $want")

  /** `body` must throw, with `part` in its message. */
  def fails(part: String, what: => String)(body: => Any): Unit = {
    val outcome = try { body; None } catch { case e: Throwable => Some(e) }
    outcome match {
      case None => failures += s"$what: no error, want one saying '$part'"
      case Some(e) if String.valueOf(e.getMessage).contains(part) => passed += 1
      case Some(e) => failures += s"$what: error '${e.getMessage}' does not say '$part'"
    }
  }
}

/** One suite: a name and the checks it runs. */
trait Suite {
  def name: String
  def run(c: Checks): Unit
}
