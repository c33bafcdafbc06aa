package drillspark.source

import drillspark.testkit.{Checks, Suite}

/** `Names.fold` folds two names alike exactly when Spark's case-insensitive resolver
 * (String.equalsIgnoreCase) takes them for one column: checked for every character pair that
 * folds alike, for the known tricky pairs and for supplementary characters (surrogate pairs). */
object NamesSuite extends Suite {
  val name = "names"

  private def str(cp: Int): String = new String(Character.toChars(cp))

  def run(c: Checks): Unit = {
    // every code point, BMP and supplementary: grouped by fold, a group is one name to Spark
    val groups = (0 to Character.MAX_CODE_POINT).iterator
      .filterNot(cp => cp >= 0xD800 && cp <= 0xDFFF)
      .map(cp => (Names.fold(str(cp)), cp)).toSeq.groupBy(_._1)
    var wrong = 0
    for ((folded, members) <- groups; (_, cp) <- members.tail) {
      val head = members.head._2
      if (!str(head).equalsIgnoreCase(str(cp))) {
        wrong += 1
        if (wrong <= 10) c.check(false, f"U+$head%04X and U+$cp%04X fold alike ('$folded') but Spark tells them apart")
      }
    }
    c.check(wrong == 0, s"$wrong code points fold like a name Spark tells apart")
    // the other way: equalsIgnoreCase partners (upper, lower, title case forms) fold alike
    var split = 0
    for (cp <- 0 to Character.MAX_CODE_POINT if cp < 0xD800 || cp > 0xDFFF) {
      val partners = Seq(Character.toUpperCase(cp), Character.toLowerCase(cp), Character.toTitleCase(cp))
      for (p <- partners if str(cp).equalsIgnoreCase(str(p)) && Names.fold(str(cp)) != Names.fold(str(p))) {
        split += 1
        if (split <= 10) c.check(false, f"U+$cp%04X and U+$p%04X are one name to Spark but fold apart")
      }
    }
    c.check(split == 0, s"$split pairs Spark takes for one name fold apart")
    for ((a, b) <- Seq("s" -> "ſ", "i" -> "İ", "σ" -> "ς", "ǅ" -> "ǆ", "Straße" -> "STRASSE", "Straße" -> "STRAßE"))
      c.equal(Names.fold(a) == Names.fold(b), a.equalsIgnoreCase(b), s"fold('$a') vs fold('$b')")
    c.equal(Names.fold("Payload.PULL_Request"), "payload.pull_request", "an ASCII name")
  }
}
