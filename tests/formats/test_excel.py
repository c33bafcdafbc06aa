"""The `excel` format through both doors (drillspark.sql and spark.read.format("drill-excel")),
against Drill 1.22's answers (with its contrib excel plugin) over the same workbooks
(tests/formats/data/drill_excel_answers.json: Drill's REST answers, types as Drill names them,
TIMESTAMPs as epoch milliseconds); the workbooks are written here with openpyxl."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from tests.formats.conftest import answers

DRILL = answers("drill_excel_answers")

DRILL_TYPES = {
    "StringType": "VARCHAR",
    "DoubleType": "FLOAT8",
    "TimestampNTZType": "TIMESTAMP",
    "BooleanType": "BIT",
    "ArrayType": "VARCHAR",  # REST names a repeated column by its element type
}


def rest_value(v: Any) -> Any:
    """A value as Drill's REST API writes it (a TIMESTAMP as epoch milliseconds)."""
    if isinstance(v, datetime.datetime):
        return int(v.replace(tzinfo=datetime.UTC).timestamp() * 1000)
    return v


def as_drill(df: Any) -> dict[str, Any]:
    return {
        "columns": df.columns,
        "types": [DRILL_TYPES[type(f.dataType).__name__] for f in df.schema],
        "rows": [[rest_value(v) for v in r] for r in df.collect()],
    }


def write_books(folder: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "First"
    ws.append(["name", "age", "birth", "score", "name", None, "Last Col"])
    ws.append(["ann", 31, datetime.datetime(1993, 5, 17, 10, 30), 2.5, "x", "p", 1])
    ws.append(["bob", 42, datetime.datetime(1982, 1, 2), None, "y", None, 2])
    ws.append([None, 7, None, 1e20, None, "q", 3])
    ws.append(["dan", "text", datetime.date(2020, 2, 29), -3, "z", None, "four"])
    s2 = wb.create_sheet("Second")
    s2.append(["a b", "", "c-d", "E"])
    s2.append([1, 2, 3, 4])
    s2.append([5.5, None, "s", 8])
    wb.properties.creator = "tester"
    wb.properties.title = "T1"
    wb.save(folder / "book2.xlsx")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["a.b", " sp ", "x*y", "line\nbreak", 12, "a.b"])
    ws.append([1, 2, 3, 4, 5, 6])
    wb.save(folder / "heads.xlsx")
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in (["a", "b"], [None, None], [1, "x"], [2, 3]):
        ws.append(row)
    wb.save(folder / "blankfirst.xlsx")
    (folder / "dir" / "sub").mkdir(parents=True)
    for name, v in (("dir/one.xlsx", 1), ("dir/sub/two.xlsx", 2)):
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(["k", "v"])
        ws.append([v, f"s{v}"])
        wb.save(folder / name)
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in (["b", "n"], [True, 1], [False, 2]):
        ws.append(row)
    wb.save(folder / "bool.xlsx")
    (folder / "bad.xlsx").write_bytes(b"PK\x03\x04this is not a workbook" * 10)


@pytest.fixture
def books(tmp_path: Path) -> Path:
    write_books(tmp_path)
    return tmp_path


# The cases whose answers drillspark gives as Drill does, by both doors: (Drill's SQL, the
# spark.read options of the same read)
CASES = [
    ("SELECT * FROM dfs.`book2.xlsx`", {}),
    ("SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', sheetName => 'Second'))",
     {"sheetName": "Second"}),
    ("SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', headerRow => -1))", {"headerRow": -1}),
    ("SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', allTextMode => true))",
     {"allTextMode": True}),
    ("SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', firstColumn => 2, lastColumn => 3))",
     {"firstColumn": 2, "lastColumn": 3}),
    ("SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', lastRow => 2))", {"lastRow": 2}),
    ("SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', headerRow => 1))", {"headerRow": 1}),
    ("SELECT * FROM dfs.`heads.xlsx`", {}),
    ("SELECT * FROM dfs.`blankfirst.xlsx`", {}),
]  # fmt: skip


