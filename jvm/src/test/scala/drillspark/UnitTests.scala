package drillspark

import drillspark.testkit.{Checks, Suite}

/**
 * Plain-JVM unit tests of the extension's pieces that need no Spark session: the byte
 * scanner's UTF-8 and SWAR checks, the key index, name folding, option parsing, schema
 * discovery (byte path against the Jackson path), hostile JSON (deep, wide, invalid UTF-8),
 * the column writers' conversions (both input paths), workspace confinement, the text
 * reader's field split and the texts CAST reads as numbers and dates. Run by
 * tests/foundation/test_jvm_units.py (`make test`); `tools/build_jar.py --tests` builds them.
 */
object UnitTests {
  val suites: Seq[Suite] = Seq(
    source.input.Utf8Suite, source.bytes.SwarSuite, source.bytes.KeyIndexSuite, source.NamesSuite,
    source.DrillOptionsSuite, source.discovery.DiscoverySuite, source.discovery.HostileJsonSuite,
    source.write.ConversionsSuite, catalog.WorkspacePathsSuite, catalog.PluginSecretsSuite, records.HttpUrlsSuite,
    formats.text.TextSplitSuite, functions.CastTextSuite)

  def main(args: Array[String]): Unit = {
    val chosen = if (args.isEmpty) suites else suites.filter(s => args.contains(s.name))
    var failed = 0
    var passed = 0
    for (s <- chosen) {
      val c = new Checks(s.name)
      try s.run(c) catch { case e: Throwable => c.failures += s"suite stopped: $e" }
      passed += c.passed
      failed += c.failures.size
      println(s"${s.name}: ${c.passed} passed, ${c.failures.size} failed")
      c.failures.take(20).foreach(f => println(s"  FAIL $f"))
    }
    println(s"jvm unit tests: $passed passed, $failed failed")
    sys.exit(if (failed == 0) 0 else 1)
  }
}
