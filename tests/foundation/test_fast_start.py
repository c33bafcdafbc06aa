"""Time to first result, the parts that start no Spark: `import drillspark` loads no pyarrow,
pyspark or sqlglot (they load on first use), the public API is unchanged, and the class-data
sharing cache's bookkeeping (drillspark/class_sharing.py) on real files and processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drillspark import class_sharing

HEAVY = ("pyspark", "pyarrow", "sqlglot", "numpy", "pandas", "py4j")


def _in_fresh_interpreter(code: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_drillspark_loads_no_spark_arrow_or_sqlglot():
    out = _in_fresh_interpreter(
        "import sys, json, drillspark, drillspark.cli.main, drillspark.cli.remote, "
        "drillspark.sql.statements, drillspark.sql.session\n"
        "drillspark.cli.main.build_parser()\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    assert out == []


def test_the_public_api_loads_on_first_use():
    out = _in_fresh_interpreter(
        "import sys, json, pydoc, drillspark\n"
        "import drillspark.session, drillspark.sql.engine\n"  # submodules named like functions
        "from drillspark.result import DrillResult\n"
        "text = pydoc.render_doc(drillspark, renderer=pydoc.plaintext)\n"
        "print(json.dumps({'session': callable(drillspark.session) and "
        "drillspark.session.__module__, 'sql': drillspark.sql.__module__, "
        "'run': drillspark.run.__module__, 'result': drillspark.DrillResult is DrillResult, "
        "'all': sorted(n for n in drillspark.__all__ if not hasattr(drillspark, n)), "
        "'dir': sorted(set(drillspark.__all__) - set(dir(drillspark))), "
        "'help': [n for n in ('session(', 'run(', 'sql(', 'DrillResult') if n not in text]}))"
    )
    assert out == {
        "session": "drillspark.session",
        "sql": "drillspark",
        "run": "drillspark.api",
        "result": True,
        "all": [],
        "dir": [],
        "help": [],
    }


def test_builtin_operators_register_on_the_registrys_first_use():
    out = _in_fresh_interpreter(
        "import sys, json, drillspark\n"
        "before = 'drillspark.operators.builtin' in sys.modules\n"
        "op = drillspark.plugins.registered_operator('nested-filter')\n"
        "print(json.dumps([before, op.__name__]))"
    )
    assert out == [False, "NestedFilter"]
    # a user's operator of the same name, registered before any lookup, still wins
    out = _in_fresh_interpreter(
        "import json, drillspark\n"
        "@drillspark.operator('nested-filter')\n"
        "class Mine: pass\n"
        "print(json.dumps(drillspark.plugins.registered_operator('nested-filter').__name__))"
    )
    assert out == "Mine"
    # the operator's module imported first (as a Spark worker unpickling it does)
    out = _in_fresh_interpreter(
        "import json\n"
        "from drillspark.operators.nested_filter import NestedFilter\n"
        "import drillspark\n"
        "print(json.dumps(drillspark.plugins.registered_operator('nested-filter') is "
        "NestedFilter))"
    )
    assert out is True


# --------------------------------------------------------------- class-data sharing bookkeeping
def _archive(folder: Path, name: str, body: bytes) -> Path:
    path = folder / f"{name}-{len(body)}.jsa"
    path.write_bytes(body)
    return path


def test_a_found_archive_is_checked_before_the_jvm_sees_it(tmp_path):
    whole = class_sharing.DYNAMIC_MAGIC + b"\0" * 60
    good = _archive(tmp_path, "drillspark-k", whole)
    sharing = class_sharing._archive_or_claim(tmp_path, "drillspark-k")
    assert sharing is not None and sharing.writing is None
    assert f"-XX:SharedArchiveFile={good}" in sharing.flags
    assert class_sharing.VERIFY in sharing.flags and class_sharing.QUIET in sharing.flags
    # cut short (Java 17 dies of SIGBUS on it) or not an archive: removed, and written anew
    for bad in (whole, b"\0" * 64):
        path = _archive(tmp_path, "drillspark-k", bad)
        if bad == whole:
            os.truncate(path, 20)
        else:
            good.unlink()
        sharing = class_sharing._archive_or_claim(tmp_path, "drillspark-k")
        assert not path.exists()
        assert sharing is not None and sharing.writing is not None
        assert sharing.flags.startswith(f"-XX:ArchiveClassesAtExit={sharing.writing} ")
        assert sharing.lock is not None
        sharing.lock.unlink()


def test_only_one_of_two_first_starts_writes_the_archive(tmp_path):
    first = class_sharing._archive_or_claim(tmp_path, "drillspark-k")
    second = class_sharing._archive_or_claim(tmp_path, "drillspark-k")
    assert first is not None and first.lock is not None and first.lock.exists()
    assert second is None  # runs without sharing while the first one's JVM writes
    # a lock older than a minute: a long-lived writer (serve, a notebook) or a run that died;
    # the next start writes one too
    old = time.time() - class_sharing.TAKEOVER_SECONDS - 5
    os.utime(first.lock, (old, old))
    third = class_sharing._archive_or_claim(tmp_path, "drillspark-k")
    assert third is not None and third.writing is not None


def test_a_start_beside_a_long_lived_writer_writes_too_and_the_larger_archive_stays(tmp_path):
    """A `serve` that started first writes its archive only when it stops: the starts in
    between would all run without one."""
    name = "drillspark-k"
    gone = subprocess.Popen(["true"])
    gone.wait()  # a JVM that has exited
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # the long-lived writer (its Python process alive) has run a job: its mark is there
        lock = tmp_path / f"{name}.lock"
        long_tmp = tmp_path / f"{name}.{alive.pid}.tmp"
        lock.write_text(str(long_tmp))
        class_sharing.ran_mark(long_tmp).touch()
        # a writer that died left its mark behind
        dead_mark = class_sharing.ran_mark(tmp_path / f"{name}.{gone.pid}.tmp")
        dead_mark.touch()
        old = time.time() - class_sharing.TAKEOVER_SECONDS - 5
        os.utime(lock, (old, old))
        second = class_sharing._archive_or_claim(tmp_path, name)
        assert second is not None and second.writing is not None and second.lock == lock
        assert lock.read_text() == str(second.writing)
        assert class_sharing.ran_mark(long_tmp).exists() and not dead_mark.exists()

        # the second start's JVM exits first: its archive is named, the lock released
        second.writing.write_bytes(class_sharing.DYNAMIC_MAGIC + b"s" * 96)
        class_sharing.ran_mark(second.writing).touch()
        small = class_sharing.finish(gone.pid, second.writing, lock)
        assert small == tmp_path / f"{name}-100.jsa" and not lock.exists()
        # the long-lived one stops later with more classes: its archive replaces the first
        long_tmp.write_bytes(class_sharing.DYNAMIC_MAGIC + b"l" * 196)
        alive.kill()
        alive.wait()
        large = class_sharing.finish(alive.pid, long_tmp, lock)
        assert large == tmp_path / f"{name}-200.jsa"
        assert sorted(p.name for p in tmp_path.iterdir()) == [f"{name}-200.jsa"]
        # and the other order: a smaller archive written later is dropped
        third = class_sharing._archive_or_claim(tmp_path, "drillspark-j")
        assert third is not None and third.writing is not None and third.lock is not None
        _archive(tmp_path, "drillspark-j", class_sharing.DYNAMIC_MAGIC + b"l" * 196)
        third.writing.write_bytes(class_sharing.DYNAMIC_MAGIC + b"s" * 96)
        class_sharing.ran_mark(third.writing).touch()
        assert class_sharing.finish(gone.pid, third.writing, third.lock) == (
            tmp_path / "drillspark-j-200.jsa"
        )
        assert not (tmp_path / "drillspark-j-100.jsa").exists()
    finally:
        alive.kill()
        alive.wait()


def test_the_watcher_names_a_whole_archive_of_a_jvm_that_ran_a_job_and_drops_others(tmp_path):
    gone = subprocess.Popen(["true"])
    gone.wait()  # an exited JVM
    whole = class_sharing.DYNAMIC_MAGIC + b"x" * 100
    for case, body, ran, kept in (
        ("whole", whole, True, True),
        ("partial", b"\0" * 104, True, False),  # killed while writing: no header yet
        ("no job", whole, False, False),  # a start that ran no query: a small archive
    ):
        folder = tmp_path / case
        folder.mkdir()
        sharing = class_sharing._archive_or_claim(folder, "drillspark-k")
        assert sharing is not None and sharing.writing is not None and sharing.lock is not None
        mark = class_sharing.ran_mark(sharing.writing)
        assert f"-D{class_sharing.MARK_PROPERTY}={mark} " in sharing.flags
        assert sharing.listener == class_sharing.MARK_LISTENER
        sharing.writing.write_bytes(body)
        if ran:
            mark.touch()  # what ClassSharingMark does at the first job's end
        final = class_sharing.finish(gone.pid, sharing.writing, sharing.lock)
        assert not sharing.writing.exists() and not sharing.lock.exists() and not mark.exists()
        if kept:
            assert final == folder / "drillspark-k-104.jsa" and final.read_bytes() == body
            assert [p.name for p in folder.iterdir()] == ["drillspark-k-104.jsa"]
        else:
            assert final is None and not list(folder.iterdir())


def test_the_watcher_waits_for_the_jvm(tmp_path):
    sharing = class_sharing._archive_or_claim(tmp_path, "drillspark-k")
    assert sharing is not None and sharing.writing is not None and sharing.lock is not None
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time; time.sleep(1.0); "
                f"open({str(sharing.writing)!r}, 'wb').write({class_sharing.DYNAMIC_MAGIC!r} + b'y' * 8)"
            ),
        ]
    )
    class_sharing.ran_mark(sharing.writing).touch()
    try:
        final = class_sharing.finish(writer.pid, sharing.writing, sharing.lock, poll=0.05)
    finally:
        writer.wait()
    assert final is not None and final.read_bytes().endswith(b"y" * 8)


@pytest.mark.parametrize(
    "master, java_options, env",
    [
        ("yarn", "", {}),
        ("local-cluster[2,1,1024]", "", {}),
        ("spark://host:7077", "", {}),
        ("local[2]", "-Xshare:off", {}),
        ("local[2]", "-XX:SharedArchiveFile=/mine.jsa", {}),
        (
            "local[2]",
            "",
            {"PYSPARK_SUBMIT_ARGS": "--driver-java-options -Xshare:off pyspark-shell"},
        ),
        ("local[2]", "", {class_sharing.CDS_ENV: "0"}),
    ],
)
def test_no_sharing_for_other_masters_own_flags_or_when_turned_off(
    tmp_path, monkeypatch, master, java_options, env
):
    monkeypatch.setenv(class_sharing.CACHE_DIR_ENV, str(tmp_path / "cache"))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert class_sharing.prepare(master, java_options, "/no.jar", "spark") is None
    assert not (tmp_path / "cache").exists()


def test_local_masters_share_in_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(class_sharing.CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert class_sharing.cache_dir() == tmp_path / "xdg" / "drillspark"
    monkeypatch.setenv(class_sharing.CACHE_DIR_ENV, str(tmp_path / "cache"))
    jar = tmp_path / "x.jar"
    jar.write_bytes(b"jar")
    for master in ("local", "local[2]", "local[*]"):
        sharing = class_sharing.prepare(master, "-Dx=1", str(jar), "spark")
        assert sharing is not None and sharing.lock is not None  # the first start writes it
        assert sharing.lock.parent == tmp_path / "cache"
        sharing.lock.unlink()
    # another jar (or Java, or pyspark) is another archive
    jar.write_bytes(b"other")
    keys = {class_sharing.archive_key("java", "spark", str(jar))}
    jar.write_bytes(b"third")
    keys.add(class_sharing.archive_key("java", "spark", str(jar)))
    keys.add(class_sharing.archive_key("java", "spark2", str(jar)))
    assert len(keys) == 3


def test_the_cache_keeps_its_archives_under_the_cap_least_recently_used_first(
    tmp_path, monkeypatch
):
    """Every jar build has its own archive (150-190 MB each): a week of builds filled
    gigabytes. A new archive evicts the least recently used beyond the cap; using one (a start
    that finds it) makes it recent; one unused for a week goes whatever the size."""
    monkeypatch.setattr(class_sharing, "MAX_CACHE_BYTES", 300)
    body = class_sharing.DYNAMIC_MAGIC + b"x" * 96  # 100 bytes: three fit under 300
    now = time.time()
    ages = {
        "a": 3600 * 5,
        "b": 3600 * 4,
        "c": 3600 * 3,
        "stale": class_sharing.OLD_ARCHIVE_SECONDS + 60,
    }
    for key, age in ages.items():
        path = _archive(tmp_path, f"drillspark-{key}", body)
        os.utime(path, (now - age, now - age))
    # a start finds "a" (the oldest written): it is used now, so "b" is the least recent
    assert class_sharing._archive_or_claim(tmp_path, "drillspark-a") is not None
    gone = subprocess.Popen(["true"])
    gone.wait()
    sharing = class_sharing._archive_or_claim(tmp_path, "drillspark-new")
    assert sharing is not None and sharing.writing is not None and sharing.lock is not None
    sharing.writing.write_bytes(body)
    class_sharing.ran_mark(sharing.writing).touch()
    final = class_sharing.finish(gone.pid, sharing.writing, sharing.lock)
    assert final == tmp_path / "drillspark-new-100.jsa"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["drillspark-a-100.jsa", "drillspark-c-100.jsa", "drillspark-new-100.jsa"]
