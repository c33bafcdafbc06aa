"""The Scala compiler's gate (tools/build_jar.py, jvm/scalac.options): unused code and the lint
checks that pay are errors, except what jvm/scalac-warnings-allowed.txt lists, and an entry
there that no warning matches any more fails the build, so the list only shrinks. (The compile
itself runs in `make jar` / test_jvm_units.py; here the options and the allowance check.)"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build_jar  # noqa: E402

SOURCES = sorted((ROOT / "jvm" / "src").rglob("*.scala"))
ROW_FILTER = ROOT / "jvm/src/main/scala/drillspark/source/RowFilter.scala"
WORKSPACES = ROOT / "jvm/src/main/scala/drillspark/catalog/WorkspacePaths.scala"


# an allowance of the shape the file takes (the real list may be empty: every warning an error)
SOURCE_ALLOWANCE = build_jar.AllowedWarning("jvm/src/main/scala/drillspark/source/.*")


def test_warnings_are_errors_except_the_allowed_ones(monkeypatch):
    monkeypatch.setattr(build_jar, "allowed_warnings", lambda: [SOURCE_ALLOWANCE])
    options = build_jar.scalac_options()
    assert "-Wunused:_" in options
    assert any(o.startswith("-Xlint:") for o in options)
    errors = options.index("-Wconf:any:e")
    allowed = [i for i, o in enumerate(options) if o.startswith("-Wconf:src=")]
    # the last matching -Wconf wins: each allowance comes after `any:e`
    assert allowed and min(allowed) > errors
    assert options[options.index("-rootdir") + 1] == str(ROOT)


def test_build_sbt_reads_the_same_files():
    sbt = (ROOT / "build.sbt").read_text()
    assert 'fileEntries("jvm/scalac.options")' in sbt
    assert 'fileEntries("jvm/scalac-warnings-allowed.txt")' in sbt
    assert "scalacOptions ++= drillsparkScalacOptions" in sbt
    assert '"-unchecked"' not in sbt  # no second list of options


def test_every_allowance_names_existing_sources():
    paths = [str(s.relative_to(ROOT)) for s in SOURCES]
    for entry in build_jar.allowed_warnings():
        assert any(re.fullmatch(entry.path, p) for p in paths), entry


def test_an_allowance_no_warning_matches_fails_the_build(monkeypatch):
    monkeypatch.setattr(build_jar, "allowed_warnings", lambda: [SOURCE_ALLOWANCE])
    source_entry = SOURCE_ALLOWANCE
    covered = [s for s in SOURCES if re.fullmatch(source_entry.path, str(s.relative_to(ROOT)))]
    warned = [
        f"{ROW_FILTER}:170: warning: return statement uses an exception to pass control",
        "      if (i < 0) return None",
    ]
    build_jar.check_allowances(warned, covered)  # matched: fine
    with pytest.raises(SystemExit, match="match no warning any more; remove them"):
        build_jar.check_allowances(["4 warnings"], covered)
    # an allowance whose files were not compiled in this run is not judged by it
    build_jar.check_allowances([], [WORKSPACES])
