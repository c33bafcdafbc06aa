package drillspark.source

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.types.{LongType, StringType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import drillspark.testkit.{Checks, Suite}

/** Parsing the `drill` source's options: sizes, booleans, counts, aliases, and an error naming
 * the option and the value for anything else. */
object DrillOptionsSuite extends Suite {
  val name = "options"

  private def opts(kv: (String, String)*): DrillOptions =
    DrillOptions(new CaseInsensitiveStringMap(kv.toMap.asJava))

  def run(c: Checks): Unit = {
    for ((text, bytes) <- Seq("262144" -> 262144L, "256k" -> 262144L, "16m" -> (16L << 20),
        "16MiB" -> (16L << 20), "16 MB" -> (16L << 20), "1g" -> (1L << 30), "2GB" -> (2L << 30)))
      c.equal(opts("batchBytes" -> text).batchBytes, bytes, s"batchBytes '$text'")
    c.fails("at least 256 KiB", "batchBytes below the minimum")(opts("batchBytes" -> "1k"))
    c.fails("must be a size in bytes", "batchBytes 'lots'")(opts("batchBytes" -> "lots"))
    c.fails("must be a size in bytes", "a size that overflows")(opts("batchBytes" -> "99999999999g"))
    c.fails("at least 1 byte", "splitBytes 0")(opts("splitBytes" -> "0"))
    c.equal(opts("maxSchemaDepth" -> "7").maxSchemaDepth, 7, "maxSchemaDepth")
    c.equal(opts().maxSchemaDepth, 100, "maxSchemaDepth by default")
    c.fails("maxSchemaDepth must be between 1 and 200, not 201", "maxSchemaDepth past what Spark can type")(
      opts("maxSchemaDepth" -> "201"))

    c.equal(opts("allTextMode" -> " TRUE ").allTextMode, true, "a boolean, any case, spaces")
    c.fails("must be true or false, not 'yes'", "a boolean 'yes'")(opts("nanInf" -> "yes"))
    c.equal(opts("skipMalformedJSONRecords" -> "true").skipInvalidRecords, true,
      "Drill's skipMalformedJSONRecords is skipInvalidRecords")
    c.equal(opts("skipInvalidRecords" -> "false", "skipMalformedJSONRecords" -> "true").skipInvalidRecords,
      false, "skipInvalidRecords wins over its alias")
    // Drill's other spellings come from the table the Python side reads too (rules/json_options.tsv)
    c.equal(opts("allowNanInf" -> "false").nanInf, false, "Drill's allowNanInf is nanInf")
    c.equal(opts("ALLOWESCAPEANYCHAR" -> "true").escapeAnyChar, true, "Drill's allowEscapeAnyChar, any case")
    c.equal(opts("nanInf" -> "true", "allowNanInf" -> "false").nanInf, true, "nanInf wins over its alias")

    c.equal(opts("batchRows" -> "100").batchRows, 100, "batchRows")
    c.fails("between 1 and 65536", "batchRows 0")(opts("batchRows" -> "0"))
    c.fails("must be a whole number, not '1k'", "a count with a size suffix")(opts("batchRows" -> "1k"))
    c.fails("between 1 and", "maxDepth 0")(opts("maxDepth" -> "0"))

    c.equal(opts("typeConflict" -> "Variant").typeConflict, TypeConflict.Variant, "typeConflict")
    c.fails("must be json, variant or error, not 'union'", "typeConflict union")(opts("typeConflict" -> "union"))
    c.equal(opts().nullType, StringType, "nullType default")
    c.equal(opts("nullType" -> "bigint").nullType, LongType, "nullType bigint")
    c.fails("option nullType 'blob' is not a type", "nullType blob")(opts("nullType" -> "blob"))
    c.fails("must be error or replace", "invalidUtf8 drop")(opts("invalidUtf8" -> "drop"))
    c.equal(opts("invalidUtf8" -> "REPLACE").replaceInvalidUtf8, true, "invalidUtf8 replace")

    c.equal(opts("type" -> "JSON").format, "json", "type is format")
    c.equal(opts("format" -> "csv", "type" -> "json").format, "csv", "format wins over type")
    c.fails("unknown option 'batchsize'", "an unknown option")(opts("batchSize" -> "1"))
    c.equal(opts("path" -> "/a", "paths" -> """["/b","/c"]""").paths, Seq("/a", "/b", "/c"), "path and paths")
    // options that change a discovered schema change the cache key; the others do not
    c.check(opts("allTextMode" -> "true").discoveryKey != opts().discoveryKey, "allTextMode not in the discovery key")
    c.equal(opts("batchRows" -> "7").discoveryKey, opts().discoveryKey, "batchRows in the discovery key")
  }
}
