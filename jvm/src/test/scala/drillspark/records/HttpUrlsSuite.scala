package drillspark.records

import java.nio.charset.StandardCharsets

import drillspark.testkit.{Checks, Suite}

/** The http read's URL rules (the one same-host rule, query strings written as the pinned
 * requests were, a password masked), the next page in a response header, and a JSON page cut
 * at a paginator's maxRecords. */
object HttpUrlsSuite extends Suite {
  val name = "http-urls"

  def run(c: Checks): Unit = {
    val base = "http://127.0.0.1:8080"
    c.check(HttpUrls.sameHost(base + "/", base + "/x.json?a=1"), "a path on the same host")
    for (tail <- Seq(".evil.example/x", "@evil.example/x", ":1/x"))
      c.check(!HttpUrls.sameHost(base, base + tail), s"a tail leading elsewhere: $tail")
    c.check(!HttpUrls.sameHost(base + "/", "https://127.0.0.1:8080/"), "another scheme")
    c.check(HttpUrls.sameHost("HTTP://h/", "http://h/x"), "a scheme in another case")
    c.equal(HttpUrls.withQuery(base + "/s", Seq("q" -> "a b&c", "n" -> "5")), base + "/s?q=a+b%26c&n=5",
      "parameters as urlencode writes them")
    c.equal(HttpUrls.withQuery(base + "/s?x=1", Seq("q" -> "~*")), base + "/s?x=1&q=~%2A", "after a query")
    c.equal(HttpUrls.withParam(base + "/s?max=1&offset=0&limit=2", "max", "3"), base + "/s?offset=0&limit=2&max=3",
      "a parameter replaced, last")
    c.equal(HttpUrls.shown("http://u:pw@h:1/x"), "http://u:*****@h:1/x", "a URL's password masked")
    c.equal(HttpUrls.origin("http://u:pw@h:1/x"), "http://u:*****@h:1", "an origin, masked")
    c.equal(HttpUrls.join(base + "/a/b?x=1", "c?y=2"), base + "/a/c?y=2", "a relative next page")
    c.equal(HttpPages.headerNext("<http://h/2>; rel=\"next\", <http://h/1>; rel=\"first\""), Some("http://h/2"),
      "Link's rel=next")
    c.equal(HttpPages.headerNext("<http://h/1>; rel=\"first\", <http://h/3>; rel=\"next\""), Some("http://h/3"),
      "rel=next not first")
    c.equal(HttpPages.headerNext("<http://h/1>; rel=\"prev\""), None, "no next link")
    c.equal(HttpPages.headerNext(" http://h/9 "), Some("http://h/9"), "a header holding the URL alone")
    val page = "{\"results\": [{\"n\": 1}, {\"n\": 2}, {\"n\": 3}], \"more\": true}".getBytes(StandardCharsets.UTF_8)
    val (kept, records) = DataPath.select("p", page, "results", 2)
    c.equal(records, 3, "the page's records counted whole")
    val text = new String(kept, StandardCharsets.UTF_8)
    c.check(text.contains("{\"n\": 2}") && !text.contains("{\"n\": 3}") && text.trim.endsWith("]"), s"cut after 2: $text")
    c.equal(kept.length, page.length, "bytes keep their places")
    c.equal(new String(HttpPages.withoutBlankLines("a\n \n\nb\n".getBytes(StandardCharsets.UTF_8)),
      StandardCharsets.UTF_8), "a\nb", "blank CSV lines dropped")
  }
}
