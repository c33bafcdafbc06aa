"""What the record-source plugins (http, mongo, kafka) share on their way to the JVM: they hand
pages of records to drillspark's own `drill` reader (the extension jar's `records` unit), so
they need a classic session's JVM, and a failure raised there comes back as a py4j error whose
first line is the one worth showing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyspark.sql import SparkSession


def classic_jvm(spark: SparkSession, owner: str, error: type[Exception]) -> Any:
    """The session's JVM, or `error` naming `owner` (e.g. "mongo plugin 'm'"): Spark Connect
    has no JVM in this process to hand pages to."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        raise error(
            f"{owner}: reading needs a classic Spark session (with the drillspark jar), not "
            "Spark Connect"
        )
    return jvm


def failure_line(e: Exception, secrets: Iterable[str] = ()) -> str:
    """The JVM failure's first line without its exception class, secrets masked."""
    text = str(getattr(e, "java_exception", None) or e)
    line = next((ln for ln in text.splitlines() if ln.strip()), repr(e))
    for marker in ("DrillScanException:", "Exception:"):
        if marker in line:
            line = line.split(marker, 1)[1].strip()
            break
    for secret in secrets:
        line = line.replace(secret, "*****")
    return line
