"""The `jdbc` plugin's metadata for the storage registry (SHOW SCHEMAS / TABLES, DESCRIBE,
INFORMATION_SCHEMA): `list_schemas`, `list_tables`, `list_columns` over the database's own
catalog, and through SQL (SHOW TABLES, INFORMATION_SCHEMA.SCHEMATA / TABLES / COLUMNS), against
Drill 1.22's answers over the same PostgreSQL and MariaDB tables."""

from __future__ import annotations

import pytest
from tests.storage.conftest import drill

from drillspark.spark.storage import jdbc

COLUMNS_SQL = (
    "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, "
    "DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, "
    "NUMERIC_PRECISION_RADIX, NUMERIC_SCALE, DATETIME_PRECISION, INTERVAL_TYPE, "
    "INTERVAL_PRECISION, COLUMN_SIZE FROM INFORMATION_SCHEMA.`COLUMNS` WHERE TABLE_SCHEMA IN "
    "('pg.public', 'pg.sales', 'maria.drilltest') ORDER BY TABLE_SCHEMA, TABLE_NAME, "
    "ORDINAL_POSITION"
)
TABLES_SQL = (
    "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM INFORMATION_SCHEMA.`TABLES` WHERE "
    "TABLE_SCHEMA IN ('pg.public', 'pg.sales', 'pg.drilltest', 'maria.drilltest', 'pg') "
    "ORDER BY 1, 2"
)


def drill_schemas(plugin: str) -> list[str]:
    names = [r[0] for r in drill("SHOW SCHEMAS")["rows"]]
    return sorted(n[len(plugin) + 1 :] for n in names if n.startswith(plugin + "."))


def test_schemas_are_drills(spark, pg, maria):
    assert jdbc.list_schemas(spark, pg, "pg") == drill_schemas("pg")
    assert jdbc.list_schemas(spark, maria, "maria") == drill_schemas("maria")
    assert drill_schemas("pg") == [
        "drilltest",
        "information_schema",
        "pg_catalog",
        "public",
        "sales",
    ]
    assert drill_schemas("maria") == [
        "drilltest",
        "information_schema",
        "mysql",
        "performance_schema",
        "sys",
    ]


@pytest.mark.parametrize(
    "plugin, schema",
    [("pg", "public"), ("pg", "sales"), ("pg", "drilltest"), ("pg", None), ("maria", "drilltest")],
)
def test_tables_are_drills(spark, pg, maria, plugin, schema):
    config = {"pg": pg, "maria": maria}[plugin]
    shown = plugin if schema is None else f"{plugin}.{schema}"
    expected = [(r[1], r[2]) for r in drill(TABLES_SQL)["rows"] if r[0] == shown]
    assert jdbc.list_tables(spark, config, schema, plugin) == sorted(expected)


def test_show_tables_lists_the_indexes_too(spark, pg):
    # Drill's SHOW TABLES lists every relation the JDBC driver lists, the primary key's index too
    shown = {r[1] for r in drill("SHOW TABLES IN pg.public")["rows"]}
    assert shown == {n for n, _ in jdbc.list_tables(spark, pg, "public")}
    assert ("all_types_pkey", "INDEX") in jdbc.list_tables(spark, pg, "PUBLIC")


def test_mariadb_root_has_no_tables(spark, maria):
    # Drill lists MariaDB's information_schema views under the plugin itself, but cannot read
    # them there ("Object 'all_types' not found within 'maria'"); drillspark lists none
    assert jdbc.list_tables(spark, maria, None) == []


INFO_COLUMNS = [
    "DATA_TYPE",
    "CHARACTER_MAXIMUM_LENGTH",
    "CHARACTER_OCTET_LENGTH",
    "NUMERIC_PRECISION",
    "NUMERIC_PRECISION_RADIX",
    "NUMERIC_SCALE",
    "DATETIME_PRECISION",
    "INTERVAL_TYPE",
    "INTERVAL_PRECISION",
    "COLUMN_SIZE",
]


@pytest.mark.parametrize(
    "plugin, schema, table",
    [
        ("pg", "public", "all_types"),
        ("pg", "public", "MixedCase"),
        ("pg", "sales", "orders"),
        ("pg", "sales", "big_orders"),
        ("maria", "drilltest", "all_types"),
        ("maria", "drilltest", "orders"),
        ("maria", "drilltest", "MixedCase"),
    ],
)
def test_columns_are_drills_information_schema(spark, pg, maria, plugin, schema, table):
    config = {"pg": pg, "maria": maria}[plugin]
    answer = drill(COLUMNS_SQL)
    names = answer["columns"]
    expected = [
        dict(zip(names, r, strict=True))
        for r in answer["rows"]
        if r[0] == f"{plugin}.{schema}" and r[1] == table
    ]
    got = jdbc.list_columns(spark, config, schema, table, plugin)
    assert [c.name for c in got] == [e["COLUMN_NAME"] for e in expected]
    for column, want in zip(got, expected, strict=True):
        assert column.ordinal == want["ORDINAL_POSITION"]
        assert ("YES" if column.field.nullable else "NO") == want["IS_NULLABLE"], column.name
        cells = {k: column.info.get(k) for k in INFO_COLUMNS}
        assert cells == {k: want[k] for k in INFO_COLUMNS}, column.name


