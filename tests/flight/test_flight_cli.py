"""`drillspark serve --flight-port` as a real process: off by default, `0` takes a free port
and the start names its grpc:// URI, ADBC's Flight SQL driver runs a statement on it, and a
SIGTERM stops the server (the Flight listener with it) with status 0."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys

import pytest
from tests.flight.conftest import adbc_connect

from drillspark.cli import serve

pytestmark = pytest.mark.spark_process


def test_flight_port_is_off_unless_asked():
    assert serve._flight_port(argparse.Namespace()) is None
    assert serve._flight_port(argparse.Namespace(flight_port=-1)) is None
    assert serve._flight_port(argparse.Namespace(flight_port=0)) == 0
    assert serve._flight_port(argparse.Namespace(flight_port=32010)) == 32010


class _Served:
    def __init__(self, uri: str):
        self.flight = type("Flight", (), {"uri": uri})()


@pytest.mark.load  # the long tier: 20-35 s of `make test`'s time
def test_serve_with_flight_port(tmp_path, shared):
    env = dict(os.environ, DRILLSPARK_RUNTIME_DIR=str(tmp_path / "runtime"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drillspark",
            "serve",
            "--port",
            "0",
            "--user-port",
            "-1",
            "--flight-port",
            "0",
            "--master",
            "local[1]",
            "--workspace",
            f"data={shared / 'data'}",
        ],  # fmt: skip
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "Ctrl-C or SIGTERM stops it" in line:
                break
        assert proc.poll() is None, "serve ended before it announced itself:\n" + "".join(lines)
        found = [
            re.fullmatch(
                r"drillspark serve: Arrow Flight SQL \(ADBC, Flight SQL JDBC\) on "
                r"(grpc://127\.0\.0\.1:\d+)\n",
                line,
            )
            for line in lines
        ]
        uris = [m.group(1) for m in found if m]
        assert len(uris) == 1, "".join(lines)
        conn = adbc_connect(_Served(uris[0]))  # type: ignore[arg-type]
        try:
            cur = conn.cursor()
            cur.execute("SELECT count(*) AS c FROM dfs.data.`yelp/yelp_business_small.ndjson`")
            expected = sum(
                1
                for line in (shared / "data" / "yelp" / "yelp_business_small.ndjson")
                .read_text()
                .splitlines()
                if line.strip()
            )
            assert cur.fetchall() == [(expected,)]
        finally:
            conn.close()
        proc.send_signal(signal.SIGTERM)
        lines += proc.stderr.readlines()
        assert proc.wait(timeout=120) == 0, "".join(lines)
        assert "Traceback" not in "".join(lines)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
