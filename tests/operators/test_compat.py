"""Non-public PySpark APIs stay in drillspark.operators._pyspark_compat (and no JVM access
anywhere), so a PySpark upgrade that moves them breaks one small module."""

from __future__ import annotations

import re
from pathlib import Path

import drillspark.operators

PACKAGE = Path(drillspark.operators.__file__).parent
NON_PUBLIC = re.compile(
    r"^\s*(from|import)\s+(pyspark\.sql\.pandas|pyspark\.cloudpickle|pyspark\.sql\.connect|py4j)"
    r"|^\s*from\s+pyspark\s+import\s+.*cloudpickle|\._jvm\b"
)


def test_non_public_pyspark_apis_only_in_the_compat_module():
    files = [*PACKAGE.glob("*.py"), PACKAGE.parent / "plugins.py"]
    offenders = {
        f"{path.name}:{n}": line.strip()
        for path in files
        if path.name != "_pyspark_compat.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if NON_PUBLIC.search(line)
    }
    assert offenders == {}


def test_the_compat_module_converts_schemas_both_ways():
    import pyarrow as pa
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    from drillspark.operators._pyspark_compat import from_arrow_schema, to_arrow_schema

    spark_schema = StructType([StructField("a", LongType()), StructField("s", StringType())])
    arrow = to_arrow_schema(spark_schema, timezone="UTC", prefers_large_types=False)
    assert arrow.types == [pa.int64(), pa.string()]
    assert from_arrow_schema(arrow) == spark_schema