@pytest.mark.parametrize(("query", "options"), CASES, ids=[c[0][14:70] for c in CASES])
def test_as_drill_both_doors(spark, sql, books, query, options):
    want = {k: DRILL[query][k] for k in ("columns", "types", "rows")}
    got = sql(query.replace("dfs.`", "dfs.data.`"))
    assert as_drill(got) == want
    file = query.split("`")[1]
    direct = spark.read.format("drill-excel").options(**options).load(str(books / file))
    assert as_drill(direct) == want


def test_folder(sql, spark, books):
    """A folder of workbooks: Drill's rows; dir0 when named (Drill 1.22 leaves it out of `*`
    for excel; drillspark's `*` has it, docs/formats.md)."""
    want = DRILL["SELECT * FROM dfs.`dir`"]
    got = sql("SELECT k, v FROM dfs.data.`dir` ORDER BY k")
    assert as_drill(got)["rows"] == want["rows"]
    got = sql("SELECT k, dir0, filename FROM dfs.data.`dir` ORDER BY k").collect()
    assert [tuple(r) for r in got] == [(1.0, None, "one.xlsx"), (2.0, "sub", "two.xlsx")]


def test_metadata_columns(sql, spark, books):
    q = (
        "SELECT _sheets, _creator, _title, _last_modified_by, _created_date, _modified_date, "
        "_category, _content_status, _description, _keywords, _subject, _revision, _manager, "
        "_company FROM dfs.`book2.xlsx` LIMIT 1"
    )
    want = DRILL[q]
    got = sql(q.replace("dfs.`", "dfs.data.`"))
    assert got.columns == want["columns"]
    row = got.collect()[0].asDict()
    expected = dict(zip(want["columns"], want["rows"][0], strict=True))
    # Drill 1.22 answers NULL for the workbook's creation and modification dates that the
    # file holds (openpyxl writes both); drillspark gives them, as ISO-8601 text (docs/formats.md)
    for date in ("_created_date", "_modified_date"):
        assert row.pop(date).endswith("Z")
        assert expected.pop(date) is None
    assert row == expected
    # absent from `*`, as in Drill
    assert "_sheets" not in sql("SELECT * FROM dfs.data.`book2.xlsx`").columns
    direct = spark.read.format("drill-excel").option("metadataColumns", "_sheets,_title")
    assert direct.load(str(books / "book2.xlsx")).select("_sheets", "_title").first() == (
        ["First", "Second"],
        "T1",
    )


def test_errors_name_the_file(sql, spark, books):
    for query, words in (
        ("SELECT * FROM dfs.`bad.xlsx`", "Unsupported File Format (only xlsx files are supported)"),
        (
            "SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', sheetName => 'Nope'))",
            "VALIDATION ERROR: Could not open sheet Nope",
        ),
    ):
        assert words in DRILL[query]["error"]
        with pytest.raises(Exception) as e:
            sql(query.replace("dfs.`", "dfs.data.`")).collect()
        text = str(e.value)
        assert words in text and query.split("`")[1] in text and "\tat " not in text


def test_booleans(sql, books):
    """Drill 1.22 drops a column whose first value is a boolean and misplaces the next
    column's values (its answer: column n only, [null, 0.0]); drillspark reads it as BIT
    (docs/formats.md)."""
    assert DRILL["SELECT * FROM dfs.`bool.xlsx`"]["columns"] == ["n"]
    got = sql("SELECT * FROM dfs.data.`bool.xlsx`")
    assert as_drill(got) == {
        "columns": ["b", "n"],
        "types": ["BIT", "FLOAT8"],
        "rows": [[True, 1.0], [False, 2.0]],
    }


def test_config_via_storage_formats(sql, books):
    """A dfs `formats` entry as session(storage={"dfs": {"formats": ...}}) gives it: its
    options apply to files of its extensions, and a table function's options go over them."""
    formats = {"excel": {"type": "excel", "extensions": ["xlsx"], "sheetName": "Second"}}
    got = sql("SELECT * FROM dfs.data.`book2.xlsx`", formats=formats)
    assert got.columns == ["a b", "field_2", "c-d", "E"]
    got = sql(
        "SELECT * FROM table(dfs.data.`book2.xlsx`(type => 'excel', sheetName => 'First'))",
        formats=formats,
    )
    assert got.columns[0] == "name"


