"""The functions and analysis code reach Spark-internal APIs only through the compat package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "jvm" / "src" / "main" / "scala" / "drillspark"
# Spark's internal (non-public) packages these areas once used directly; the compat package
# (org.apache.spark.sql.drillspark.compat) wraps them: DrillConfCompat, DrillVariant, ...
INTERNAL = re.compile(r"^import org\.apache\.spark\.(sql\.internal|types\.variant)\b", re.MULTILINE)


@pytest.mark.parametrize(
    "source",
    sorted(
        str(p.relative_to(ROOT))
        for area in ("functions", "analysis")
        for p in (ROOT / area).glob("*.scala")
    ),
)
def test_no_spark_internal_imports_outside_compat(source):
    assert INTERNAL.findall((ROOT / source).read_text()) == [], source
