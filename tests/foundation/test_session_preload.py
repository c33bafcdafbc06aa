"""The modules a new session imports while its driver JVM starts (session._preload)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from drillspark.session import _preload


def _join_preload() -> None:
    for t in threading.enumerate():
        if t.name == "drillspark-preload":
            t.join(60)


def test_preload_imports_in_a_thread_and_keeps_going_past_a_missing_module():
    name = "colorsys"  # stdlib, imported by nothing here
    sys.modules.pop(name, None)
    _preload(("drillspark_no_such_module", name))
    _join_preload()
    assert name in sys.modules


@pytest.mark.spark_process
def test_a_new_process_session_preloads_the_front_ends_modules():
    # a fresh interpreter: the session's start brings the SQL front end's modules in, and
    # the session works (no import deadlock with pyspark's own imports)
    code = (
        "import sys, drillspark\n"
        "print('drillspark.plan' in sys.modules)\n"
        "spark = drillspark.session(master='local[1]', **{'spark.ui.enabled': 'false'})\n"
        "import threading\n"
        "[t.join(60) for t in threading.enumerate() if t.name == 'drillspark-preload']\n"
        "print(sorted(m for m in sys.modules['drillspark.session'].PRELOADED if m in sys.modules))\n"
        "print(spark.range(3).count())\n"
        "spark.stop()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    expected = str(sorted(["pandas", "pyarrow", "sqlglot", "drillspark.plan"]))
    assert out.stdout.split("\n")[:3] == ["False", expected, "3"], out.stderr


def test_the_preloaded_plan_imports_no_pyspark_and_of_drillspark_only_its_own_package():
    # the preload thread's rule (session.PRELOADED): it must never wait on an import the
    # main thread holds while the JVM starts (pyspark's), nor hold one the main thread needs
    code = (
        "import sys, drillspark\n"
        "before = set(sys.modules)\n"
        "import drillspark.plan\n"
        "new = sorted(set(sys.modules) - before)\n"
        "print([m for m in new if m.startswith('pyspark') or m.startswith('py4j')])\n"
        "print([m for m in new if m.startswith('drillspark') and not m.startswith('drillspark.plan')])\n"
        "print(len([m for m in new if m.startswith('drillspark.plan')]) > 5)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split("\n")[:3] == ["[]", "[]", "True"], out.stdout + out.stderr
