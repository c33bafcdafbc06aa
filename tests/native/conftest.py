"""The native protocol's tests with Drill's own clients: Drill's JDBC driver 1.22.0 (through
DrillJdbcProbe.java, compiled in memory by `java`) and sqlline 1.12.0, against a real `drillspark
serve` in this process (it shares the test session's SparkSession) on free loopback ports.

The jars are fetched at set-up (`make setup`: tools/fetch_drill_clients.py into
tests/native/jars/); the tests fetch nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.server.helpers import PASSWORDS, write_users  # noqa: F401 (PASSWORDS: the tests' logins)

from drillspark.server import DrillServer, Limits
from drillspark.server.auth import read_users

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import fetch_drill_clients  # noqa: E402  (the jars' names and folder)

PROBE = HERE / "DrillJdbcProbe.java"
JVM_FLAGS = [
    # Drill's driver patches protobuf and Guava classes by reflection (a warning without)
    "--add-opens",
    "java.base/java.lang=ALL-UNNAMED",
    f"-Dlogback.configurationFile={HERE / 'logback-quiet.xml'}",
    "-Duser.timezone=UTC",
]


@pytest.fixture(scope="session")
def client_jars() -> list[Path]:
    """Drill's JDBC driver and sqlline (with jline), as `make setup` fetched them."""
    jars = fetch_drill_clients.classpath()
    missing = [j.name for j in jars if not j.is_file()]
    if missing:
        pytest.fail(
            f"Drill's client jars are missing ({', '.join(missing)}): run `make setup` "
            "(or python tools/fetch_drill_clients.py)"
        )
    if shutil.which("java") is None:
        pytest.fail("java is not on PATH (make setup installs Java 17)")
    return jars


class Jdbc:
    """Runs DrillJdbcProbe.java: one connection, its steps in order, one JSON answer per step."""

    def __init__(self, jars: list[Path]):
        self.jars = jars

    def run(
        self, url: str, *steps: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> dict[str, Any]:
        cmd = ["java", *JVM_FLAGS, "-cp", str(self.jars[0]), str(PROBE), url, *steps]
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
        )
        answers: dict[str, Any] = {}
        for line in proc.stdout.splitlines():
            if line.startswith('{"step"'):
                answer = json.loads(line)
                answers[answer["step"]] = answer
        if "connect" not in answers:
            raise AssertionError(f"the probe did not run:\n{proc.stdout}\n{proc.stderr}")
        return answers

    def sqlline(self, url: str, script: str, *args: str, timeout: float = 300) -> str:
        """sqlline's output (CSV) for a script of statements and !commands."""
        cp = os.pathsep.join(str(j) for j in self.jars)
        proc = subprocess.run(
            [
                "java",
                *JVM_FLAGS,
                "-cp",
                cp,
                "sqlline.SqlLine",
                "-u",
                url,
                "--outputformat=csv",
                "--silent=true",
                *args,
                f"--run={script}",
            ],  # fmt: skip
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        return proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def jdbc(client_jars) -> Jdbc:
    return Jdbc(client_jars)


@pytest.fixture(scope="session")
def native_tmp(tmp_path_factory) -> Path:
    """The server's `tmp` workspace, with small files of the tests' own."""
    tmp = tmp_path_factory.mktemp("native-tmp")
    (tmp / "complex.json").write_text(
        '{"id":1,"m":{"k":1,"s":"a"},"arr":[1,2],"sa":["x","y"],"f":0.5}\n'
        '{"id":2,"m":{"k":2},"arr":[],"sa":[],"f":null}\n'
    )
    (tmp / "nested.json").write_text(
        '{"id":1,"objs":[{"a":1,"b":"x"},{"a":2,"b":null}],"nest":[[1,2],[3]],"tags":["p"]}\n'
        '{"id":2,"objs":[],"nest":[],"tags":[]}\n'
    )
    with open(tmp / "big.json", "w") as f:
        for i in range(10_000):
            f.write(json.dumps({"i": i, "s": f"row{i}"}) + "\n")
    with open(tmp / "huge.json", "w") as f:
        for i in range(300_000):
            f.write(json.dumps({"i": i, "s": f"row{i}"}) + "\n")
    return tmp


@pytest.fixture(scope="session")
def native_server(spark, shared, native_tmp):
    srv = DrillServer(
        spark,
        port=0,
        user_port=0,
        workspaces={"data": str(shared / "data"), "tmp": str(native_tmp)},
        limits=Limits(max_rows=500_000, max_seconds=300),
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def native_url(native_server) -> str:
    return f"jdbc:drill:drillbit=127.0.0.1:{native_server.native.port}"


@pytest.fixture(scope="session")
def native_auth_server(spark, shared, tmp_path_factory):
    path = write_users(tmp_path_factory.mktemp("native-users"))
    srv = DrillServer(
        spark,
        port=0,
        user_port=0,
        workspaces={"data": str(shared / "data")},
        users=read_users(path),
    )
    srv.start()
    yield srv
    srv.stop()
