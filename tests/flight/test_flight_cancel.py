"""Cancel over Flight SQL goes through the server's one query service (QueryManager.cancel),
as REST's: the Flight SQL JDBC driver's Statement.cancel(), and a client process that dies while
the server computes its answer, each end the query CANCELED with REST's message for that cause,
and its Spark jobs stop. (ADBC's own cancel, CancelFlightInfo and the time limit:
test_flight_adbc.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from tests.native.cancel_checks import (
    cancelled_as_rest,
    ended,
    jobs_stopped,
    running,
    slow_query,
)

# a client of its own process: ADBC's Flight SQL driver reads the answer of `sql`
CLIENT = """
import sys
import adbc_driver_flightsql.dbapi as flightsql
with flightsql.connect(sys.argv[1], autocommit=True) as conn:
    cur = conn.cursor()
    cur.execute(sys.argv[2])
    cur.fetchall()
"""


# the long tier: a JVM start, then a four-way join planned under load (35-45 s)
@pytest.mark.load
def test_jdbc_cancel_while_the_server_computes(jdbc, flight_server, tmp_path):
    sql = slow_query("flight-jdbc-cancel")
    signal_file = tmp_path / "cancel-now"
    step = f"cancelwhen:{signal_file}:{sql}"
    answers: dict = {}
    probe = threading.Thread(
        target=lambda: answers.update(jdbc.run(flight_server.flight.port, step))
    )
    probe.start()
    running(flight_server, "flight-jdbc-cancel")
    time.sleep(1)  # the driver's DoGet is under way
    signal_file.touch()
    started = time.monotonic()
    probe.join(180)
    got = answers[step]
    assert got["alive"] is False, got
    # the driver's cancel closes its DoGet stream (no CancelFlightInfo): the server sees a
    # client that left, as REST sees one that closes its connection
    assert got["after"].endswith(": Cancelling this FlightStream."), got
    q = ended(flight_server, "flight-jdbc-cancel")
    cancelled_as_rest(q, "client")
    jobs_stopped(flight_server, q.id)
    assert time.monotonic() - started < 60


def test_client_dying_mid_query_cancels_it(flight_server):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, flight_server.flight.uri, slow_query("flight-dies")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        running(flight_server, "flight-dies")
        time.sleep(1)  # its DoGet is under way
    finally:
        os.kill(client.pid, signal.SIGKILL)  # no goodbye: its connection simply ends
        client.wait(30)
    q = ended(flight_server, "flight-dies")
    cancelled_as_rest(q, "client")
    jobs_stopped(flight_server, q.id)
