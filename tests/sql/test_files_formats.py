"""Files and formats as Drill 1.22 reads them: the text reader (csv/csvh/tsv/.tbl, table-function
options, inline schemas), Parquet TIME and pre-1.9 Drill dates, implicit columns on every
format. Expected values are what real Drill 1.22 answered for the same files and queries."""

from __future__ import annotations

import datetime

import pytest

from drillspark.formats import FormatError
from drillspark.formats.text import TextFormat
from drillspark.sql import SqlEngine, SqlSession


@pytest.fixture
def data(spark, shared, tmp_path):
    """An engine whose `dfs` root is shared/data (the breadth corpus' root)."""
    return SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp_path / "ws")})
    )


@pytest.fixture
def files(spark, tmp_path):
    """An engine over a scratch folder the test writes its own files into."""
    (tmp_path / "ws").mkdir()
    return SqlEngine(
        spark, SqlSession(workspaces={"root": str(tmp_path), "tmp": str(tmp_path / "ws")})
    ), tmp_path


def rows(engine, sql):
    result = engine.execute(sql)[-1]
    return result.df.columns, [tuple(r) for r in result.df.collect()]


# ------------------------------------------------------------------ the record parser
# (the extension's `drill-text` source, the one reader of both doors)


def records(spark, path, text, **options):
    """The records of `text` written to `path`, each the `columns` array of one row."""
    path.write_bytes(text.encode("utf-8"))
    df = spark.read.format("drill-text").options(**options).load(str(path))
    return [list(r["columns"]) for r in df.collect()]


def header_names(spark, path, fields):
    """The column names the `drill-text` source gives a .csvh file with this header."""
    quoted = ",".join('"' + f.replace('"', '""') + '"' for f in fields)
    path.write_text(quoted + "\n")
    return spark.read.format("drill-text").load(str(path)).columns


def test_empty_lines_trailing_delimiters_and_spaces_kept(spark, tmp_path):
    text = "a,b,c\n\n1,2,\n3,,5\n\n6\n  7 , 8 ,9\n"
    assert records(spark, tmp_path / "t.csv", text) == [
        ["a", "b", "c"],
        [],
        ["1", "2", ""],
        ["3", "", "5"],
        [],
        ["6"],
        ["  7 ", " 8 ", "9"],
    ]


def test_carriage_return_stays_in_the_last_field(spark, tmp_path):
    assert records(spark, tmp_path / "t.csv", "1,2,3\r\n4,5,6\r\n") == [
        ["1", "2", "3\r"],
        ["4", "5", "6\r"],
    ]


def test_quotes_doubled_quotes_and_quotes_that_do_not_end_a_field(spark, tmp_path):
    text = '1,"hello, world"\n2,"say ""hi"""\n3,""\n4,a"b\n5,"a\\"b"\n'
    assert records(spark, tmp_path / "t.csv", text) == [
        ["1", "hello, world"],
        ["2", 'say "hi"'],
        ["3", ""],
        ["4", 'a"b'],
        ["5", 'a\\"b'],
    ]
    # a quoted field spans lines; a quote followed by text keeps going to the end of the file
    assert records(spark, tmp_path / "t.csv", '1,"multi\nline",z\n2,b,c\n') == [
        ["1", "multi\nline", "z"],
        ["2", "b", "c"],
    ]
    assert records(spark, tmp_path / "t.csv", '1,a"b\n2,"x"y\n') == [["1", 'a"b'], ["2", 'x"y\n']]


def test_comment_lines_and_other_line_delimiters(spark, tmp_path):
    assert records(spark, tmp_path / "t.csv", "# c\n1,a\n#two\n2,b\n") == [["1", "a"], ["2", "b"]]
    semi = records(spark, tmp_path / "t.csv", "1,a;2,b;3,c", lineDelimiter=";")
    assert semi == [["1", "a"], ["2", "b"], ["3", "c"]]


def test_header_names_trimmed_unique_and_never_empty(spark, tmp_path):
    assert header_names(spark, tmp_path / "h.csvh", ["a", " b ", "c"]) == ["a", "b", "c"]
    got = header_names(spark, tmp_path / "h.csvh", ["a", "a", ""])
    assert got == ["a", "a_2", "column_3"]


