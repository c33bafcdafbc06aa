"""The Flight SQL tests with real clients: ADBC's Flight SQL driver (adbc-driver-flightsql, its
DBAPI) and the Arrow Flight SQL JDBC driver 18.3.0 (driven by the native tests' plain JDBC
program, tests/native/DrillJdbcProbe.java, compiled in memory by `java`), against a real
`drillspark serve` in this process (sharing the test session's SparkSession) with its Flight SQL
port on a free loopback port.

The JDBC driver's jar is fetched at set-up (`make setup`: tools/fetch_flight_clients.py into
tests/flight/jars/); the tests fetch nothing."""

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
import fetch_flight_clients  # noqa: E402  (the jar's name and folder)

PROBE = ROOT / "tests" / "native" / "DrillJdbcProbe.java"  # any JDBC driver's probe
JVM_FLAGS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",  # Arrow's memory on Java 17
    "-Duser.timezone=UTC",
    "-Djava.util.logging.config.file=/dev/null",
]
MAX_ROWS = 200_000


@pytest.fixture(scope="session")
def flight_tmp(tmp_path_factory) -> Path:
    """The server's `tmp` workspace, with small files of the tests' own."""
    tmp = tmp_path_factory.mktemp("flight-tmp")
    (tmp / "complex.json").write_text(
        '{"id":1,"m":{"k":1,"s":"a"},"arr":[1,2],"f":0.5,"t":"2021-03-04 05:06:07"}\n'
        '{"id":2,"m":{"k":2},"arr":[],"f":null,"t":null}\n'
    )
    with open(tmp / "big.json", "w") as f:
        for i in range(MAX_ROWS + 1):
            f.write(json.dumps({"i": i, "s": f"row{i}"}) + "\n")
    return tmp


@pytest.fixture(scope="session")
def flight_server(spark, shared, flight_tmp):
    srv = DrillServer(
        spark,
        port=0,
        flight_port=0,
        workspaces={"data": str(shared / "data"), "tmp": str(flight_tmp)},
        limits=Limits(max_rows=MAX_ROWS, max_seconds=300),
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def flight_auth_server(spark, shared, tmp_path_factory):
    path = write_users(tmp_path_factory.mktemp("flight-users"))
    srv = DrillServer(
        spark,
        port=0,
        flight_port=0,
        workspaces={"data": str(shared / "data")},
        users=read_users(path),
    )
    srv.start()
    yield srv
    srv.stop()


def adbc_connect(server: DrillServer, **db_kwargs: str) -> Any:
    import adbc_driver_flightsql.dbapi as flightsql

    return flightsql.connect(server.flight.uri, db_kwargs=db_kwargs or None, autocommit=True)


@pytest.fixture
def adbc(flight_server):
    conn = adbc_connect(flight_server)
    yield conn
    conn.close()


class Jdbc:
    """Runs the JDBC probe with the Flight SQL JDBC driver: one connection, its steps in order,
    one JSON answer per step."""

    def __init__(self, jar: Path):
        self.jar = jar

    def run(
        self, port: int, *steps: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> dict[str, Any]:
        url = f"jdbc:arrow-flight-sql://127.0.0.1:{port}/?useEncryption=false"
        cmd = ["java", *JVM_FLAGS, "-cp", str(self.jar), str(PROBE), url, *steps]
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


@pytest.fixture(scope="session")
def jdbc() -> Jdbc:
    jar = fetch_flight_clients.classpath()[0]
    if not jar.is_file():
        pytest.fail(
            f"the Flight SQL JDBC driver is missing ({jar.name}): run `make setup` "
            "(or python tools/fetch_flight_clients.py)"
        )
    if shutil.which("java") is None:
        pytest.fail("java is not on PATH (make setup installs Java 17)")
    return Jdbc(jar)
