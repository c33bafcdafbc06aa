"""Drill's sample data on `cp` (issue #36): the FoodMart JSON files Drill serves from its
classpath (net.hydromatic:foodmart-data-json:0.4, fetched by tools/fetch_cp_data.py into the
package), queried as Drill's tutorials, docs and pydrill's tests query them. Every expected
value is Apache Drill 1.22's answer (../shared/tools/drill/query.sh, 2026-12-02)."""

from __future__ import annotations

import os

import pytest

import drillspark
from drillspark.sql import SqlEngine, SqlSession, TableNotFoundError
from drillspark.sql.output import columns_and_rows
from drillspark.sql.session import default_cp_root


@pytest.fixture
def cp_engine(spark, tmp_path, monkeypatch):
    """A session with no configured workspace, run from an unrelated folder: cp needs neither."""
    monkeypatch.chdir(tmp_path)
    return SqlEngine(spark, SqlSession())


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def test_the_first_query_of_drills_tutorials(cp_engine):
    cols, rows = q(cp_engine, "SELECT employee_id, full_name FROM cp.`employee.json` LIMIT 3")
    assert cols == ["employee_id", "full_name"]
    assert rows == [[1, "Sheri Nowmer"], [2, "Derrick Whelply"], [4, "Michael Spence"]]


# Drill 1.22: SELECT * FROM cp.`employee.json` LIMIT 3 (its column order puts `end_date`, null
# in every record, last: Drill V2's all-null columns move to the end, docs/scan.md)
EMPLOYEES = {
    "employee_id": [1, 2, 4],
    "full_name": ["Sheri Nowmer", "Derrick Whelply", "Michael Spence"],
    "first_name": ["Sheri", "Derrick", "Michael"],
    "last_name": ["Nowmer", "Whelply", "Spence"],
    "position_id": [1, 2, 2],
    "position_title": ["President", "VP Country Manager", "VP Country Manager"],
    "store_id": [0, 0, 0],
    "department_id": [1, 1, 1],
    "birth_date": ["1961-08-26", "1915-07-03", "1969-06-20"],
    "hire_date": ["1994-12-01 00:00:00.0", "1994-12-01 00:00:00.0", "1998-01-01 00:00:00.0"],
    "salary": [80000.0, 40000.0, 40000.0],
    "supervisor_id": [0, 1, 1],
    "education_level": ["Graduate Degree"] * 3,
    "marital_status": ["S", "M", "S"],
    "gender": ["F", "M", "M"],
    "management_role": ["Senior Management"] * 3,
    "end_date": [None, None, None],
}


def test_select_star_of_employee_json(cp_engine):
    cols, rows = q(cp_engine, "SELECT * FROM cp.`employee.json` LIMIT 3")
    assert sorted(cols) == sorted(EMPLOYEES)
    assert {c: [r[i] for r in rows] for i, c in enumerate(cols)} == EMPLOYEES


def test_counts_and_a_grouped_query(cp_engine):
    for table, n in [("employee.json", 1155), ("customer.json", 10281), ("region.json", 110)]:
        assert q(cp_engine, f"SELECT count(*) AS n FROM cp.`{table}`") == (["n"], [[n]])
    cols, rows = q(
        cp_engine,
        "SELECT position_id, count(*) AS n FROM cp.`employee.json` "
        "GROUP BY position_id ORDER BY position_id LIMIT 3",
    )
    assert (cols, rows) == (["position_id", "n"], [[1, 1], [2, 6], [3, 1]])


def test_department_json(cp_engine):
    cols, rows = q(cp_engine, "SELECT * FROM cp.`department.json`")
    assert cols == ["department_id", "department_description"]
    assert rows == [
        [1, "HQ General Management"],
        [2, "HQ Information Systems"],
        [3, "HQ Marketing"],
        [4, "HQ Human Resources"],
        [5, "HQ Finance and Accounting"],
        [11, "Store Management"],
        [14, "Store Information Systems"],
        [15, "Store Permanent Checkers"],
        [16, "Store Temporary Checkers"],
        [17, "Store Permanent Stockers"],
        [18, "Store Temporary Stockers"],
        [19, "Store Permanent Butchers"],
    ]


def test_use_cp_and_the_facade(spark, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = drillspark.sql("USE cp; SELECT count(*) AS n FROM `department.json`", spark)
    assert r.rows() == [{"n": 12}]


def test_a_missing_cp_file_names_no_server_path(cp_engine):
    # Drill 1.22: VALIDATION ERROR: From line 1, column 15 to line 1, column 28: Object
    # 'nope.json' not found within 'cp'
    with pytest.raises(TableNotFoundError) as info:
        cp_engine.execute("SELECT * FROM cp.`nope.json`")
    text = str(info.value)
    assert "nope.json" in text and (info.value.line, info.value.column) == (1, 15)
    assert str(default_cp_root()) not in text
    assert os.sep + "drillspark" not in text, text


def test_cp_without_the_sample_data_says_how_to_get_it(spark, tmp_path):
    engine = SqlEngine(spark, SqlSession(cp_root=str(tmp_path / "absent")))
    with pytest.raises(TableNotFoundError) as info:
        engine.execute("SELECT * FROM cp.`employee.json`")
    assert "make setup" in str(info.value) and str(tmp_path) not in str(info.value)
