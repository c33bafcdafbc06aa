"""Name folding has one owner, the extension's `Names.fold` (jvm/.../source/Names.scala: two
names are one column when Spark's resolver takes them for one); drillspark.names.fold is the
Python side's copy for code that has no JVM at hand (the plan translator's column lookup). This
asks the JVM for the fold of every code point (a plain `java`, no Spark) and compares."""

from __future__ import annotations

import os
import subprocess
import unicodedata
from pathlib import Path

import pytest

from drillspark.names import fold
from drillspark.session import jar_path

# Prints `F cp fold` for each code point Names.fold changes and `U cp` for each the JVM's
# Unicode does not define (its version may be older or newer than Python's).
DUMP = """
public class FoldDump {
  public static void main(String[] args) {
    StringBuilder out = new StringBuilder();
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      if (!Character.isDefined(cp)) { out.append("U ").append(cp).append('\\n'); continue; }
      String s = new String(Character.toChars(cp));
      String f = drillspark.source.Names.fold(s);
      if (!f.equals(s)) out.append("F ").append(cp).append(' ').append(f.codePointAt(0)).append('\\n');
    }
    System.out.print(out);
  }
}
"""


@pytest.fixture(scope="module")
def jvm_folds(tmp_path_factory) -> tuple[dict[int, str], set[int]]:
    import pyspark

    source = tmp_path_factory.mktemp("fold") / "FoldDump.java"
    source.write_text(DUMP)
    java = Path(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    classpath = os.pathsep.join([jar_path(), str(Path(pyspark.__file__).parent / "jars" / "*")])
    out = subprocess.run(
        [str(java), "-cp", classpath, str(source)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    folds: dict[int, str] = {}
    undefined: set[int] = set()
    for line in out.splitlines():
        kind, *numbers = line.split()
        if kind == "F":
            folds[int(numbers[0])] = chr(int(numbers[1]))
        else:
            undefined.add(int(numbers[0]))
    return folds, undefined


def test_python_folds_every_code_point_as_the_jvm(jvm_folds):
    folds, undefined = jvm_folds
    assert len(folds) > 1000  # the dump ran (ASCII alone gives 26)
    wrong = [
        f"U+{cp:04X}: JVM {folds.get(cp, chr(cp))!r}, Python {fold(chr(cp))!r}"
        for cp in range(0x110000)
        if not 0xD800 <= cp <= 0xDFFF
        and cp not in undefined
        and unicodedata.category(chr(cp)) != "Cn"  # defined in both Unicode versions
        and fold(chr(cp)) != folds.get(cp, chr(cp))
    ]
    assert wrong == []


@pytest.mark.parametrize(
    "a, b, one",
    [
        ("Payload", "PAYLOAD", True),
        ("s", "ſ", True),  # str.lower() keeps these apart
        ("i", "İ", True),
        ("σ", "ς", True),
        ("Straße", "STRASSE", False),  # one character to two is no simple mapping
        ("a", "b", False),
    ],
)
def test_names_that_are_one(a, b, one):
    # the pairs the JVM unit test (NamesSuite) checks against String.equalsIgnoreCase
    assert (fold(a) == fold(b)) is one
