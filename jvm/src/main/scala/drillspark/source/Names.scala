package drillspark.source

/** Column names are case-insensitive, as in Drill; folded the way Spark's resolver compares
 * them (String.equalsIgnoreCase: code point by code point, upper case then lower case), so that
 * two names Spark takes for one column are one column here too ("s" and "ſ", "i" and "İ", "σ"
 * and "ς", Deseret's U+10400 and U+10428; String.toLowerCase keeps some of those apart, and
 * Spark then fails to resolve either). Checked for every code point by the JVM unit tests. */
object Names {
  def fold(name: String): String = {
    val out = new java.lang.StringBuilder(name.length)
    var i = 0
    while (i < name.length) {
      val cp = name.codePointAt(i)
      out.appendCodePoint(Character.toLowerCase(Character.toUpperCase(cp)))
      i += Character.charCount(cp)
    }
    out.toString
  }
}
