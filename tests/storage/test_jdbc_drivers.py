"""tools/fetch_jdbc_drivers.py: PostgreSQL's JDBC driver and MariaDB Connector/J come from Maven
Central at build time (checked against pinned SHA-1s; the download code is
tools/pinned_jars.py's), land in the package's git-ignored jars/drivers/, and every session
drillspark configures has them on spark.jars. The fetches here read a local `file://`
repository with Maven Central's layout."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import drillspark
from drillspark.session import driver_jars, jar_path, spark_jars

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import fetch_jdbc_drivers as fjd  # noqa: E402
import pinned_jars  # noqa: E402


def test_the_pinned_drivers():
    assert [d.coordinates for d in fjd.DRIVERS] == [
        "org.postgresql:postgresql:42.7.14",
        "org.mariadb.jdbc:mariadb-java-client:3.5.11",
    ]
    assert fjd.DRIVERS[0].artifact_path == (
        "org/postgresql/postgresql/42.7.14/postgresql-42.7.14.jar"
    )
    assert [d.driver_class for d in fjd.DRIVERS] == [
        "org.postgresql.Driver",
        "org.mariadb.jdbc.Driver",
    ]
    # the Maven code is pinned_jars's, not a copy
    assert fjd.maven is pinned_jars and fjd.FetchError is pinned_jars.FetchError


def test_the_package_carries_them_and_sessions_load_them():
    assert fjd.is_current(fjd.DEST), "run `make setup` (tools/fetch_jdbc_drivers.py)"
    assert Path(jar_path()).parent / "drivers" == fjd.DEST
    jars = [Path(j).name for j in driver_jars()]
    assert jars == ["mariadb-java-client-3.5.11.jar", "postgresql-42.7.14.jar"]
    # the extension, the drivers, then other jars (Hadoop's S3A, the formats' libraries)
    assert spark_jars()[: 1 + len(driver_jars())] == [jar_path(), *driver_jars()]
    from pyspark.sql import SparkSession

    builder = drillspark.configure(SparkSession.Builder())
    assert builder._options["spark.jars"].split(",") == spark_jars()


def _repo(tmp_path: Path, driver: fjd.Driver, content: bytes, published: str | None = None):
    jar = tmp_path / "repo" / driver.artifact_path
    jar.parent.mkdir(parents=True)
    jar.write_bytes(content)
    (jar.parent / (jar.name + ".sha1")).write_text(
        (published or hashlib.sha1(content).hexdigest()) + "  " + jar.name
    )
    return (tmp_path / "repo").as_uri()


def test_fetch_checks_and_places_each_jar(tmp_path, monkeypatch):
    content = b"PK fake driver jar"
    driver = replace(fjd.DRIVERS[0], sha1=hashlib.sha1(content).hexdigest())
    monkeypatch.setattr(fjd.FOLDER, "jars", (driver,))
    monkeypatch.setenv("MAVEN_REPO_LOCAL", str(tmp_path / "no-m2"))
    repo = _repo(tmp_path, driver, content)
    dest = tmp_path / "drivers"
    (dest).mkdir()
    (dest / "postgresql-42.0.0.jar").write_bytes(b"old")  # another version of the driver
    (dest / "my-own.jar").write_bytes(b"mine")
    assert fjd.fetch(dest, repo, quiet=True)
    assert (dest / driver.jar_name).read_bytes() == content
    assert not (dest / "postgresql-42.0.0.jar").exists() and (dest / "my-own.jar").exists()
    assert fjd.is_current(dest)
    assert not fjd.fetch(dest, repo, quiet=True)  # nothing to do the second time


def test_fetch_refuses_a_jar_that_is_not_the_pinned_one(tmp_path, monkeypatch):
    driver = replace(fjd.DRIVERS[1], sha1="0" * 40)
    monkeypatch.setattr(fjd.FOLDER, "jars", (driver,))
    monkeypatch.setenv("MAVEN_REPO_LOCAL", str(tmp_path / "no-m2"))
    repo = _repo(tmp_path, driver, b"something else")
    with pytest.raises(fjd.FetchError, match="not the pinned driver"):
        fjd.fetch(tmp_path / "drivers", repo, quiet=True)
    assert not list((tmp_path / "drivers").glob("*.jar"))
