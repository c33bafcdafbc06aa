"""The options registry (drillspark.options) against Apache Drill 1.22: every option Drill
lists, as Drill lists it (rules/drill_options.tsv, written by tools/drill_options_table.py
from the real Drill's answers); the answers Drill gave to values its options refuse, word for
word, through SET / ALTER SESSION / ALTER SYSTEM as drillspark reads them; sys.options'
status and scope as Drill shows them after ALTER SYSTEM and ALTER SESSION; /options.json's
entries. No Spark is started."""

from __future__ import annotations

import pytest

from drillspark.options import PLAN, PLAN_HEAD, REGISTRY, SERVER, BooleanOption, OptionRegistry
from drillspark.options.drill import EFFECTS
from drillspark.options.kinds import java_double
from drillspark.rules import drill_options, json_options
from drillspark.sql import statements as st
from drillspark.sql.catalog import option_rows
from drillspark.sql.errors import ValidationError
from drillspark.sql.session import SqlSession


def test_the_registry_holds_every_option_drill_lists_as_drill_lists_it():
    # Drill 1.22: sys.options 227 rows (117 BIT, 56 BIGINT, 22 FLOAT, 32 VARCHAR),
    # sys.internal_options 14
    assert (len(REGISTRY.listed()), len(REGISTRY.listed(internal=True))) == (227, 14)
    assert len(REGISTRY) == len(drill_options()) == 241
    for facts in drill_options():
        option = REGISTRY[facts.name]
        assert (
            option.name,
            option.KIND,
            option.text(option.default),
            option.scopes,
            option.internal,
            option.description,
            option.validator.spec() if option.validator else "",
        ) == (
            facts.name,
            facts.kind,
            facts.default,
            facts.scopes,
            facts.internal,
            facts.description,
            facts.validator,
        )


def test_names_are_found_in_any_case_and_kept_in_drills_spelling():
    assert REGISTRY["EXEC.RM.QUERYTAGS"].name == "exec.rm.queryTags"
    assert "Store.Format" in REGISTRY and "store.nosuch" not in REGISTRY


def test_each_option_says_whether_and_how_it_takes_effect_here():
    applied = {o.name: o.effect for o in REGISTRY if o.applies}
    assert applied == {name: effect for name, (effect, _) in EFFECTS.items()}
    assert all(o.note for o in REGISTRY), "every option says what it does here, or why not"
    assert set(PLAN_HEAD) <= set(o.name for o in REGISTRY)
    # the JSON reader options the session sets (rules/json_options.tsv) take effect in plans
    for session_option in (o.session for o in json_options() if o.session):
        assert REGISTRY[session_option].effect == PLAN
    assert REGISTRY["drill.exec.http.rest.errors.verbose"].effect == SERVER


def test_a_module_declares_its_own_options_once():
    registry = OptionRegistry()
    registry.declare(BooleanOption("myplugin.fast", False, note="reads faster"))
    assert registry["MyPlugin.Fast"].default is False
    with pytest.raises(ValueError, match="declared twice"):
        registry.declare(BooleanOption("myplugin.fast", True))
    with pytest.raises(ValueError, match="is not BOOLEAN"):
        BooleanOption("myplugin.other", 1)