def test_header_names_cleaned_as_drill_names_them(spark, tmp_path):
    # Drill 1.22's names for this header (SELECT * FROM a .csvh file, and the same through
    # table(... extractHeader => true)): not-letter-or-digit -> '_', 'col_' before a name
    # that does not start with a letter, then unique ignoring case
    header = [
        "first name",
        "a-b",
        "1abc",
        "_x",
        "été",
        "a.b",
        "",
        "id",
        "ID",
        "col1",
        "Total ($)",
        "  sp  ",
        "x",
    ]
    assert header_names(spark, tmp_path / "h.csvh", header) == [
        "first_name",
        "a_b",
        "col_1abc",
        "col_x",
        "été",
        "a_b_2",
        "column_7",
        "id",
        "ID_2",
        "col1",
        "Total____",
        "sp",
        "x",
    ]
    more = ["5200.5", "2019-03-01", "true", "-1", "a b c", "q,uoted", "NULL"]
    assert header_names(spark, tmp_path / "h.csvh", more) == [
        "col_5200_5",
        "col_2019_03_01",
        "true",
        "col_1",
        "a_b_c",
        "q_uoted",
        "NULL",
    ]


def test_a_longer_field_delimiter_uses_its_first_character(spark, tmp_path):
    # Drill: fieldDelimiter => '||' or '|x' splits on '|'; 'aaaa' on 'a'
    for delim in ("||", "|x"):
        got = records(spark, tmp_path / "t.csv", "1|Alice|Smith\n", fieldDelimiter=delim)
        assert got == [["1", "Alice", "Smith"]]
    assert records(spark, tmp_path / "t.csv", "1aaaa2 3aaaa4aaa5\n", fieldDelimiter="aaaa") == [
        ["1", "", "", "", "2 3", "", "", "", "4", "", "", "5"]
    ]


def test_unknown_text_option_is_refused():
    with pytest.raises(FormatError, match="unknown option 'fieldDelimeter' for format type 'text'"):
        TextFormat.config({"fieldDelimeter": ";"})


# ------------------------------------------------------------------ text formats in SQL


def test_tbl_files_are_pipe_delimited(data):
    cols, got = rows(
        data,
        "SELECT columns[1] AS n FROM dfs.`breadth/tpch_text/nation.tbl` WHERE columns[2] = '0'",
    )
    assert cols == ["n"]
    assert sorted(r[0] for r in got) == ["ALGERIA", "ETHIOPIA", "KENYA", "MOROCCO", "MOZAMBIQUE"]
    _, got = rows(
        data, "SELECT columns FROM dfs.`breadth/own/text/people.tbl` WHERE columns[0] = '2'"
    )
    assert got == [(["2", "Bob", "Jones", "Sales", "4100.0", "2020-07-15", "false"],)]


def test_csvh_quotes_and_empty_lines(files):
    engine, root = files
    (root / "q.csvh").write_text('id,note\n1,"hello, world"\n2,"say ""hi"""\n3,plain\n4,""\n')
    assert rows(engine, "SELECT * FROM dfs.`q.csvh`") == (
        ["id", "note"],
        [("1", "hello, world"), ("2", 'say "hi"'), ("3", "plain"), ("4", "")],
    )
    # with a header: a short or empty line fills '', extra fields are dropped
    (root / "hs.csvh").write_text('a, b ,c\n1,2\n\n3,4,5,6\n"x,y",,\n')
    assert rows(engine, "SELECT * FROM dfs.`hs.csvh`") == (
        ["a", "b", "c"],
        [("1", "2", ""), ("", "", ""), ("3", "4", "5"), ("x,y", "", "")],
    )


def test_headerless_empty_lines_are_empty_arrays(files):
    engine, root = files
    (root / "e.csv").write_text("a,b,c\n\n1,2,\n")
    assert rows(engine, "SELECT columns, columns[0] AS c0, columns[5] AS c5 FROM dfs.`e.csv`")[
        1
    ] == [(["a", "b", "c"], "a", None), ([], None, None), (["1", "2", ""], "1", None)]


