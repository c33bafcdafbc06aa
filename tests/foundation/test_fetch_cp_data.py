"""tools/fetch_cp_data.py: Drill's sample data for `cp` comes from the artifact Drill 1.22 ships,
checked against its SHA-1, and lands whole in the package folder `cp` reads (or not at all).
The fetches here read a local `file://` repository with Maven Central's layout."""

from __future__ import annotations

import hashlib
import io
import re
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import fetch_cp_data as fcd  # noqa: E402
from drillspark.sql.session import default_cp_root  # noqa: E402


def test_the_artifact_is_the_one_drill_1_22_uses():
    # Drill 1.22.0's drill-java-exec resolves net.hydromatic:foodmart-data-json:0.4 (the jar in
    # the Drill oracle's lib folder, ../shared/tools/drill/setup.sh), whose Maven Central
    # .sha1 is this
    assert fcd.COORDINATES == "net.hydromatic:foodmart-data-json:0.4"
    assert fcd.SHA1 == "c2fd2c73b6a4594b442c008f6c9890860a05e040"
    assert fcd.artifact_path() == (
        "net/hydromatic/foodmart-data-json/0.4/foodmart-data-json-0.4.jar"
    )


def test_cp_reads_the_fetched_folder_and_it_is_complete():
    assert default_cp_root() == fcd.DEST
    assert fcd.is_current(fcd.DEST), "run `make setup` (tools/fetch_cp_data.py)"
    names = {p.name for p in fcd.DEST.glob("*.json")}
    assert {"employee.json", "department.json", "customer.json", "region.json"} <= names
    assert len(names) == 39  # every JSON file of the jar
    assert "Apache License" in (fcd.DEST / "META-INF" / "LICENSE").read_text()


def test_the_folder_is_git_ignored_and_shipped():
    assert "python/drillspark/cp/" in (ROOT / ".gitignore").read_text().splitlines()
    setup = (ROOT / "setup.py").read_text()
    assert '"cp/*.json"' in setup and "fetch_cp_data.fetch()" in setup
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^setup: .*\$\(CP_DATA\)", makefile, re.M)


def fake_jar(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


def repository(tmp_path: Path, jar: bytes, sha1: str) -> str:
    folder = tmp_path / "repo" / Path(fcd.artifact_path()).parent
    folder.mkdir(parents=True)
    (folder / fcd.jar_name()).write_bytes(jar)
    (folder / (fcd.jar_name() + ".sha1")).write_text(sha1)
    return (tmp_path / "repo").as_uri()


@pytest.fixture
def no_local_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("MAVEN_REPO_LOCAL", str(tmp_path / "m2"))


GOOD = {
    "employee.json": b'{"employee_id":1}\n',
    "department.json": b'{"department_id":1}\n',
    "META-INF/LICENSE": b"Apache License\n",
    "META-INF/NOTICE": b"notice\n",
    "META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n",
    "net/hydromatic/foodmart/data/json/FoodmartJson.class": b"\xca\xfe",
    "createTables.sql": b"",
    "../evil.json": b"{}",
    "sub/dir.json": b"{}",
}


def test_a_checked_jar_is_extracted_whole(tmp_path, monkeypatch, no_local_repository):
    jar = fake_jar(GOOD)
    sha1 = hashlib.sha1(jar).hexdigest()
    monkeypatch.setattr(fcd, "SHA1", sha1)
    dest = tmp_path / "cp"
    assert fcd.fetch(dest, repository(tmp_path, jar, sha1 + "  foodmart-data-json-0.4.jar"))
    files = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    assert files == [
        ".fetched",
        "META-INF/LICENSE",
        "META-INF/NOTICE",
        "department.json",
        "employee.json",
    ]
    assert not (tmp_path / "evil.json").exists()
    assert fcd.is_current(dest)
    assert not fcd.fetch(dest, "file:///nowhere")  # already there: nothing fetched
    (dest / "employee.json").write_text("cut")  # a changed file is fetched again
    assert not fcd.is_current(dest)
    assert fcd.fetch(dest, repository(tmp_path / "again", jar, sha1))
    assert (dest / "employee.json").read_bytes() == GOOD["employee.json"]


def test_a_published_checksum_that_is_not_drills_is_refused(tmp_path, no_local_repository):
    jar = fake_jar(GOOD)
    dest = tmp_path / "cp"
    with pytest.raises(fcd.FetchError, match="not the pinned artifact"):
        fcd.fetch(dest, repository(tmp_path, jar, hashlib.sha1(jar).hexdigest()))
    assert not dest.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["repo"]  # no scratch folder left


def test_a_jar_that_does_not_match_its_checksum_is_refused(tmp_path, no_local_repository):
    dest = tmp_path / "cp"
    # the repository publishes Drill's checksum, but serves another jar
    with pytest.raises(fcd.FetchError, match="a corrupt download"):
        fcd.fetch(dest, repository(tmp_path, fake_jar(GOOD), fcd.SHA1))
    assert not dest.exists()


def test_an_unreachable_repository_is_one_error(tmp_path, no_local_repository, capsys):
    code = fcd.main(["--dest", str(tmp_path / "cp"), "--repo", (tmp_path / "none").as_uri()])
    assert code == 1
    assert "fetch_cp_data: cannot download file://" in capsys.readouterr().err
    assert not (tmp_path / "cp").exists()
