"""cluster_check.py's `check(spark)` is importable and runs in a session made by its caller
(here the shared local[2] session; the script itself runs it on local-cluster)."""

from __future__ import annotations

import sys

import cluster_check
import docs_example

from drillspark import plugins


def test_cluster_check_runs_in_the_callers_session(spark):
    try:
        assert cluster_check.check(spark) == []
        assert spark.range(3).count() == 3  # the session is left running for the caller
    finally:
        for name in (
            "cluster-tag",
            "drill_cluster_double",
            "scale",
            "drill_celsius",
            "drill_spread",
        ):
            plugins.unregister(name)
        sys.modules.pop(docs_example.MODULE, None)