def test_table_function_text_options(files):
    engine, root = files
    (root / "s.txt").write_text("a;b;c\n1;2;3\n4;5;6\n")
    assert rows(
        engine,
        "SELECT * FROM TABLE(dfs.`s.txt`(type => 'text', fieldDelimiter => ';', "
        "skipFirstLine => true))",
    )[1] == [(["1", "2", "3"],), (["4", "5", "6"],)]
    # skipFirstLine does not apply when the first line is the header
    (root / "h.csv").write_text("id,n\n1,a\n2,b\n")
    assert rows(
        engine,
        "SELECT * FROM TABLE(dfs.`h.csv`(type => 'text', fieldDelimiter => ',', "
        "extractHeader => true, skipFirstLine => true))",
    ) == (["id", "n"], [("1", "a"), ("2", "b")])
    (root / "ld.csv").write_text("1,a;2,b;3,c")
    assert rows(
        engine,
        "SELECT * FROM TABLE(dfs.`ld.csv`(type => 'text', fieldDelimiter => ',', "
        "lineDelimiter => ';'))",
    )[1] == [(["1", "a"],), (["2", "b"],), (["3", "c"],)]
    (root / "c.csv").write_text("# comment\n1,a\n")
    assert rows(engine, "SELECT * FROM dfs.`c.csv`")[1] == [(["1", "a"],)]


def test_delimiter_escapes_and_newlines_under_another_line_delimiter(files):
    engine, root = files
    (root / "tab.txt").write_text("1\t2\n3\t4\n")
    for delim in ("\\t", "\\u0009"):  # Java escapes, as Drill reads them
        assert rows(
            engine,
            f"SELECT * FROM TABLE(dfs.`tab.txt`(type => 'text', fieldDelimiter => '{delim}'))",
        )[1] == [(["1", "2"],), (["3", "4"],)]
    (root / "bs.csv").write_text("1\\a\\b\n")
    assert rows(
        engine, "SELECT * FROM TABLE(dfs.`bs.csv`(type => 'text', fieldDelimiter => '\\\\'))"
    )[1] == [(["1", "a", "b"],)]
    # a newline still ends a line when lineDelimiter is something else
    (root / "ld.csv").write_text("a,b|c,d\ne,f|g,h\n")
    assert rows(
        engine,
        "SELECT * FROM TABLE(dfs.`ld.csv`(type => 'text', fieldDelimiter => ',', "
        "lineDelimiter => '|', extractHeader => true))",
    ) == (["a", "b"], [("c", "d"), ("e", "f"), ("g", "h")])


def test_json_table_function_takes_text_and_double_modes_from_the_session(data):
    # Drill 1.22 ignores allTextMode / readNumbersAsDouble given in a table function
    assert rows(
        data,
        "SELECT id, salary FROM TABLE(dfs.`breadth/own/json/people.json`(type => 'json', "
        "allTextMode => true)) WHERE id = 3",
    ) == (["id", "salary"], [(3, 7300.25)])
    assert rows(
        data,
        "SELECT id, i FROM TABLE(dfs.`breadth/own/json/nums.json`(type => 'json', "
        "readNumbersAsDouble => true)) WHERE id < 3",
    ) == (["id", "i"], [(1, 10), (2, -3)])


def test_parquet_files_that_type_a_column_differently(data):
    # contributions is DECIMAL(6,2) in some files, DOUBLE in others: Drill reads each file alone
    assert rows(
        data,
        "SELECT dir0, COUNT(*) AS n FROM dfs.`breadth/tf/min_max_dir/data` "
        "GROUP BY dir0 ORDER BY dir0",
    )[1] == [("1985", 75), ("1999", 35), ("2005", 55), ("2014", 120), ("2016", 315)]
    assert rows(
        data, "SELECT MAX(dir0) AS y, MIN(dir1) AS m FROM dfs.`breadth/tf/min_max_dir/data`"
    )[1] == [("2016", "Apr")]


