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
    // RFC 3986 section 5.2, as Python's urljoin (java.net.URI.resolve is RFC 2396's)
    val b = "https://h.com/a/b?x=1"
    for ((ref, want) <- Seq("?page=2" -> "https://h.com/a/b?page=2", "" -> b, "#f" -> s"$b#f",
        "../../../c" -> "https://h.com/c", "./c/./d/../e" -> "https://h.com/a/c/e", "/x/../y?q" -> "https://h.com/y?q",
        "//o.com/p" -> "https://o.com/p", "http://x/a/./b/../c" -> "http://x/a/c", ".." -> "https://h.com/",
        "c/.." -> "https://h.com/a/", "g;x?y#s" -> "https://h.com/a/g;x?y#s"))
      c.equal(HttpUrls.join(b, ref), want, s"join '$ref'")
    c.equal(HttpUrls.join("http://h.com#frag", ""), "http://h.com", "the base without its fragment")
    c.equal(HttpUrls.join("http://h.com", "p"), "http://h.com/p", "against a base of no path")
    // RFC 3986 5.4's normal examples
    val rfc = "http://a/b/c/d;p?q"
    for ((ref, want) <- Seq("g" -> "http://a/b/c/g", "./g" -> "http://a/b/c/g", "g/" -> "http://a/b/c/g/",
        "/g" -> "http://a/g", "?y" -> "http://a/b/c/d;p?y", "g?y" -> "http://a/b/c/g?y", "#s" -> "http://a/b/c/d;p?q#s",
        ";x" -> "http://a/b/c/;x", "." -> "http://a/b/c/", "./" -> "http://a/b/c/", ".." -> "http://a/b/",
        "../g" -> "http://a/b/g", "../.." -> "http://a/", "../../g" -> "http://a/g", "../../../g" -> "http://a/g",
        "/./g" -> "http://a/g", "g." -> "http://a/b/c/g.", "..g" -> "http://a/b/c/..g", "g/../h" -> "http://a/b/c/h"))
      c.equal(HttpUrls.join(rfc, ref), want, s"RFC 3986 5.4: '$ref'")
    for (bad <- Seq("http://h/a b", "http://h/a|b", "http://h/a\"b", "http://h/{x}", "http://h/a^b", "http://h/a`b",
        "http://h/%zz"))
      c.check(!HttpUrls.wellFormed(bad), s"not well-formed: $bad")
    c.check(HttpUrls.wellFormed("http://u:p@h:1/a%20b?q=1&r=%2F#f"), "well-formed")
    def request(url: String, tail: String, headers: String = "{}") = HttpRequest.parse(
      s"""{"plugin": "api", "connection": "conn", "url": "$url", "requireTail": true, "tail": "$tail", """ +
        s""""headers": $headers}""")
    for (tail <- Seq("a b", "a|b", "{x}", "a^b", "a`b", "%zz")) {
      val r = request("http://bob:S3cretPw@h/v1/", tail)
      val message = try { r.url; "" } catch { case e: Exception => String.valueOf(e.getMessage) }
      c.check(message.contains(s"the table name `$tail`") && !message.contains("S3cretPw"),
        s"a table name making a malformed URL refused, naming it, never the password: $message")
    }
    c.fails("its url is not a well-formed URL (http://bob:*****@h/v 1/)", "a malformed url, masked")(
      request("http://bob:S3cretPw@h/v 1/", "x").url)
    c.fails("the value of header 'X-Key' holds a line break", "a header value with CR LF")(
      request("http://h/", "x", "{\"X-Key\": \"s3cret\\r\\nX-Evil: 1\"}").call)
    c.fails("'X Key' is not a valid HTTP header name", "a header name with a space")(
      request("http://h/", "x", "{\"X Key\": \"v\"}").call)
    val leak = try { request("http://h/", "x", "{\"X-Key\": \"s3cret\\nX\"}").call; "" }
      catch { case e: Exception => String.valueOf(e.getMessage) }
    c.check(!leak.contains("s3cret"), s"a bad header's value never shown: $leak")
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
