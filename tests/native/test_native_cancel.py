"""Cancel over the native protocol goes through the server's one query service
(QueryManager.cancel), as REST's: Drill's JDBC driver's Statement.cancel() while the server still
computes, a client that leaves mid-query, and the server's time limit each end the query
CANCELED with REST's message for that cause, and its Spark jobs stop."""

from __future__ import annotations

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
from tests.native.test_native_bad_input import RawClient

from drillspark.server.native import messages as m


# the long tier: a JVM start, then a four-way join planned under load (35-45 s)
@pytest.mark.load
def test_jdbc_cancel_while_the_server_computes(jdbc, native_url, native_server, tmp_path):
    sql = slow_query("jdbc-cancel-marker")
    signal = tmp_path / "cancel-now"
    step = f"cancelwhen:{signal}:{sql}"
    answers: dict = {}
    probe = threading.Thread(target=lambda: answers.update(jdbc.run(native_url, step)))
    probe.start()
    running(native_server, "jdbc-cancel-marker")
    # the driver cancels on the server only once it has taken in the query's handle; a cancel
    # in the first moments (seen once in CI: the driver's statement ended without an error
    # 265 ms after it began, the server still computing) ends the statement on its own side.
    # The query computes for minutes: a second more leaves the handle time to arrive.
    time.sleep(1)
    signal.touch()  # Statement.cancel() from the driver's other thread, now
    started = time.monotonic()
    probe.join(180)
    got = answers[step]
    # Drill 1.22's driver, against Drill's user port, ended its executeQuery the same way
    assert got["after"] == "java.sql.SQLException: Statement canceled", got
    assert got["alive"] is False
    q = ended(native_server, "jdbc-cancel-marker")
    cancelled_as_rest(q, "canceled")
    jobs_stopped(native_server, q.id)
    assert time.monotonic() - started < 60


def test_client_leaving_mid_query_cancels_it(native_server):
    c = RawClient(native_server.native.port)
    c.handshake()
    c.send(
        m.RpcType.RUN_QUERY,
        m.RunQuery(results_mode=1, type=m.QueryType.SQL, plan=slow_query("native-leaves")),
    )
    assert c.read().rpc_type == m.RpcType.QUERY_HANDLE
    q = running(native_server, "native-leaves")
    c.close()  # while Spark computes: no batch was sent yet
    q = ended(native_server, "native-leaves")
    cancelled_as_rest(q, "client")
    jobs_stopped(native_server, q.id)