# Drill 1.22's answers (../shared/tools/drill/query.sh), `ALTER <scope> SET `name` = value`:
# None when it was accepted, else its message after "VALIDATION ERROR: " (PERMISSION ERROR for
# a scope)
DRILL_ANSWERS = [
    ("SESSION", "store.json.all_text_mode", "'abc'", "'abc' is not a valid value for option "
     "'store.json.all_text_mode' of type BOOLEAN"),
    ("SESSION", "store.json.all_text_mode", "'true'", None),
    ("SESSION", "store.json.all_text_mode", "'TRUE'", None),
    ("SESSION", "store.json.all_text_mode", "' true'", None),
    ("SESSION", "store.json.all_text_mode", "'yes'", "'yes' is not a valid value for option "
     "'store.json.all_text_mode' of type BOOLEAN"),
    ("SESSION", "store.json.all_text_mode", "'1'", "'1' is not a valid value for option "
     "'store.json.all_text_mode' of type BOOLEAN"),
    ("SESSION", "store.json.all_text_mode", "1", "Option store.json.all_text_mode must be of "
     "type BOOLEAN but you tried to set to LONG."),
    ("SESSION", "store.json.all_text_mode", "1.5", "Option store.json.all_text_mode must be "
     "of type BOOLEAN but you tried to set to DOUBLE."),
    ("SESSION", "planner.slice_target", "'abc'", "'abc' is not a valid value for option "
     "'planner.slice_target' of type LONG"),
    ("SESSION", "Planner.Slice_Target", "'abc'", "'abc' is not a valid value for option "
     "'Planner.Slice_Target' of type LONG"),
    ("SESSION", "planner.slice_target", "'5'", None),
    ("SESSION", "planner.slice_target", "' 5'", None),
    ("SESSION", "planner.slice_target", "'+5'", None),
    ("SESSION", "planner.slice_target", "'5.0'", "'5.0' is not a valid value for option "
     "'planner.slice_target' of type LONG"),
    ("SESSION", "planner.slice_target", "'1e3'", "'1e3' is not a valid value for option "
     "'planner.slice_target' of type LONG"),
    ("SESSION", "planner.slice_target", "true", "Option planner.slice_target must be of type "
     "LONG but you tried to set to BOOLEAN."),
    ("SESSION", "planner.slice_target", "1.5", "Option planner.slice_target must be of type "
     "LONG but you tried to set to DOUBLE."),
    ("SESSION", "planner.slice_target", "10.0", "Option planner.slice_target must be of type "
     "LONG but you tried to set to DOUBLE."),
    ("SESSION", "planner.slice_target", "-1", "Option planner.slice_target must be between 1 "
     "and 9223372036854775807."),
    ("SESSION", "Planner.Slice_Target", "0", "Option planner.slice_target must be between 1 "
     "and 9223372036854775807."),
    ("SESSION", "planner.slice_target", "'0'", "Option planner.slice_target must be between 1 "
     "and 9223372036854775807."),
    ("SESSION", "planner.width.max_per_node", "-1", None),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "'abc'", "'abc' is not a "
     "valid value for option 'planner.filter.min_selectivity_estimate_factor' of type DOUBLE"),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "1", "Option "
     "planner.filter.min_selectivity_estimate_factor must be of type DOUBLE but you tried to "
     "set to LONG."),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "true", "Option "
     "planner.filter.min_selectivity_estimate_factor must be of type DOUBLE but you tried to "
     "set to BOOLEAN."),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "'2'", "Option "
     "planner.filter.min_selectivity_estimate_factor must be between 0.000000 and 1.000000."),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "'1'", None),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "' 0.5 '", None),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "'NaN'", None),
    ("SESSION", "planner.filter.min_selectivity_estimate_factor", "0.25", None),
    ("SESSION", "store.format", "1", "Option store.format must be of type STRING but you "
     "tried to set to LONG."),
    ("SESSION", "store.format", "true", "Option store.format must be of type STRING but you "
     "tried to set to BOOLEAN."),
    ("SESSION", "store.format", "'nosuch'", None),
    ("SESSION", "store.format", "''", None),
    ("SESSION", "store.parquet.compression", "'abc'", "Option store.parquet.compression must "
     "be one of: [none, brotli, gzip, lz4, lzo, snappy, zstd]."),
    ("SESSION", "store.parquet.compression", "'GZIP'", None),
    ("SESSION", "exec.java_compiler", "'jdk'", None),
    ("SESSION", "exec.java_compiler", "'zz_no_such_value'", "Invalid value 'zz_no_such_value' "
     "specified for option 'exec.java_compiler'. Valid values are [DEFAULT, JDK, JANINO]."),
    ("SESSION", "exec.hashjoin.bloom_filter.max.size", "-1", None),
    ("SESSION", "exec.hashjoin.bloom_filter.max.size", "2147483647", None),
    ("SESSION", "exec.hashjoin.bloom_filter.max.size", "2147483648", "Option "
     "exec.hashjoin.bloom_filter.max.size does not have a valid integer value"),
    ("SESSION", "metastore.retrieval.retry_attempts", "-2147483648", None),
    ("SESSION", "web.display_format.date", "'yyyy-MM-dd qqq'", None),
    ("SESSION", "web.display_format.date", "'yyyy-MM-dd ''oo'''", None),
    ("SESSION", "web.display_format.date", "'yyyy-MM-dd ['", None),
    ("SESSION", "web.display_format.date", "'#'", "'#' is not a valid DateTime format "
     "pattern: Pattern includes reserved character: '#'"),
    ("SESSION", "web.display_format.date", "'zz_no_such_value'", "'zz_no_such_value' is not "
     "a valid DateTime format pattern: Unknown pattern letter: o"),
    ("SESSION", "drill.exec.testing.controls", "'{}'", None),
    ("SESSION", "nosuch.option", "1", "The option 'nosuch.option' does not exist."),
    ("SESSION", "exec.queue.enable", "true", None),
    ("SESSION", "drill.exec.hashagg.fallback.enabled", "true", None),
    ("SESSION", "drill.exec.hashjoin.mem_limit", "0", "Cannot change option "
     "drill.exec.hashjoin.mem_limit in scope SESSION"),
    ("SYSTEM", "exec.rm.queryTags", "'a'", "Cannot change option exec.rm.queryTags in scope "
     "SYSTEM"),
    ("SESSION", "exec.rm.queryTags", "'a'", None),
    ("SYSTEM", "drill.exec.hashjoin.mem_limit", "5", None),
    ("SYSTEM", "exec.impersonation.inbound_policies", "'[]'", None),
]  # fmt: skip


