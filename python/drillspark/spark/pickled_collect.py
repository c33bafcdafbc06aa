"""A small answer's rows as `DataFrame.collect()` gives them, in the reply of one py4j call
(the jar's `compat.PickledCollect`, #37).

pyspark's collect asks the JVM's `Dataset.collectToPython`, which serves the rows from a socket
server of its own (a JVM thread, a server socket, a connection and its secret's handshake per
answer) and returns the port and secret in an array read with four more round trips; pyspark
sets the call site before and after, two more. Under sixteen BI clients each round trip waits
for the server's GIL again (docs/performance.md). The jar returns the same pickled batches
(the same SQL execution, rows and pickler) as the call's reply. For answers the caller bounds
(the server's small answers, up to queries.SMALL_ANSWER rows); on Spark Connect, or with a jar
without the class, pyspark's own collect runs.
"""

from __future__ import annotations

import io
from typing import Any

from drillspark.spark import jvm_methods

ROWS = "org.apache.spark.sql.drillspark.compat.PickledCollect.rows"


def rows(df: Any) -> list[Any]:
    """`df`'s rows (pyspark Rows), as `df.collect()` returns them."""
    jdf = getattr(df, "_jdf", None)
    jvm = getattr(df.sparkSession, "_jvm", None)
    if jdf is None or jvm is None:
        return df.collect()
    try:
        data = jvm_methods.static(jvm, ROWS)(jdf)
    except TypeError:  # an older jar: py4j's stand-in for a missing class is no method
        jvm_methods.forget(jvm, ROWS)
        return df.collect()
    from pyspark.serializers import BatchedSerializer, CPickleSerializer

    return list(BatchedSerializer(CPickleSerializer()).load_stream(io.BytesIO(data)))
