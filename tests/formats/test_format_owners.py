"""json, text and parquet are owned by their format modules as the newer formats are: the
registry answers which config a file's extension selects (Drill's bootstrap `dfs` formats,
then each format's defaults) and which format writes a `store.format` (Drill's names, file
extensions and delimiters); the SQL layer and the writer ask it instead of keeping tables of
their own. A `dfs` `formats` config of type text reaches the text reader (answers pinned from
Drill 1.22 on the same files, `query.sh --json --plugins`). Text reads alike through
drillspark.sql and Spark's `dfs` catalog."""

from __future__ import annotations

import pytest

from drillspark.formats import registry
from drillspark.formats.base import FormatError


@pytest.mark.parametrize(
    ("ext", "type_name", "delimiter", "header"),
    [
        ("csv", "text", ",", None),
        ("csvh", "text", ",", True),
        ("tsv", "text", "\t", None),
        ("tbl", "text", "|", None),  # Drill's psv config reads *.tbl
        ("psv", "text", "|", None),  # drillspark reads *.psv as psv too
        ("txt", "text", None, None),  # the text type's own default extension
        ("json", "json", None, None),
        ("parquet", "parquet", None, None),
        ("avro", "avro", None, None),
        ("seq", "sequencefile", None, None),  # listed by Drill, refused on read
        ("nope", "json", None, None),  # an unknown extension: JSON, as always
    ],
)
def test_an_extension_selects_drills_bootstrap_config(ext, type_name, delimiter, header):
    got_type, config = registry.selected(ext)
    assert got_type == type_name
    assert config.get("fieldDelimiter") == delimiter
    assert config.get("extractHeader") == header


def test_a_plugins_own_config_and_default_input_format_come_first():
    own = {"csv": {"type": "text", "extensions": ["csv"], "fieldDelimiter": ";"}}
    assert registry.selected("csv", own)[1]["fieldDelimiter"] == ";"
    # an extension no config selects takes the workspace's defaultInputFormat
    assert registry.selected("dat", own, "tsv")[0] == "text"
    assert registry.selected("dat", own, "tsv")[1]["fieldDelimiter"] == "\t"
    assert registry.selected("dat", own, "csv")[1]["fieldDelimiter"] == ";"


@pytest.mark.parametrize(
    ("name", "type_name", "extension", "delimiter"),
    [
        ("parquet", "parquet", "parquet", None),
        ("json", "json", "json", None),
        ("csv", "text", "csv", ","),
        ("tsv", "text", "tsv", "\t"),
        ("PSV", "text", "tbl", "|"),  # Drill writes psv tables as *.tbl
    ],
)
def test_store_format_names_drills_writers(name, type_name, extension, delimiter):
    plugin, store = registry.store_format(name)
    assert (plugin.TYPE, store.extension, store.delimiter) == (type_name, extension, delimiter)


def test_an_unwritten_store_format_is_refused_naming_those_written():
    with pytest.raises(FormatError, match=r"unsupported store.format 'avro' \(drillspark writes "):
        registry.store_format("avro")
    assert registry.store_formats() == ["json", "parquet", "csv", "tsv", "psv"]


def test_the_files_a_table_may_hold_are_every_formats():
    exts = registry.data_extensions()
    assert {"json", "parquet", "csv", "csvh", "tsv", "tbl", "psv", "txt", "avro", "seq"} <= exts
    assert {"xlsx", "xml", "httpd", "pcap"} <= exts
    assert "view" not in exts and "drill" not in exts


# Drill 1.22's answers with these dfs formats: a config of its own (`ssv`), Drill's `csv` over
FORMATS = {
    "ssv": {"type": "text", "extensions": ["ssv"], "fieldDelimiter": ";", "extractHeader": True},
    "csv": {"type": "text", "extensions": ["csv"], "fieldDelimiter": ";"},
}


def test_a_configured_text_format_reaches_the_reader(sql, tmp_path):
    (tmp_path / "a.ssv").write_text("id;name\n1;Ann\n2;Bob\n")
    (tmp_path / "b.csv").write_text("1;x\n2;y\n")
    rows = sql("SELECT * FROM dfs.data.`a.ssv`", FORMATS).collect()
    assert [r.asDict() for r in rows] == [{"id": "1", "name": "Ann"}, {"id": "2", "name": "Bob"}]
    rows = sql("SELECT * FROM dfs.data.`b.csv`", FORMATS).collect()
    assert [r["columns"] for r in rows] == [["1", "x"], ["2", "y"]]
    # a table function's options go over the config the file's extension selects
    query = "SELECT * FROM table(dfs.data.`a.ssv`(type => 'text', extractHeader => false))"
    rows = sql(query, FORMATS).collect()
    assert [r["columns"] for r in rows] == [["id", "name"], ["1", "Ann"], ["2", "Bob"]]
    df = sql(
        "SELECT * FROM table(dfs.data.`b.csv`(type => 'text', extractHeader => true))", FORMATS
    )
    assert df.columns == ["col_1", "x"] and [tuple(r) for r in df.collect()] == [("2", "y")]
    (tmp_path / "c.tsv").write_text("1|x\n")
    rows = sql(
        "SELECT * FROM table(dfs.data.`c.tsv`(type => 'text', fieldDelimiter => '|'))"
    ).collect()
    assert [r["columns"] for r in rows] == [["1", "x"]]


# Drill's text rules the two readers share: quoted fields with doubled quotes and delimiters
# inside, a quote that does not end a field kept as text, comment lines skipped, an empty line
# a record with no fields, a trailing delimiter an empty field, a short record's missing
# header fields ''
TEXT_FILES = {
    "plain.csv": 'a,"b ""q"", c",d\n# a comment\n\nx,y,\n5"in,z\n',
    "head.csvh": "id,first name,5200.5\n1,Ann,x\n2,Bob\n",
    "tabs.tsv": '1\ta b\t\n2\t"q\tr"\n',
    "pipes.tbl": "1|x\n2|y|z\n",
    "pipes.psv": "1|x\n",
}


@pytest.mark.parametrize("name", sorted(TEXT_FILES))
def test_text_reads_alike_through_both_doors(spark, sql, tmp_path, name):
    (tmp_path / name).write_text(TEXT_FILES[name])
    ours = sql(f"SELECT * FROM dfs.data.`{name}`")
    plain = spark.sql(f"SELECT * FROM dfs.`{tmp_path / name}`")
    assert plain.columns == ours.columns
    assert [r.asDict() for r in plain.collect()] == [r.asDict() for r in ours.collect()]


def test_a_text_folder_reads_alike_through_both_doors(spark, sql, tmp_path):
    """A folder takes its first data file's format; dirN columns come last, as Drill's text
    reader puts them."""
    (tmp_path / "t" / "2024").mkdir(parents=True)
    (tmp_path / "t" / "a.csv").write_text("1,x\n")
    (tmp_path / "t" / "2024" / "b.csv").write_text("2,y\n")
    ours = sql("SELECT * FROM dfs.data.`t` ORDER BY columns[0]")
    plain = spark.sql(f"SELECT * FROM dfs.`{tmp_path / 't'}` ORDER BY columns[0]")
    assert plain.columns == ours.columns == ["columns", "dir0"]
    assert [tuple(r) for r in plain.collect()] == [tuple(r) for r in ours.collect()]
    assert [tuple(r) for r in plain.collect()] == [(["1", "x"], None), (["2", "y"], "2024")]
