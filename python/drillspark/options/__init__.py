"""The options registry: every option drillspark accepts, declared once (name as Drill spells
it, kind, default, scopes, validator, and whether and how it takes effect here), read by every
door that sets or shows options: SET / ALTER SESSION / ALTER SYSTEM / RESET (sql/session.py),
a REST request's options, POST /option/{name}, /options.json (server/catalog.py), sys.options
and sys.internal_options (sql/catalog.py) and the console's Options page.

`REGISTRY` holds Apache Drill 1.22's options (options/drill.py: the facts from
rules/drill_options.tsv, what drillspark does with each in `EFFECTS`); a plugin or format
declares its own with `REGISTRY.declare(BooleanOption(...))`. This package imports only the
bottom of drillspark (errors, rules), so every layer may use it."""

from __future__ import annotations

from drillspark.options.drill import PLAN_HEAD, drill_declarations
from drillspark.options.kinds import (
    ACCESSIBLE,
    NONE,
    PLAN,
    QUERY,
    SERVER,
    SESSION,
    SYSTEM,
    BooleanOption,
    DoubleOption,
    LongOption,
    OneOf,
    Option,
    OptionError,
    Range,
    StringOption,
)
from drillspark.options.registry import OptionRegistry

REGISTRY = OptionRegistry(drill_declarations())

__all__ = [
    "ACCESSIBLE",
    "NONE",
    "PLAN",
    "PLAN_HEAD",
    "QUERY",
    "REGISTRY",
    "SERVER",
    "SESSION",
    "SYSTEM",
    "BooleanOption",
    "DoubleOption",
    "LongOption",
    "OneOf",
    "Option",
    "OptionError",
    "OptionRegistry",
    "Range",
    "StringOption",
]