def test_inline_schema_types_columns_by_name_or_position(files):
    engine, root = files
    (root / "q.csvh").write_text("id,note\n1,x\n2,y\n")
    cols, got = rows(
        engine, "SELECT *, typeof(id) FROM TABLE(dfs.`q.csvh`(schema => 'inline=(id int)'))"
    )
    assert cols == ["id", "note", "EXPR$1"] and got == [(1, "x", "INT"), (2, "y", "INT")]
    # provided columns first; one the file lacks is null
    assert rows(
        engine,
        "SELECT * FROM TABLE(dfs.`q.csvh`(schema => 'inline=(id int not null, extra varchar)'))",
    ) == (["id", "extra", "note"], [(1, None, "x"), (2, None, "y")])
    # without a header the provided columns are the fields in order
    (root / "nh.csv").write_text("1,Al,true\n2,Bo,false\n")
    assert rows(
        engine,
        "SELECT * FROM TABLE(dfs.`nh.csv`(schema => 'inline=(id int, name varchar, ok boolean)'))",
    ) == (["id", "name", "ok"], [(1, "Al", True), (2, "Bo", False)])
    assert rows(engine, "SELECT * FROM TABLE(dfs.`nh.csv`(schema => 'inline=(id int)'))") == (
        ["id"],
        [(1,), (2,)],
    )


def test_inline_schema_through_spark_door_is_the_same_reader(spark, files):
    # one reader for both doors (#37): spark.read.format("drill-text") takes the provided
    # schema as drillspark.sql does, with the same answer
    engine, root = files
    (root / "s.csvh").write_text("id,note\n1,x\n,y\n")
    sql = "SELECT * FROM TABLE(dfs.`s.csvh`(schema => 'inline=(id int, extra varchar)'))"
    want = rows(engine, sql)
    assert want == (["id", "extra", "note"], [(1, None, "x"), (None, None, "y")])
    df = spark.read.format("drill-text").option("schema", "inline=(id int, extra varchar)")
    df = df.load(str(root / "s.csvh"))
    assert df.dtypes == [("id", "int"), ("extra", "string"), ("note", "string")]
    assert (df.columns, [tuple(r) for r in df.collect()]) == want
    # a field the type cannot read fails naming the file, record and column
    (root / "bad.csvh").write_text("id\n1\nabc\n")
    with pytest.raises(
        Exception, match=r"bad.csvh \(record 3, column id\): 'abc' cannot be read as INT"
    ):
        rows(engine, "SELECT * FROM TABLE(dfs.`bad.csvh`(schema => 'inline=(id int)'))")


# ------------------------------------------------------------------ implicit columns


def test_implicit_file_columns_on_parquet_json_and_csv(data, shared):
    assert rows(
        data, "SELECT filename FROM dfs.`breadth/tpch/nation.parquet` WHERE n_nationkey = 0"
    )[1] == [("nation.parquet",)]
    _, got = rows(data, "SELECT filename, id FROM dfs.`breadth/own/logs` ORDER BY id")
    assert got[:2] == [("top.json", 0), ("part-2023q1.json", 1)]
    logs = shared / "data" / "breadth" / "own" / "logs_csv" / "2023" / "q1"
    _, got = rows(
        data,
        "SELECT dir0, dir1, filename, filepath, fqn, suffix, id "
        "FROM dfs.`breadth/own/logs_csv` WHERE id = '1'",
    )
    assert got == [
        ("2023", "q1", "part-2023q1.csvh", str(logs), str(logs / "part-2023q1.csvh"), "csvh", "1")
    ]


def test_select_star_has_dirs_but_not_file_columns(files):
    engine, root = files
    (root / "t" / "x").mkdir(parents=True)
    (root / "t" / "x" / "one.csv").write_text("1,a\n")
    (root / "t" / "two.csv").write_text("2,b\n")
    cols, got = rows(engine, "SELECT * FROM dfs.`t` WHERE filename = 'one.csv'")
    assert cols == ["columns", "dir0"] and got == [(["1", "a"], "x")]
    cols, got = rows(engine, "SELECT *, filename FROM dfs.`t` ORDER BY filename")
    assert cols == ["columns", "dir0", "filename"]
    assert got == [(["1", "a"], "x", "one.csv"), (["2", "b"], None, "two.csv")]


