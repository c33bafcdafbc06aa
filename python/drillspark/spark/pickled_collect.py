"""A small answer's rows as `DataFrame.collect()` gives them, in the reply of one py4j call
(the jar's `compat.PickledCollect`, #37).

pyspark's collect asks the JVM's `Dataset.collectToPython`, which serves the rows from a socket
server of its own (a JVM thread, a server socket, a connection and its secret's handshake per
answer) and returns the port and secret in an array read with four more round trips; pyspark
sets the call site before and after, two more. Under sixteen BI clients each round trip waits
for the server's GIL again (docs/performance.md). The jar returns the same pickled batches
(the same SQL execution, rows and pickler) as the call's reply, up to MAX_BYTES of them (a row
limit bounds the rows, not their width): a longer answer is served from the rows already
collected, as `collectToPython` serves them. For the server's small answers (up to
queries.SMALL_ANSWER rows, catalog tables); on Spark Connect, or with a jar without the class,
pyspark's own collect runs.
"""

from __future__ import annotations

import io
from typing import Any

from drillspark.spark import jvm_methods

ROWS = "org.apache.spark.sql.drillspark.compat.PickledCollect.rows"
# the most pickled bytes in a reply: py4j sends them as one string (base64), held whole on
# both sides while it is read
MAX_BYTES = 16 << 20


def rows(df: Any, max_bytes: int = MAX_BYTES) -> list[Any]:
    """`df`'s rows (pyspark Rows), as `df.collect()` returns them."""
    jdf = getattr(df, "_jdf", None)
    jvm = getattr(df.sparkSession, "_jvm", None)
    if jdf is None or jvm is None:
        return df.collect()
    try:
        data = jvm_methods.static(jvm, ROWS)(jdf, max_bytes)
    except TypeError:  # an older jar: py4j's stand-in for a missing class is no method
        jvm_methods.forget(jvm, ROWS)
        return df.collect()
    from pyspark.serializers import BatchedSerializer, CPickleSerializer

    serializer = BatchedSerializer(CPickleSerializer())
    if isinstance(data, bytes):
        return list(serializer.load_stream(io.BytesIO(data)))
    from pyspark.util import _load_from_socket  # served: collectToPython's port and secret

    with _load_from_socket(data, serializer) as stream:
        return list(stream)
