package drillspark.source

/** Column names are case-insensitive, as in Drill; folded the way Spark's resolver compares
 * them (String.equalsIgnoreCase: char by char, upper case then lower case), so that two names
 * Spark takes for one column are one column here too ("s" and "ſ", "i" and "İ", "σ" and "ς";
 * String.toLowerCase keeps those apart, and Spark then fails to resolve either). */
object Names {
  def fold(name: String): String = {
    val out = new Array[Char](name.length)
    var i = 0
    while (i < out.length) { out(i) = Character.toLowerCase(Character.toUpperCase(name.charAt(i))); i += 1 }
    new String(out)
  }
}
