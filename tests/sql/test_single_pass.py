"""One pass over JSON (docs/scan.md, "One pass"; spark/single_pass.py): a statement
whose whole result is fetched reads its JSON tables with a sample's schema, checked value by
value; a misfit reads the statement again with full discovery. The answers are the full
read's, on other people's data, whatever the sample size."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pytest

import drillspark
from drillspark.cli.main import main as cli_main
from drillspark.spark import single_pass
from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.shell import Shell


@pytest.fixture
def sample(spark):
    """Sets the session's sample size (records per file) for one test; tables of any size
    read in one pass (the tests' tables are small)."""

    def set_to(n: int | str) -> None:
        spark.conf.set(single_pass.CONF, str(n))

    spark.conf.set(single_pass.MIN_BYTES_CONF, "0")
    yield set_to
    spark.conf.unset(single_pass.CONF)
    spark.conf.unset(single_pass.MIN_BYTES_CONF)


@pytest.fixture
def tables(shared, tmp_path):
    """Copies of real tables in a folder of this test's own (the session remembers tables by
    path, so each test starts with none remembered)."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(shared / "data" / "yelp" / "yelp_business_small.ndjson", data / "yelp.json")
    shutil.copy(shared / "data" / "twitter" / "mongo_tweets.ndjson", data / "tweets.json")
    return data


@pytest.fixture
def eng(spark, tables):
    return SqlEngine(spark, SqlSession(workspaces={"root": str(tables), "tmp": str(tables.parent)}))


def answer(result) -> tuple[pa.Schema, list[str]]:
    table = result.to_arrow()
    return table.schema, sorted(map(str, table.to_pylist()))


STATEMENTS = {
    "every column": "SELECT * FROM dfs.`yelp.json`",
    "nested members": "SELECT t.name, t.attributes.Parking AS parking, t.hours.Monday AS mon "
    "FROM dfs.`yelp.json` t WHERE t.stars >= 4",
    "group": "SELECT t.state, count(*) AS n, avg(t.stars) AS s FROM dfs.`yelp.json` t "
    "GROUP BY t.state",
    "flatten": "SELECT c, count(*) AS n FROM (SELECT flatten(t.categories) AS c "
    "FROM dfs.`yelp.json` t) GROUP BY c",
    "tweets": "SELECT t.`user`.screen_name AS who, t.entities.hashtags AS tags, "
    "t.retweet_count AS rt FROM dfs.`tweets.json` t",
    "join": "SELECT a.name, b.n FROM dfs.`yelp.json` a JOIN (SELECT t.city, count(*) AS n "
    "FROM dfs.`yelp.json` t GROUP BY t.city) b ON a.city = b.city WHERE a.stars = 5",
}


# What a sample of the first record of each file does to each statement: "misfit", the read
# meets keys it did not see (yelp's attributes, the tweets' entities) and reads again;
# "missed", the statement names members the sample lacks (yelp's Parking and Monday), so it is
# built with full discovery at once; "fits", it reads columns the first value types
# (categories: strings; state, city, name: strings; stars: a float).
SAMPLED = {
    "every column": "misfit",
    "nested members": "missed",
    "tweets": "misfit",
    "group": "fits",
    "flatten": "fits",
    "join": "fits",
}


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_a_small_sample_answers_as_the_full_read(eng, sample, name):
    text = STATEMENTS[name]
    sample(0)  # the full read
    full = eng.execute(text)[-1]
    assert not full.one_pass
    want = answer(full)
    sample(1)  # one record per file
    result = eng.execute(text)[-1]
    assert result.one_pass == (SAMPLED[name] != "missed")
    assert answer(result) == want
    assert not result.one_pass
    # after a misfit the session remembers the table: the next statement discovers it in
    # full at once; a fetch without one confirmed the sample, and the next samples again
    assert eng.execute(text)[-1].one_pass == (SAMPLED[name] == "fits")


def test_a_sample_that_fits_is_confirmed_and_the_next_statement_samples_again(eng, sample):
    sample(4500)  # every record of the yelp file
    text = STATEMENTS["nested members"]
    result = eng.execute(text)[-1]
    assert result.one_pass
    got = answer(result)
    assert not result.one_pass  # the fetch read every row: the sample was right
    again = eng.execute(text)[-1]
    assert again.one_pass
    sample(0)
    assert got == answer(eng.execute(text)[-1])


def lines(path, records) -> None:
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in records))


# Each statement reads one thing that only a record past a 5-record sample shows: late.json
# has a key `z` and a member `s.q` in its 6th record; wide.json has integers `a` and `b` (0) in
# its first 5,000 records, more than one batch of 4,096, and floats in the 5,001st.
LATE = {
    "a column": "SELECT t.z FROM dfs.`late.json` t",
    "a column counted": "SELECT count(t.z) AS n FROM dfs.`late.json` t",
    "a column filtered on": "SELECT t.a FROM dfs.`late.json` t WHERE t.z = 'x'",
    "a member": "SELECT t.a, t.s.q FROM dfs.`late.json` t",
    "a limit": "SELECT t.a FROM dfs.`wide.json` t LIMIT 2",
    "a limit of none": "SELECT * FROM dfs.`wide.json` t LIMIT 0",
    "a division by an integer 0": "SELECT t.a / t.b AS q FROM dfs.`wide.json` t",
}


@pytest.mark.parametrize("name", sorted(LATE))
def test_what_only_records_past_the_sample_show_is_read_as_the_full_read(eng, sample, tables, name):
    late = [{"a": 1, "s": {"p": 1}}] * 5 + [{"a": 2, "s": {"p": 2, "q": "x"}, "z": "x"}]
    lines(tables / "late.json", late)
    lines(tables / "wide.json", [{"a": 1, "b": 0}] * 5000 + [{"a": 2.5, "b": 0.5}])
    sample(0)
    try:
        want = answer(eng.execute(LATE[name])[-1])
    except Exception as e:  # the full read's error is the answer then
        want = type(e).__name__
    sample(5)
    try:
        got = answer(eng.execute(LATE[name])[-1])
    except Exception as e:
        got = type(e).__name__
    assert got == want


def test_a_bad_record_past_the_sample_fails_a_count_as_the_full_read(eng, sample, tables):
    (tables / "bad.json").write_text('{"a": 1}\n' * 5 + '{"a": 1,,}\n')
    text = "SELECT count(*) AS n FROM dfs.`bad.json`"
    for n in (0, 5):
        sample(n)
        with pytest.raises(Exception, match="bad.json"):
            eng.execute(text)[-1].to_arrow()


def test_implicit_file_columns_read_without_a_sample(eng, sample):
    sample(1)
    # a data column `dir0` past the sample would replace the folder's: no sample for it
    result = eng.execute("SELECT filename, count(*) AS n FROM dfs.`yelp.json` GROUP BY filename")[
        -1
    ]
    assert not result.one_pass
    assert answer(result)[1] == ["{'filename': 'yelp.json', 'n': 4500}"]


def test_the_default_sample_answers_as_the_full_read(eng, sample):
    text = STATEMENTS["every column"]
    result = eng.execute(text)[-1]
    assert result.one_pass  # no conf: the default sample
    got = answer(result)
    sample(0)
    assert got == answer(eng.execute(text)[-1])


def test_the_dataframe_a_caller_takes_is_the_full_reads(eng, sample, spark, tables):
    sample(1)
    result = eng.execute(STATEMENTS["every column"])[-1]
    assert result.one_pass
    # .df and .columns may be read any way: built again with full discovery first
    full = spark.read.format("drill").load(str(tables / "yelp.json"))
    assert result.df.schema == full.schema
    assert not result.one_pass
    assert result.columns == full.columns


def test_a_statement_that_writes_files_never_reads_a_sample(eng, sample, spark, tables):
    sample(1)  # a sampled read would meet misfits; a CTAS cannot be read again half-way
    eng.execute("CREATE TABLE dfs.tmp.`copied` AS SELECT * FROM dfs.`yelp.json`")
    written = spark.read.parquet(str(tables.parent / "copied"))
    assert written.count() == 4500
    assert sorted(written.columns) == sorted(
        spark.read.format("drill").load(str(tables / "yelp.json")).columns
    )


def test_results_read_a_row_at_a_time_are_built_with_full_discovery(eng, sample):
    sample(1)
    with single_pass.disabled():  # the server and `drillspark run` build this way
        result = eng.execute(STATEMENTS["group"])[-1]
    assert not result.one_pass


def test_a_plan_reads_in_one_pass_too(spark, sample, tables):
    plan = {
        "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1},
        "storage": {"fs": {"type": "file", "connection": "file:///"}},
        "query": [
            {
                "@id": 1,
                "op": "scan",
                "storageengine": "fs",
                "selection": {"format": {"type": "json"}, "files": [str(tables / "tweets.json")]},
            },
            {"@id": 2, "op": "project", "input": 1, "projections": [{"ref": "id", "expr": "id"}]},
        ],
    }
    sample(0)
    want = answer(drillspark.run(plan, spark=spark))
    sample(1)
    result = drillspark.run(plan, spark=spark)
    assert result.one_pass
    assert answer(result) == want


def test_extended_types_and_a_switched_off_conf_read_without_a_sample(eng, sample):
    eng.execute("ALTER SESSION SET `store.json.extended_types` = true")
    assert not eng.execute(STATEMENTS["group"])[-1].one_pass
    eng.execute("ALTER SESSION RESET `store.json.extended_types`")
    assert eng.execute(STATEMENTS["group"])[-1].one_pass
    sample(0)
    assert not eng.execute(STATEMENTS["group"])[-1].one_pass


def test_a_small_table_is_discovered_in_full(eng, sample, spark, tables):
    text = STATEMENTS["group"]
    assert eng.execute(text)[-1].one_pass
    spark.conf.unset(single_pass.MIN_BYTES_CONF)  # 32 MiB: the yelp file has 3.8 MB
    assert not eng.execute(text)[-1].one_pass
    spark.conf.set(single_pass.MIN_BYTES_CONF, str((tables / "yelp.json").stat().st_size))
    assert eng.execute(text)[-1].one_pass


def test_a_sample_size_that_is_no_number_is_refused_naming_the_conf(eng, sample):
    sample("many")
    with pytest.raises(ValueError, match="spark.drillspark.singlePassSample"):
        eng.execute(STATEMENTS["group"])


@pytest.mark.parametrize("interface", ["drillspark sql", "shell"])
def test_the_cli_and_the_shell_print_a_read_from_a_sample(eng, sample, tables, capsys, interface):
    """Both render a result whole before printing it, so they fetch it in one pass: a misfit
    reads again with full discovery before anything is printed."""
    text = STATEMENTS["tweets"]

    def printed() -> list[str]:
        if interface == "shell":
            out = Shell(eng).execute(text)
        else:
            args = ["sql", "--local", "--workspace", f"root={tables}", "--format", "json", text]
            assert cli_main(args) == 0
            out = capsys.readouterr().out
        return sorted(out.splitlines())

    sample(0)
    want = printed()
    sample(1)
    assert eng.execute(text)[-1].one_pass  # nothing remembered yet
    assert printed() == want
    # the print read from the sample and met the tweets' misfit: the session remembers it
    assert not eng.execute(text)[-1].one_pass


def sampled_kept(spark) -> list:
    """The translations kept from samples (spark/plan_reuse.py), their values."""
    from drillspark.spark import plan_reuse

    kept = plan_reuse._KEPT.get(spark, {})
    return [v for k, v in kept.items() if isinstance(k, tuple) and k[0] == "sampled"]


def test_a_translation_from_samples_is_kept_once_a_fetch_confirmed_them(
    eng, sample, spark, tables, monkeypatch
):
    from drillspark.spark import plan_reuse
    from drillspark.spark.storage import stamps

    monkeypatch.setattr(stamps, "RACY_NS", 0)  # the files were written just now
    plan_reuse._KEPT.pop(spark, None)
    sample(1)
    text = STATEMENTS["group"]  # the sample fits
    result = eng.execute(text)[-1]
    assert result.one_pass and sampled_kept(spark) == []  # not before its fetch
    want = answer(result)
    [first] = sampled_kept(spark)
    again = eng.execute(text)[-1]
    assert again.one_pass  # the kept translation still reads from the samples
    assert answer(again) == want
    assert sampled_kept(spark) == [first]  # reused, not translated again
    # the server's and `drillspark run`'s builds read from a full discovery: not this one
    with single_pass.disabled():
        assert not eng.execute(text)[-1].one_pass
    # a changed file: translated and sampled again, the new rows answered
    lines(tables / "yelp.json", [{"state": "ZZ", "stars": 5.0}] * 3)
    changed = eng.execute(text)[-1]
    assert answer(changed)[1] == ["{'state': 'ZZ', 'n': 3, 's': 5.0}"]
    [renewed] = sampled_kept(spark)
    assert renewed is not first
    plan_reuse._KEPT.pop(spark, None)


def test_a_translation_whose_samples_misfit_is_not_kept(eng, sample, spark, monkeypatch):
    from drillspark.spark import plan_reuse
    from drillspark.spark.storage import stamps

    monkeypatch.setattr(stamps, "RACY_NS", 0)
    plan_reuse._KEPT.pop(spark, None)
    sample(1)
    result = eng.execute(STATEMENTS["tweets"])[-1]  # misfits: read again in full
    assert result.one_pass
    answer(result)
    assert sampled_kept(spark) == []
    plan_reuse._KEPT.pop(spark, None)
