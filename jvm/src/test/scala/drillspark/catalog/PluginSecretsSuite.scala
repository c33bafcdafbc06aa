package drillspark.catalog

import drillspark.testkit.{Checks, Suite}

/** What a plugin catalog cuts out of its errors: the values of confs Spark's SET redacts by
 * name, a URL's password (`//user:pw@`, `password=`), longest first so a secret holding
 * another is cut whole; and Drill's rule for schema names (as spelt, else in another case). */
object PluginSecretsSuite extends Suite {
  val name = "plugin-secrets"

  def run(c: Checks): Unit = {
    val confs = Map(
      "url" -> "jdbc:postgresql://db:5432/shop?user=drill&password=p%40ss",
      "password" -> "hunter22",
      "secret.sasl.jaas.config" -> "x required username=\"u\" password=\"hush-pw\";",
      "prop.bootstrap.servers" -> "127.0.0.1:9092",
      "user" -> "drill")
    val found = PluginCatalog.secrets(confs).toSet
    c.check(found.contains("hunter22"), "a password conf")
    c.check(found.contains("p%40ss"), "a password= parameter of a URL")
    c.check(found.exists(_.contains("hush-pw")), "a secret.* conf")
    c.check(!found.contains("drill") && !found.contains("127.0.0.1:9092"), "plain confs are not secrets")
    // each form on its own, in confs whose names are not secret (so no whole value is cut)
    val encoded = PluginCatalog.secrets(Map("url" -> "jdbc:postgresql://db/shop?user=drill&password=p%40ss"))
    c.check(encoded.contains("p%40ss") && encoded.contains("p@ss"), s"a URL-encoded password, as written and decoded: $encoded")
    c.equal(PluginCatalog.scrub("FATAL: password p@ss refused", encoded), "FATAL: password ***** refused",
      "the decoded password cut")
    val userinfo = PluginCatalog.secrets(Map("url" -> "mongodb://u:p%40ss@127.0.0.1:1/"))
    c.check(userinfo.contains("p@ss"), s"a URI's URL-encoded user:password@, decoded: $userinfo")
    val jaas = PluginCatalog.secrets(Map("prop.sasl.jaas.config" -> "x required username=\"u\" password=\"hush-pw\";"))
    c.check(jaas.contains("hush-pw"), s"a quoted JAAS password's bare text: $jaas")
    c.equal(PluginCatalog.scrub("login hush-pw failed", jaas), "login ***** failed", "the bare JAAS password cut")
    val mongo = PluginCatalog.secrets(Map("url" -> "mongodb://u:hush-pw@127.0.0.1:1/?x=1"))
    c.equal(mongo, Seq("hush-pw"), "a URI's user:password@")
    val text = "login failed: password=p%40ss for hunter22 at mongodb://u:hush-pw@h"
    val cut = PluginCatalog.scrub(text, PluginCatalog.secrets(confs) ++ mongo)
    c.check(!cut.contains("p%40ss") && !cut.contains("hunter22") && !cut.contains("hush-pw"), s"scrubbed: $cut")
    c.equal(PluginCatalog.matching("SALES", Seq("public", "sales")), Some("sales"), "a schema in another case")
    c.equal(PluginCatalog.matching("Sales", Seq("sales", "Sales")), Some("Sales"), "as spelt first")
    c.equal(PluginCatalog.matching("nosuch", Seq("sales")), None, "no such schema")
  }
}
