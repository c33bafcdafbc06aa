package drillspark

import java.util.Properties

/** Facts about the jar, written into it at build time (drillspark-version.properties). */
object BuildInfo {
  lazy val version: String = {
    val props = new Properties()
    val in = getClass.getClassLoader.getResourceAsStream("drillspark-version.properties")
    if (in == null) "unknown"
    else try { props.load(in); props.getProperty("version", "unknown") } finally in.close()
  }
}
