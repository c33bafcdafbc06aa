// sbt build of the same Scala sources `make jar` compiles (tools/build_jar.py).
// CI and `pip install` use the Makefile's offline build; this is for people who use sbt:
//   sbt package   ->  target/scala-2.13/drillspark-extension_2.13-<version>.jar

val drillsparkVersion = {
  val Version = """__version__ = "(.*)"""".r
  IO.readLines(file("python/drillspark/_version.py")).collectFirst { case Version(v) => v }
    .getOrElse(sys.error("no __version__ in python/drillspark/_version.py"))
}

val sparkVersion = "4.3.0"

// The compiler's options: the file tools/build_jar.py reads too (unused code and the lint checks
// that pay are errors), then one -Wconf per entry of the warnings still allowed. The stale-entry
// check of that list is build_jar's alone.
def fileEntries(name: String): Seq[String] =
  IO.readLines(file(name)).map(_.trim).filter(l => l.nonEmpty && !l.startsWith("#"))

val drillsparkScalacOptions: Seq[String] =
  fileEntries("jvm/scalac.options") ++ Seq("-rootdir", file(".").getCanonicalPath) ++
    fileEntries("jvm/scalac-warnings-allowed.txt").map { entry =>
      val (path, message) = entry.split(" \\| ", 2) match {
        case Array(p, m) => (p.trim, m.trim)
        case Array(p) => (p.trim, "")
      }
      val msg = if (message.isEmpty) "" else "&msg=^" + java.util.regex.Pattern.quote(message)
      s"-Wconf:src=$path$msg:w"
    }

// Spark's jars come from the pip-installed pyspark when there is one (`make setup` creates
// .venv; or point PYSPARK_JARS at any pyspark/jars folder): the same jars `make jar` compiles
// against, and the only source of 4.3 while Maven Central lags behind PyPI. Otherwise Spark is
// resolved from Maven Central as a "provided" dependency.
val pysparkJars: Option[File] =
  sys.env.get("PYSPARK_JARS").map(file)
    .orElse((file(".venv") / "lib" ** "site-packages" / "pyspark" / "jars").get.headOption)
    .filter(_.isDirectory)

ThisBuild / scalaVersion := "2.13.18"   // the Scala that pyspark 4.3 ships
ThisBuild / organization := "io.drillspark"

lazy val root = (project in file("."))
  .settings(
    name := "drillspark-extension",
    version := drillsparkVersion,
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Compile / javaSource := baseDirectory.value / "jvm" / "src" / "main" / "java",
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    scalacOptions ++= drillsparkScalacOptions,
    libraryDependencies ++= (if (pysparkJars.isDefined) Nil else Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % "provided",
      "org.apache.spark" %% "spark-catalyst" % sparkVersion % "provided"
    )),
    Compile / unmanagedJars ++= pysparkJars.toSeq.flatMap(dir => (dir * "*.jar").classpath),
    // the format readers' libraries (Apache POI, ...): `python tools/fetch_format_jars.py` puts
    // them there, as `make setup` does
    Compile / unmanagedJars ++= (baseDirectory.value / "python" / "drillspark" / "jars" / "formats" * "*.jar").classpath,
    // The Drill rules both sides read from one table (python/drillspark/rules/*.tsv), under
    // drillspark/rules/ in the jar as tools/build_jar.py packs them.
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "drillspark" / "rules"
      (baseDirectory.value / "python" / "drillspark" / "rules" * "*.tsv").get.map { table =>
        IO.copyFile(table, out / table.getName); out / table.getName
      }
    }.taskValue,
    // The version resource that BuildInfo reads (tools/build_jar.py writes the same file).
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "drillspark-version.properties"
      IO.write(out, s"version=${version.value}\n")
      Seq(out)
    }.taskValue
  )

// The benchmark mains (ReadBench, DiscoveryBench, TokenScan): built against the extension,
// never shipped with it (`tools/build_jar.py --bench` builds the same jar offline).
lazy val bench = (project in file("jvm/src/bench"))
  .dependsOn(root)
  .settings(
    name := "drillspark-bench",
    version := drillsparkVersion,
    Compile / scalaSource := baseDirectory.value / "scala",
    scalacOptions ++= drillsparkScalacOptions,
    Compile / unmanagedJars ++= pysparkJars.toSeq.flatMap(dir => (dir * "*.jar").classpath)
  )
