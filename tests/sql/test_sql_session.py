"""Table resolution and session options (resolving a `dfs` table asks the extension's workspace
rule, so those tests need the session; options and USE errors do not)."""

from __future__ import annotations

import pytest

from drillspark.sql.errors import TableNotFoundError, ValidationError
from drillspark.sql.session import SqlSession


@pytest.fixture
def session(shared):
    return SqlSession(
        workspaces={
            "root": str(shared / "data" / "drill-conformance"),
            "json": str(shared / "data" / "drill-conformance" / "data" / "drill" / "jsoninput"),
        }
    )


@pytest.mark.usefixtures("spark")
def test_dfs_relative_path_resolves_against_root(session, shared):
    t = session.resolve_table(("dfs", "data/drill/jsoninput/input2.json"))
    assert t.path == str(shared / "data/drill-conformance/data/drill/jsoninput/input2.json")
    assert (t.plugin, t.workspace) == ("dfs", "root")


@pytest.mark.usefixtures("spark")
def test_workspace_and_use(session, shared):
    t = session.resolve_table(("dfs", "json", "input2.json"))
    assert t.path.endswith("jsoninput/input2.json")
    with pytest.raises(TableNotFoundError, match="no default schema"):
        session.resolve_table(("input2.json",))
    assert session.use(("dfs", "JSON")) == "dfs.json"
    assert session.resolve_table(("input2.json",)).path == t.path
    assert session.resolve_table(("json", "input2.json")).path == t.path


@pytest.mark.usefixtures("spark")
def test_missing_table_names_resolved_path(session, shared):
    with pytest.raises(TableNotFoundError) as e:
        session.resolve_table(("dfs", "no/such.json"))
    assert str(shared / "data/drill-conformance/no/such.json") in str(e.value)


def test_unknown_schema(session):
    with pytest.raises(ValidationError, match="nope"):
        session.use(("dfs", "nope"))
    with pytest.raises(TableNotFoundError, match="schema 'dfs.nope'"):
        session.resolve_table(("dfs", "nope", "x.json"))


def test_options(session):
    assert session.option("store.json.all_text_mode") is False
    session.set_option("store.json.all_text_mode", True)
    assert session.option("store.json.all_text_mode") is True
    # Drill 1.22's words (VALIDATION ERROR: ...)
    with pytest.raises(
        ValidationError, match="must be of type BOOLEAN but you tried to set to LONG"
    ):
        session.set_option("store.json.all_text_mode", 3)
    with pytest.raises(ValidationError, match="does not exist"):
        session.set_option("no.such.option", 1)
    session.reset("store.json.all_text_mode")
    assert session.option("store.json.all_text_mode") is False
