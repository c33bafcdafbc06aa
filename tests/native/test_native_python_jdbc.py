"""Python over Drill's JDBC driver (jaydebeapi on JPype, as a notebook user connects through
`drill-jdbc-all`) against `drillspark serve`'s user port: the answer is the one real Drill 1.22
gave Drill's JDBC driver for the same statement (test_native_jdbc.py's DRILL_NATION). The
client runs in its own process: JPype starts a JVM inside the Python process that imports it,
once per process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.native.test_native_jdbc import DRILL_NATION, NATION

CLIENT = textwrap.dedent(
    """
    import json, sys
    import jaydebeapi

    url, jars, sql = sys.argv[1], sys.argv[2].split(":"), sys.argv[3]
    conn = jaydebeapi.connect("org.apache.drill.jdbc.Driver", url, [], jars)
    try:
        cur = conn.cursor()
        cur.execute(sql)
        names = [d[0] for d in cur.description]
        rows = [list(r) for r in cur.fetchall()]
        cur.execute("SELECT * FROM dfs.data.`no_such_file.json`")
    except Exception as e:  # the driver's error, as the user sees it
        print(json.dumps({"names": names, "rows": rows, "error": str(e)}))
    finally:
        conn.close()
    """
)


def test_jaydebeapi_reads_what_drills_driver_read_from_drill(client_jars, native_url):
    out = subprocess.run(
        [sys.executable, "-c", CLIENT, native_url, ":".join(map(str, client_jars)), NATION],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    # the driver logs to standard output too: the answer is the line the client printed
    [line] = [x for x in out.stdout.splitlines() if x.startswith('{"names"')]
    answer = json.loads(line)
    assert answer["names"] == ["N_NATIONKEY", "N_NAME", "N_REGIONKEY"]
    assert answer["rows"] == DRILL_NATION["rows"]
    # a bad statement is one error naming what is wrong, and the connection was usable before
    assert "VALIDATION ERROR" in answer["error"] and "no_such_file.json" in answer["error"]
