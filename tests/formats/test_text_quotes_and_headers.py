"""The text format's closing quotes and header lines as Drill 1.22 reads them (each answer asked
of Drill on 2026-12-07): blanks (spaces, tabs, a carriage return, any control character but
a line feed) between a closing quote and the delimiter or the line's end are skipped, so a
CRLF file whose fields are quoted (Excel's CSV) reads one record a line, where the quote before `\\r` had been text and the field ran on
through the file; a quote followed by other text is text. A header file whose header line is
empty is refused naming the file, not read as a table of no columns (every row lost); an
empty file is an empty table. Through drillspark.sql (the `drill-text` source Spark's door
reads too), whole and cut into splits."""

from __future__ import annotations

import pytest
from tests.formats.test_text_splits import split_size

from drillspark.errors import Error

# Drill 1.22: SELECT columns FROM dfs.`ws.csv`
BLANKS = '"a"  ,b\n"c" x,d\n"e"\t,f\n"g"  \nh,"i" \n"j" "k",l\n'
BLANKS_DRILL = [["a", "b"], ['c" x,d\n"e', "f"], ["g"], ["h", "i"], ['j" "k', "l"]]

# Excel's CSV: every field quoted, CRLF line ends (Drill: [id,name], [1,x], [2,y])
EXCEL = '"id","name"\r\n"1","x"\r\n"2","y"\r\n'


def columns(sql, name: str) -> list[list[str]]:
    return [list(r[0]) for r in sql(f"SELECT columns FROM dfs.data.`{name}`").collect()]


def test_blanks_after_a_closing_quote_are_skipped_before_a_delimiter_or_a_line_end(
    sql, spark, tmp_path
):
    (tmp_path / "ws.csv").write_text(BLANKS)
    assert columns(sql, "ws.csv") == BLANKS_DRILL
    # a tab that is the delimiter is not a blank: `"x" \t"y"` is x, y in a TSV (Drill too)
    (tmp_path / "t.tsv").write_bytes(b'a\tb\n"x" \t"y"\r\n"p"\t q\n')
    assert columns(sql, "t.tsv") == [["a", "b"], ["x", "y"], ["p", " q"]]
    # any control character is a blank there (Drill: [a, b], [c, d], [e])
    (tmp_path / "ctl.csv").write_bytes(b'"a"\x01,b\n"c"\x0b,d\n"e"\x1f\n')
    assert columns(sql, "ctl.csv") == [["a", "b"], ["c", "d"], ["e"]]


def test_a_crlf_file_of_quoted_fields_reads_a_record_a_line_whole_and_in_cuts(sql, spark, tmp_path):
    (tmp_path / "excel.csv").write_bytes(EXCEL.encode())
    (tmp_path / "excel.csvh").write_bytes(EXCEL.encode())
    assert columns(sql, "excel.csv") == [["id", "name"], ["1", "x"], ["2", "y"]]
    rows = [tuple(r) for r in sql("SELECT * FROM dfs.data.`excel.csvh`").collect()]
    assert rows == [("1", "x"), ("2", "y")]
    # a larger one, cut anywhere: every record once, each field without its quotes or the \r
    lines = ['"id","name","note"'] + [f'"{i}","n {i}","a, b"' for i in range(300)]
    (tmp_path / "big.csvh").write_bytes(("\r\n".join(lines) + "\r\n").encode())
    expected = [(str(i), f"n {i}", "a, b") for i in range(300)]
    for size in (None, "97", "1000"):
        with split_size(spark, size):
            df = sql("SELECT * FROM dfs.data.`big.csvh`")
            assert df.columns == ["id", "name", "note"]
            assert sorted(tuple(r) for r in df.collect()) == sorted(expected), size


@pytest.mark.parametrize(
    "text, line", [("\n", 1), ("\na,b\n1,2\n", 1), ("#c\n#d\n\na,b\n1,2\n", 3)]
)
def test_a_header_file_whose_header_line_is_empty_is_refused_naming_it(sql, tmp_path, text, line):
    # Drill: DATA_READ ERROR: The file must define at least one header. (after comment lines too)
    (tmp_path / "h.csvh").write_text(text)
    with pytest.raises(Error) as info:  # found when the table's columns are read
        sql("SELECT * FROM dfs.data.`h.csvh`").collect()
    message = str(info.value)
    assert f"h.csvh (line {line})" in message and "at least one header" in message, message
    assert str(tmp_path) not in message  # the file's name, not where it lies


def test_an_empty_header_file_is_an_empty_table(sql, tmp_path):
    (tmp_path / "e.csvh").write_text("")
    assert sql("SELECT * FROM dfs.data.`e.csvh`").collect() == []


def test_a_column_another_file_has_is_empty_text(sql, spark, tmp_path):
    (tmp_path / "dir" / "sub").mkdir(parents=True)
    (tmp_path / "dir" / "f1.csvh").write_text("a,b\n1,2\n")
    (tmp_path / "dir" / "sub" / "f2.csvh").write_text("a,c\n3,4\n")
    got = sql("SELECT a, b, c, dir0 FROM dfs.data.`dir` ORDER BY a").collect()
    # Drill 1.22 (2026-12-07): ["1","2","",null], ["3","","4","sub"]
    assert [tuple(r) for r in got] == [("1", "2", "", None), ("3", "", "4", "sub")]
    # Drill 1.22 (2026-12-07): 1 row has c = '', none has c IS NULL; modeof(c) NOT NULL
    assert sql("SELECT count(*) FROM dfs.data.`dir` WHERE c = ''").collect()[0][0] == 1
    assert sql("SELECT count(*) FROM dfs.data.`dir` WHERE c IS NULL").collect()[0][0] == 0
    modes = sql("SELECT DISTINCT modeof(c) FROM dfs.data.`dir`").collect()
    assert [r[0] for r in modes] == ["NOT NULL"]