def test_parquet_dirs_come_first(files, shared):
    engine, root = files
    region = (shared / "data" / "breadth" / "tpch" / "region.parquet").read_bytes()
    (root / "p" / "2020" / "q1").mkdir(parents=True)
    (root / "p" / "2020" / "q1" / "r.parquet").write_bytes(region)
    (root / "p" / "top.parquet").write_bytes(region)
    cols, _ = rows(engine, "SELECT * FROM dfs.`p`")
    assert cols == ["dir0", "dir1", "r_regionkey", "r_name", "r_comment"]
    assert sorted(
        rows(engine, "SELECT dir0, dir1, filename, suffix FROM dfs.`p` WHERE r_regionkey = 1")[1],
        key=str,
    ) == [("2020", "q1", "r.parquet", "parquet"), (None, None, "top.parquet", "parquet")]


# ------------------------------------------------------------------ Parquet types


def test_parquet_time_millis_reads_as_time(data):
    cols, got = rows(
        data,
        "SELECT c_time, typeof(c_time), c_date, c_timestamp, d9, d38 "
        "FROM dfs.`breadth/tf/aggregation/alltypes` WHERE c_integer = 451237400",
    )
    assert got[0][:4] == (
        datetime.time(18, 21, 6),
        "TIME",
        datetime.date(2015, 1, 21),
        datetime.datetime(2014, 1, 17, 16, 14, 25),
    )
    assert float(got[0][4]) == 1032.65 and float(got[0][5]) == 1032.65157
    _, got = rows(
        data,
        "SELECT col8 FROM dfs.`breadth/tf/window_functions/fewRowsAllData.parquet`"
        " WHERE col5 = DATE '2000-10-18'",
    )
    assert got == [(datetime.time(18, 44, 25, 430000),)]


def test_pre_1_9_drill_dates_are_corrected(data):
    assert rows(data, "SELECT c1 FROM dfs.`breadth/tf/aggregation/t1` WHERE a1 < 3 ORDER BY a1")[
        1
    ] == [(datetime.date(2015, 1, 1),), (datetime.date(2015, 1, 2),)]
    # a file that records drill.version 1.6: every date is shifted back
    _, got = rows(data, "SELECT c7 FROM dfs.`breadth/tf/window_functions/t_alltype.parquet`")
    assert got[:2] == [(datetime.date(1960, 4, 10),), (datetime.date(1920, 5, 14),)]
    # autoCorrectCorruptDates => false reads the stored values as they are
    assert rows(
        data,
        "SELECT CAST(c1 AS VARCHAR) AS d FROM TABLE(dfs.`breadth/tf/aggregation/t1`"
        "(type => 'parquet', autoCorrectCorruptDates => false)) WHERE a1 = 1",
    )[1] == [("+15379-03-17",)]


def test_file_column_selected_in_a_subquery_reaches_an_outer_star(files):
    engine, root = files
    (root / "a.csv").write_text("1,x\n")
    assert rows(engine, "SELECT * FROM (SELECT filename, columns[0] AS c FROM dfs.`a.csv`)") == (
        ["filename", "c"],
        [("a.csv", "1")],
    )