@pytest.mark.parametrize(("scope", "name", "literal", "answer"), DRILL_ANSWERS)
def test_values_are_checked_as_drill_checks_them(scope, name, literal, answer):
    stmt = st.classify(f"ALTER {scope} SET `{name}` = {literal}")
    assert isinstance(stmt, st.SetOption)
    session = SqlSession()
    if answer is None:
        session.set_option(stmt.name, stmt.value, stmt.scope.upper())
        return
    with pytest.raises(ValidationError) as e:
        session.set_option(stmt.name, stmt.value, stmt.scope.upper())
    assert e.value.message == answer


def test_values_are_kept_as_given():
    # Drill 1.22: sys.options shows 'GZIP', 'jdk', 'PARQUET' as set; 0.25 and 1.0E-5 as Java
    # writes a double
    session = SqlSession()
    for name, value in (
        ("store.parquet.compression", "GZIP"),
        ("exec.java_compiler", "jdk"),
        ("store.format", "PARQUET"),
    ):
        session.set_option(name, value)
        assert session.option(name) == value
    factor = REGISTRY["planner.filter.min_selectivity_estimate_factor"]
    assert (factor.text(0.25), factor.text(1e-5)) == ("0.25", "1.0E-5")
    assert [java_double(x) for x in (1e7, 123456789.5, -2.5e-4, 1e300)] == [
        "1.0E7",
        "1.234567895E8",
        "-2.5E-4",
        "1.0E300",
    ]


def test_reset_refuses_an_unknown_name_only_for_the_system():
    # Drill 1.22: ALTER SESSION RESET `nosuch.option` -> "nosuch.option updated.";
    # ALTER SYSTEM RESET `nosuch.option` -> The option 'nosuch.option' does not exist.
    session = SqlSession()
    session.reset("nosuch.option")
    with pytest.raises(ValidationError, match="The option 'nosuch.option' does not exist."):
        session.reset("nosuch.option", "SYSTEM")


def _row(session: SqlSession, name: str, internal: bool = False) -> list:
    return next(r for r in option_rows(session, internal) if r[0] == name)


SLICE = "The number of records manipulated within a fragment before Drill parallelizes operations."


