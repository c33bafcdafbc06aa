"""`drillspark run --format table` prints at most 1000 rows and says so when it cuts (issue 18:
it stopped silently at 1000 rows); a result of exactly 1000 rows is printed whole, without
the note. In process, on the test session; the plans are `values` of n rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drillspark.cli.main import main as cli_main

HEAD = {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "test"}}


def values_plan(folder: Path, n: int) -> str:
    path = folder / f"rows{n}.json"
    content = [{"i": i} for i in range(n)]
    path.write_text(
        json.dumps({"head": HEAD, "query": [{"op": "values", "@id": 1, "content": content}]})
    )
    return str(path)


@pytest.mark.usefixtures("spark")  # the CLI runs in process on the session
def test_the_table_says_when_it_cuts(tmp_path, capsys):
    assert cli_main(["run", values_plan(tmp_path, 1001)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    header, *rows = [line.split()[1] for line in lines if line.startswith("| ")]
    assert header == "i" and rows == [str(i) for i in range(1000)]
    assert lines[-1] == "only showing the first 1000 rows"
    assert "the table shows the first 1000 rows; use --format json or csv" in err

    assert cli_main(["run", values_plan(tmp_path, 1000)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "1000 rows selected" and err == ""
    # the other formats print every row
    assert cli_main(["run", values_plan(tmp_path, 1001), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(x)["i"] for x in out.splitlines()] == list(range(1001)) and err == ""
