package drillspark.formats.logs

import nl.basjes.parse.useragent.UserAgentAnalyzer

/**
 * httpd's `parseUserAgent`: the fields Yauaa (nl.basjes.parse.useragent, the analyzer Drill
 * 1.22's httpd plugin runs, same version) finds in a User-Agent header, named as Drill names
 * them (`AgentNameVersionMajor` -> `agent__name__version__major`: a capital starts a word,
 * then every `_` is doubled, Drill's escape of its parser's own `_`). One analyzer per JVM,
 * built the first time a scan asks for one of these columns: building it reads Yauaa's
 * rules, seconds of CPU and ~150 MB of heap, so a scan that reads no agent column never pays.
 */
private[logs] object HttpdUserAgents {
  @volatile private var built: UserAgentAnalyzer = _

  def analyzer: UserAgentAnalyzer = {
    if (built == null) synchronized {
      if (built == null) built = UserAgentAnalyzer.newBuilder().hideMatcherLoadStats().dropTests()
        .withCache(10000).immediateInitialization().build()
    }
    built
  }

  /** Yauaa 7.19.2's fields (its getAllPossibleFieldNamesSorted), listed here so that planning
   * a scan needs no analyzer; tests/formats/test_httpd_more.py checks them against Drill's. */
  val fields: Seq[String] = Seq("DeviceClass", "DeviceName", "DeviceBrand", "DeviceCpu", "DeviceCpuBits",
    "DeviceFirmwareVersion", "DeviceVersion", "OperatingSystemClass", "OperatingSystemName", "OperatingSystemVersion",
    "OperatingSystemVersionMajor", "OperatingSystemNameVersion", "OperatingSystemNameVersionMajor",
    "OperatingSystemVersionBuild", "LayoutEngineClass", "LayoutEngineName", "LayoutEngineVersion",
    "LayoutEngineVersionMajor", "LayoutEngineNameVersion", "LayoutEngineNameVersionMajor", "LayoutEngineBuild",
    "AgentClass", "AgentName", "AgentVersion", "AgentVersionMajor", "AgentNameVersion", "AgentNameVersionMajor",
    "AgentBuild", "AgentLanguage", "AgentLanguageCode", "AgentInformationEmail", "AgentInformationUrl",
    "AgentSecurity", "AgentUuid", "WebviewAppName", "WebviewAppVersion", "WebviewAppVersionMajor",
    "WebviewAppNameVersion", "WebviewAppNameVersionMajor", "FacebookCarrier", "FacebookDeviceClass",
    "FacebookDeviceName", "FacebookDeviceVersion", "FacebookFBOP", "FacebookFBSS", "FacebookOperatingSystemName",
    "FacebookOperatingSystemVersion", "RemarkablePattern", "HackerAttackVector", "HackerToolkit", "KoboAffiliate",
    "KoboPlatformId", "IECompatibilityVersion", "IECompatibilityVersionMajor", "IECompatibilityNameVersion",
    "IECompatibilityNameVersionMajor", "Carrier", "FederatedSocialNetwork", "GSAInstallationID", "NetworkType",
    "__SyntaxError__")

  /** The column suffixes of a parsed agent (after `request_user-agent`). */
  lazy val suffixes: Seq[(String, String)] = fields.map(f => f -> s"_${column(f)}")

  /** The field whose value is a URL: Drill's parser splits it as it splits a URI. */
  val UrlField = "AgentInformationUrl"

  def column(field: String): String = {
    val b = new StringBuilder
    var i = 0
    while (i < field.length) {
      val c = field.charAt(i)
      if (c.isUpper) {
        if (i > 0 && field.charAt(i - 1) != '_') b += '_'
        b += c.toLower
      } else b += c
      i += 1
    }
    b.toString.replace("_", "__")
  }
}