def test_text_columns_from_a_header_are_not_null_and_missing_ones_empty(files):
    # Drill 1.22: a header column is VARCHAR NOT NULL; a column the text file does not have
    # is '' (VARCHAR NOT NULL), not NULL, with or without a header
    engine, root = files
    (root / "plain.csvh").write_text("a,b\n1,2\n")
    (root / "p.csv").write_text("1,Alice\n2,Bob\n")
    assert rows(
        engine, "SELECT a, zz, typeof(zz) t, modeof(zz) m, modeof(a) ma FROM dfs.`plain.csvh`"
    ) == (["a", "zz", "t", "m", "ma"], [("1", "", "VARCHAR", "NOT NULL", "NOT NULL")])
    assert rows(engine, "SELECT a, zz FROM dfs.`plain.csvh` WHERE zz IS NULL")[1] == []
    assert rows(engine, "SELECT COUNT(zz) c FROM dfs.`plain.csvh`")[1] == [(1,)]
    assert rows(engine, "SELECT columns[0] AS c, x FROM dfs.`p.csv` WHERE columns[0] = '1'")[1] == [
        ("1", "")
    ]
    assert rows(
        engine,
        "SELECT typeof(columns[0]) t, modeof(columns[0]) m FROM dfs.`p.csv` WHERE columns[0] = '1'",
    )[1] == [("VARCHAR", "NULLABLE")]


def test_extract_header_over_a_headerless_file_cleans_the_names(data):
    # Drill 1.22: the first data line becomes the header ('1' -> col_1, '5200.5' ->
    # col_5200_5); a column named as written before cleaning does not exist: ''
    sql = (
        "SELECT * FROM TABLE(dfs.`breadth/own/text/people.csv`(type => 'text', "
        "fieldDelimiter => ',', extractHeader => true)) WHERE Alice = 'Bob'"
    )
    assert rows(data, sql) == (
        ["col_1", "Alice", "Smith", "Sales", "col_5200_5", "col_2019_03_01", "true"],
        [("2", "Bob", "Jones", "Sales", "4100.0", "2020-07-15", "false")],
    )
    sql = (
        "SELECT `5200.5` FROM TABLE(dfs.`breadth/own/text/people.csv`(type => 'text', "
        "fieldDelimiter => ',', extractHeader => true)) WHERE col_1 = '3'"
    )
    assert rows(data, sql) == (["5200.5"], [("",)])


def test_parquet_required_columns_are_not_null(data):
    # Drill 1.22: modeof of a REQUIRED Parquet column is NOT NULL, of an OPTIONAL one NULLABLE
    assert rows(
        data,
        "SELECT modeof(r_name) a, modeof(r_regionkey) b, sqltypeof(r_regionkey) c "
        "FROM dfs.`breadth/tpch/region.parquet` WHERE r_regionkey = 1",
    )[1] == [("NOT NULL", "NOT NULL", "INTEGER")]
    assert rows(
        data,
        "SELECT modeof(c_integer) a, typeof(c_integer) b, modeof(c_date) c "
        "FROM dfs.`breadth/tf/aggregation/alltypes` LIMIT 1",
    )[1] == [("NULLABLE", "INT", "NULLABLE")]
    assert rows(
        data,
        "SELECT modeof(c_name) a, modeof(orders) b, typeof(orders) c FROM "
        "dfs.`breadth/drilltest/lateraljoin/nested-customer.parquet` LIMIT 1",
    )[1] == [("NULLABLE", "ARRAY", "MAP")]


def test_select_star_over_text_lists_the_missing_columns_the_query_names(data):
    # Drill 1.22: SELECT * over a text file adds a column named elsewhere in the query (WHERE,
    # ORDER BY) that the file lacks, as ''; JSON and Parquet do not
    csvh = "dfs.`breadth/own/text/people.csvh`"
    cols, got = rows(data, f"SELECT *, 1 AS k FROM {csvh} WHERE yy = '' AND id = '2'")
    assert cols == ["id", "first_name", "last_name", "dept", "salary", "hired", "active", "yy", "k"]
    assert got == [("2", "Bob", "Jones", "Sales", "4100.0", "2020-07-15", "false", "", 1)]
    assert rows(
        data,
        "SELECT * FROM dfs.`breadth/own/text/people.csv` WHERE nosuch = '' AND columns[0] = '1'",
    ) == (
        ["columns", "nosuch"],
        [(["1", "Alice", "Smith", "Sales", "5200.5", "2019-03-01", "true"], "")],
    )
    assert rows(
        data, "SELECT * FROM dfs.`breadth/own/json/depts.json` WHERE nosuch IS NULL AND floor = 1"
    ) == (["dept", "floor", "manager_id"], [("Sales", 1, 1)])