def test_bad_options(sql, books):
    with pytest.raises(Exception) as e:
        sql("SELECT * FROM table(dfs.data.`book2.xlsx`(type => 'excel', headerRow => 'x'))")
    assert "option 'headerRow' must be an integer" in str(e.value)
    with pytest.raises(Exception) as e:
        sql("SELECT * FROM table(dfs.data.`book2.xlsx`(type => 'excel', sheet => 'x'))")
    assert "unknown option 'sheet' for format type 'excel'" in str(e.value)


def test_ignore_errors_false_fails_on_a_cell_of_another_kind(sql, books):
    """With ignoreErrors false a cell its column cannot hold (`text` in the FLOAT8 `age`) fails
    the query in Drill's words; by default it is NULL (the first case above)."""
    q = "SELECT * FROM table(dfs.`book2.xlsx`(type => 'excel', ignoreErrors => false))"
    words = 'Error writing data: For input string: "text"'
    assert words in DRILL[q]["error"]
    with pytest.raises(Exception) as e:
        sql(q.replace("dfs.`", "dfs.data.`")).collect()
    text = str(e.value)
    assert words in text and "book2.xlsx" in text and "row 5, column 2" in text


def test_missing_header_cell_named_by_the_value_under_it(sql, tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "m2"  # B1 is not written at all
    ws["A1"], ws["C1"], ws["A2"], ws["B2"], ws["C2"] = "a", "c", 1, 2, "t"
    ws = wb.create_sheet("twonum")
    ws["A1"], ws["D1"] = "a", "d"
    ws["A2"], ws["B2"], ws["C2"], ws["D2"] = 1, 2, 3, 4
    ws = wb.create_sheet("blankdata")
    ws["A1"], ws["C1"], ws["A2"], ws["C2"] = "a", "c", 1, 3
    ws["A3"], ws["B3"], ws["C3"] = 1, 2, 3
    ws = wb.create_sheet("text")
    ws["A1"], ws["C1"], ws["A2"], ws["B2"], ws["C2"] = "a", "c", 1, "s", 3
    wb.save(tmp_path / "miss.xlsx")

    def read(sheet: str) -> dict[str, Any]:
        return as_drill(
            sql(
                f"SELECT * FROM table(dfs.data.`miss.xlsx`(type => 'excel', sheetName => '{sheet}'))"
            )
        )

    # Drill 1.22 (2026-12-07): a, field_2, c with [1.0, 2.0, 't']; `SELECT a, field_2` [1.0, 2.0]
    assert read("m2") == {
        "columns": ["a", "field_2", "c"],
        "types": ["FLOAT8", "FLOAT8", "VARCHAR"],
        "rows": [[1.0, 2.0, "t"]],
    }
    got = sql(
        "SELECT a, field_2 FROM table(dfs.data.`miss.xlsx`(type => 'excel', sheetName => 'm2'))"
    )
    assert [tuple(r) for r in got.collect()] == [(1.0, 2.0)]
    # Drill 1.22 (2026-12-07): a, field_2, field_3, d
    assert read("twonum")["columns"] == ["a", "field_2", "field_3", "d"]
    # Drill 1.22 (2026-12-07): no cell under it either: field_2 (VARCHAR), [[1.0, null, 3.0],
    # [1.0, "2", 3.0]]
    assert read("blankdata") == {
        "columns": ["a", "field_2", "c"],
        "types": ["FLOAT8", "VARCHAR", "FLOAT8"],
        "rows": [[1.0, None, 3.0], [1.0, "2", 3.0]],
    }
    # Drill 1.22 (2026-12-07): over a text value the name is "" (a, "", c)
    assert read("text")["columns"] == ["a", "", "c"]