@pytest.mark.parametrize("plugin, sql", [("pg", "pg.public"), ("maria", "maria.drilltest")])
def test_describe_is_drills(spark, pg, maria, plugin, sql):
    config = {"pg": pg, "maria": maria}[plugin]
    answer = drill(f"DESCRIBE {sql}.all_types")
    got = jdbc.list_columns(spark, config, sql.split(".")[1], "all_types", plugin)
    assert [
        [c.name, c.info["DATA_TYPE"], "YES" if c.field.nullable else "NO"] for c in got
    ] == answer["rows"]


def test_read_types_are_drills_typeof(spark, pg, maria):
    pg_typeof = drill(
        "SELECT "
        + ", ".join(
            f"typeof({c}) t_{c}"
            for c in drill("SELECT * FROM pg.public.all_types ORDER BY id")["columns"]
        )
        + " FROM pg.public.all_types WHERE id = 1"
    )["rows"][0]
    assert [c.read_type for c in jdbc.list_columns(spark, pg, "public", "all_types")] == pg_typeof
    for column in jdbc.list_columns(spark, maria, "drilltest", "all_types"):
        answer = drill(
            f"SELECT typeof({column.name}) t, sqltypeof({column.name}) st, "
            f"modeof({column.name}) m FROM maria.drilltest.all_types WHERE id = 1"
        )
        if answer["ok"]:
            assert column.read_type == answer["rows"][0][0], column.name
        else:  # Drill fails on unsigned integers; drillspark reads them
            assert (column.name, column.read_type) in {
                ("uint_v", "BIGINT"),
                ("ubig_v", "VARDECIMAL"),
            }


def test_an_unknown_table_is_named_as_drill_names_it(spark, pg):
    with pytest.raises(jdbc.JdbcError, match="Object 'nosuch' not found within 'pg.public'"):
        jdbc.list_columns(spark, pg, "public", "nosuch", "pg")
    with pytest.raises(jdbc.JdbcError, match="Object 'nosuch' not found within 'pg'"):
        jdbc.list_tables(spark, pg, "nosuch", "pg")


# ------------------------------------------------------------------ through SQL, as Drill answers


@pytest.fixture
def engine(spark, pg, maria):
    from drillspark.sql import SqlEngine
    from drillspark.sql.session import SqlSession

    plugins = {"pg": pg, "pgw": {**pg, "writable": True}, "maria": maria}
    return SqlEngine(spark, SqlSession(plugins=plugins))


def _rows(engine, sql: str) -> list[list]:
    return [list(r.values()) for r in engine.execute(sql)[-1].rows()]


@pytest.mark.parametrize(
    "schema", ["pg.public", "pg.sales", "pg.drilltest", "pg", "pg.PUBLIC", "maria.drilltest"]
)
def test_show_tables_is_drills(engine, schema):
    # Drill lists them in no order; the plugin alone lists its current schema's under that name
    sql = f"SHOW TABLES IN {schema}"
    assert sorted(_rows(engine, sql)) == sorted(drill(sql)["rows"])


def test_show_tables_of_an_unknown_schema_is_drills_error(engine):
    from drillspark.sql import SqlError

    with pytest.raises(SqlError, match=r"Schema \[pg.nosuch\] is not valid"):
        engine.execute("SHOW TABLES IN pg.nosuch")


def test_information_schema_tables_and_columns_are_drills(engine):
    assert _rows(engine, TABLES_SQL) == drill(TABLES_SQL)["rows"]
    assert _rows(engine, COLUMNS_SQL) == drill(COLUMNS_SQL)["rows"]
    # the plugin alone and PostgreSQL's database stand for the current schema
    root = (
        "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE FROM "
        "INFORMATION_SCHEMA.`COLUMNS` WHERE TABLE_SCHEMA IN ('pg', 'pg.drilltest') "
        "ORDER BY 1, 2, 4"
    )
    assert _rows(engine, root) == drill(root)["rows"]


def test_information_schema_lists_every_relation_of_the_database(engine):
    # pg_catalog's and information_schema's too, as many as Drill lists
    for table in ("TABLES", "COLUMNS"):
        sql = (
            f"SELECT TABLE_SCHEMA, count(*) c FROM INFORMATION_SCHEMA.`{table}` WHERE "
            "TABLE_SCHEMA LIKE 'pg%' GROUP BY TABLE_SCHEMA ORDER BY 1"
        )
        assert (
            _rows(engine, sql.replace("'pg%'", "'pg%' AND TABLE_SCHEMA NOT LIKE 'pgw%'"))
            == (drill(sql)["rows"])
        ), table


def test_schemata_is_drills(engine):
    sql = (
        "SELECT SCHEMA_NAME, CATALOG_NAME, SCHEMA_OWNER, TYPE, IS_MUTABLE FROM "
        "INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME LIKE 'pg%' OR SCHEMA_NAME LIKE 'maria%' "
        "ORDER BY 1"
    )
    ours = {"pg", "pgw", "maria"}
    want = [r for r in drill(sql)["rows"] if r[0].split(".")[0] in ours]
    assert _rows(engine, sql) == want