def test_sys_options_status_and_scope_as_drill_shows_them():
    session = SqlSession()
    rows = option_rows(session)
    assert len(rows) == 227 and len(option_rows(session, internal=True)) == 14
    assert rows[0] == ["debug.validate_iterators", "BIT", "ALL", "false", "DEFAULT", "BOOT", ""]
    assert {(r[4], r[5]) for r in rows} == {("DEFAULT", "BOOT")}
    # Drill 1.22, in this order: ALTER SYSTEM SET `planner.slice_target` = 7; ALTER SESSION SET
    # ... = 100000; ... = 8; ALTER SESSION RESET ALL
    session.system_options["planner.slice_target"] = 7
    expected = ["planner.slice_target", "BIGINT", "ALL", "7", "CHANGED", "SYSTEM", SLICE]
    assert _row(session, "planner.slice_target") == expected
    session.set_option("planner.slice_target", 100000)
    assert _row(session, "planner.slice_target")[3:6] == ["100000", "DEFAULT", "SESSION"]
    session.set_option("planner.slice_target", 8)
    assert _row(session, "planner.slice_target")[3:6] == ["8", "CHANGED", "SESSION"]
    session.reset("")
    assert _row(session, "planner.slice_target")[3:6] == ["7", "CHANGED", "SYSTEM"]
    # a session value equal to what the session falls back to is not kept: true, then false
    # (the default) shows DEFAULT, BOOT
    session.set_option("Store.Json.All_Text_Mode", True)
    assert _row(session, "store.json.all_text_mode")[3:6] == ["true", "CHANGED", "SESSION"]
    session.set_option("Store.Json.All_Text_Mode", False)
    assert _row(session, "store.json.all_text_mode")[3:6] == ["false", "DEFAULT", "BOOT"]
    # an internal option shows in sys.internal_options only
    session.system_options["drill.exec.hashjoin.mem_limit"] = 5
    assert _row(session, "drill.exec.hashjoin.mem_limit", internal=True)[1:6] == [
        "BIGINT",
        "SYSTEM",
        "5",
        "CHANGED",
        "SYSTEM",
    ]
    assert all(r[0] != "drill.exec.hashjoin.mem_limit" for r in option_rows(session))


def test_a_plans_head_lists_the_same_options_as_before_and_what_a_session_changed():
    session = SqlSession()
    session.set_option("planner.enable_topn", False)
    session.set_option("drill.exec.http.rest.errors.verbose", True)  # the server's own
    head = session.plan_options()
    assert list(head)[: len(PLAN_HEAD)] == list(PLAN_HEAD)
    assert head["planner.enable_topn"] is False
    assert "drill.exec.http.rest.errors.verbose" not in head
    assert head["planner.width.max_per_node"] == 0  # Drill's default


def test_options_json_entries_as_drill_gives_them():
    from drillspark.server.catalog import Catalog

    catalog = Catalog({})
    entries = {o["name"]: o for o in catalog.options_json()}
    assert len(entries) == 227 and list(entries) == sorted(entries)
    # Drill 1.22's GET /options.json, entry by entry
    assert entries["debug.validate_iterators"] == {
        "name": "debug.validate_iterators",
        "value": False,
        "defaultValue": "false",
        "accessibleScopes": "ALL",
        "kind": "BOOLEAN",
        "optionScope": "BOOT",
    }
    assert entries["planner.width.max_per_node"]["value"] == 0
    assert entries["planner.affinity_factor"] == {
        "name": "planner.affinity_factor",
        "value": 1.2,
        "defaultValue": "1.2",
        "accessibleScopes": "ALL",
        "kind": "DOUBLE",
        "optionScope": "BOOT",
    }
    assert entries["exec.rm.queryTags"]["accessibleScopes"] == "SESSION_AND_QUERY"
    internal = catalog.options_json(internal=True)
    assert len(internal) == 14 and internal[0] == {
        "name": "drill.exec.hashjoin.mem_limit",
        "value": 0,
        "defaultValue": "0",
        "accessibleScopes": "SYSTEM",
        "kind": "LONG",
        "optionScope": "BOOT",
    }
    catalog.set_system_option("planner.slice_target", "7", "LONG")
    changed = {o["name"]: o for o in catalog.options_json()}["planner.slice_target"]
    assert (changed["value"], changed["optionScope"]) == (7, "SYSTEM")
    with pytest.raises(ValidationError, match="must be of type LONG but you tried to set to"):
        catalog.set_system_option("planner.slice_target", "true", "BOOLEAN")
    with pytest.raises(ValidationError, match="in scope SYSTEM"):
        catalog.set_system_option("exec.rm.queryTags", "a")
