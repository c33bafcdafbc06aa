"""Two CREATE VIEW of one view on S3 (#31): without OR REPLACE the view file is written by S3's
conditional write (PUT with `If-None-Match: *`, Hadoop S3A's `fs.option.create.conditional.
overwrite`), so of two writers that both found no view one alone succeeds and the other gets
Drill's "already exists"; OR REPLACE stays last-writer-wins, each file whole. Against moto's S3
server (the `s3` fixture), which honours the condition as S3 does (412 Precondition Failed)."""

from __future__ import annotations

import json
import subprocess
import threading

import pytest

from drillspark.spark.storage import filesystems
from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession

BUCKET = "drill-view-race"
WORKSPACES = {"w": {"location": "/w", "writable": True}}


@pytest.fixture(scope="module")
def plugin(s3):
    s3.client().create_bucket(Bucket=BUCKET)
    s3.put(BUCKET, "w/a.json", '{"x": 1}\n{"x": 2}\n')
    return s3.plugin(BUCKET, WORKSPACES)


def _body(s3, key: str) -> str:
    return s3.client().get_object(Bucket=BUCKET, Key=key)["Body"].read().decode("utf-8")


def test_the_new_view_file_is_a_conditional_put(spark, s3, plugin):
    """The write itself asks S3 for a new object, with no status request before it: an object
    that appears between the check and the upload (here: written by another client first) is
    kept, and the write reports it; with replace the last writer wins."""
    filesystems.configure(spark, "race", f"s3a://{BUCKET}", plugin["config"])
    uri = f"s3a://{BUCKET}/w/cond.view.drill"
    s3.put(BUCKET, "w/cond.view.drill", "theirs")
    assert filesystems.write_whole(spark, uri, b"ours", replace=False) is False
    assert _body(s3, "w/cond.view.drill") == "theirs"
    assert filesystems.write_whole(spark, f"s3a://{BUCKET}/w/new.view.drill", b"ours", False)
    assert _body(s3, "w/new.view.drill") == "ours"
    assert filesystems.write_whole(spark, uri, b"ours", replace=True) is True
    assert _body(s3, "w/cond.view.drill") == "ours"


def test_two_engines_creating_one_view_one_wins(spark, s3, plugin):
    """Two sessions of one process (each its own engine) at once: one creates the view, the
    other answers Drill's message; the file is the winner's, whole."""
    results: list[object] = []

    def create(n: int) -> None:
        engine = SqlEngine(spark, SqlSession(plugins={"s3": plugin}))
        try:
            engine.execute(f"CREATE VIEW s3.w.both AS SELECT x, {n} AS n FROM s3.w.`a.json`")
            results.append(n)
        except SqlError as e:
            results.append(e.message)

    threads = [threading.Thread(target=create, args=(n,)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [r for r in results if isinstance(r, int)]
    assert len(winners) == 1, results
    lost = next(r for r in results if isinstance(r, str))
    assert lost.startswith("A view with given name [both] already exists in schema [s3.w]"), lost
    view = json.loads(_body(s3, "w/both.view.drill"))
    assert f"{winners[0]} AS n" in view["sql"]


@pytest.mark.load
@pytest.mark.spark_process
def test_two_processes_creating_one_view_one_wins(s3, plugin, tmp_path, python_exe):
    """`drillspark sql` twice at once (two processes, two Spark drivers), each CREATE VIEW of
    one view: exactly one is created; the other fails with Drill's "already exists". OR
    REPLACE from both: both succeed, the file is one of the two, whole (last writer wins)."""
    storage = tmp_path / "storage.json"
    storage.write_text(json.dumps({"storage": {"s3": plugin}}))

    def both(sql: str) -> list[subprocess.CompletedProcess]:
        procs = [
            subprocess.Popen(
                [python_exe, "-m", "drillspark", "sql", "--storage", str(storage), sql % n],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=tmp_path,
            )
            for n in (1, 2)
        ]
        out = []
        for p in procs:
            stdout, stderr = p.communicate(timeout=600)
            out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
        return out

    runs = both("CREATE VIEW s3.w.pv AS SELECT x, %d AS n FROM s3.w.`a.json`")
    ok = [r for r in runs if r.returncode == 0]
    failed = [r for r in runs if r.returncode != 0]
    assert len(ok) == 1 and len(failed) == 1, [(r.returncode, r.stdout, r.stderr) for r in runs]
    assert "created successfully in 's3.w' schema" in ok[0].stdout, ok[0].stdout
    assert "A view with given name [pv] already exists in schema [s3.w]" in failed[0].stderr
    view = json.loads(_body(s3, "w/pv.view.drill"))
    assert view["sql"].endswith("FROM s3.w.`a.json`")
    runs = both("CREATE OR REPLACE VIEW s3.w.pv AS SELECT x, %d AS n FROM s3.w.`a.json`")
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    view = json.loads(_body(s3, "w/pv.view.drill"))
    assert view["sql"] in {f"SELECT x, {n} AS n FROM s3.w.`a.json`" for n in (1, 2)}
