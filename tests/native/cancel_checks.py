"""What every protocol's cancel tests check of a cancelled query (the native protocol's and
Flight SQL's): its profile ended CANCELED with the query service's message, and its Spark jobs
ended too (a cancel that left a job computing would hold the machine's cores)."""

from __future__ import annotations

import time
from typing import Any

# a query that computes for minutes on 2 cores: every row of supplier.json's (100 records)
# four-way cross product is tested, as tests/server/test_server_clients.py's
SUPPLIER = "dfs.data.`breadth/tpch_json/supplier.json`"


def slow_query(marker: str) -> str:
    return (
        f"SELECT count(*) AS n FROM {SUPPLIER} a, {SUPPLIER} b, {SUPPLIER} c, {SUPPLIER} d "
        f"WHERE concat(a.S_COMMENT, b.S_COMMENT, c.S_COMMENT, d.S_COMMENT) LIKE '%{marker}%'"
    )


def running(server: Any, marker: str, within: float = 120) -> Any:
    """The running query whose text has `marker`, once Spark runs a job of it."""
    tracker = server.spark.sparkContext.statusTracker()
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for q in server.queries.running():
            if marker in q.text and tracker.getJobIdsForGroup(q.id):
                return q
        time.sleep(0.2)
    raise AssertionError(f"no running Spark job for the query marked {marker!r}")


def ended(server: Any, marker: str, within: float = 60) -> Any:
    """The finished query whose text has `marker`."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        done = [q for q in server.queries.finished() if marker in q.text]
        if done:
            return done[0]
        time.sleep(0.2)
    raise AssertionError(f"the query marked {marker!r} did not end within {within:g} s")


def jobs_stopped(server: Any, query_id: str, within: float = 60) -> None:
    """Every Spark job of the query's group has ended (a cancelled one ends FAILED)."""
    tracker = server.spark.sparkContext.statusTracker()
    deadline = time.monotonic() + within
    while True:
        jobs = [tracker.getJobInfo(j) for j in tracker.getJobIdsForGroup(query_id)]
        live = [j.jobId for j in jobs if j is not None and j.status in ("RUNNING", "UNKNOWN")]
        if not live:
            assert jobs, "the query ran no Spark job"
            return
        assert time.monotonic() < deadline, f"Spark jobs {live} still run after the cancel"
        time.sleep(0.5)


def cancelled_as_rest(q: Any, reason: str) -> None:
    """The profile's end, with the message REST's cancel of the same cause leaves."""
    messages = {
        "canceled": "the query was cancelled",
        "client": "the client closed the connection before the answer; the query was cancelled",
    }
    assert q.state == "CANCELED", (q.state, q.error)
    assert q.cancel_reason == reason, q.cancel_reason
    assert q.error == messages[reason], q.error
