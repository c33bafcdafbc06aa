"""tools/fetch_drill_clients.py: Drill's JDBC driver and sqlline for these tests come from Maven
Central, each checked against its pinned SHA-1 and the repository's `.sha1`, and are written
whole or not at all. The fetches here read a local `file://` repository with Maven Central's
layout."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import fetch_drill_clients as fdc  # noqa: E402


def _repo(tmp_path: Path, content: bytes, published: str | None = None) -> tuple[str, fdc.Jar]:
    jar = fdc.Jar("org.example", "client", "1.0", hashlib.sha1(content).hexdigest())
    where = tmp_path / "repo" / Path(jar.path).parent
    where.mkdir(parents=True)
    (where / jar.name).write_bytes(content)
    (where / (jar.name + ".sha1")).write_text(published or jar.sha1)
    return (tmp_path / "repo").as_uri(), jar


def test_the_pinned_clients():
    names = [j.coordinates for j in fdc.JARS]
    assert names[:2] == ["org.apache.drill.exec:drill-jdbc-all:1.22.0", "sqlline:sqlline:1.12.0"]
    assert fdc.DEST == ROOT / "tests" / "native" / "jars"
    assert fdc.JARS[0].path == (
        "org/apache/drill/exec/drill-jdbc-all/1.22.0/drill-jdbc-all-1.22.0.jar"
    )


def test_fetch_checks_and_keeps(tmp_path, monkeypatch):
    url, jar = _repo(tmp_path, b"a jar")
    monkeypatch.setattr(fdc.FOLDER, "jars", (jar,))
    monkeypatch.setenv("MAVEN_REPO_LOCAL", str(tmp_path / "no-m2"))
    dest = tmp_path / "jars"
    assert fdc.fetch(dest, url, quiet=True)
    assert (dest / jar.name).read_bytes() == b"a jar"
    assert fdc.is_current(dest)
    assert not fdc.fetch(dest, url, quiet=True)  # already there


def test_a_wrong_checksum_is_refused(tmp_path, monkeypatch):
    url, jar = _repo(tmp_path, b"a jar", published="0" * 40)
    monkeypatch.setattr(fdc.FOLDER, "jars", (jar,))
    monkeypatch.setenv("MAVEN_REPO_LOCAL", str(tmp_path / "no-m2"))
    dest = tmp_path / "jars"
    with pytest.raises(fdc.maven.FetchError, match="not|expected|says"):
        fdc.fetch(dest, url, quiet=True)
    assert not (dest / jar.name).exists() and not fdc.is_current(dest)
