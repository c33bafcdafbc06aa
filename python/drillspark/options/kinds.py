"""An option's declaration: its kind (one class each), default, scopes, validator, and what it
does here. Values come in two forms and both are checked as Drill checks them: a typed value
(a SQL literal of SET / ALTER SESSION / ALTER SYSTEM: bool, int, float or str) and text (a REST
request's `options`, the options form), which Drill parses in the option's kind."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Protocol

from drillspark.errors import UsageError

# the scopes an option can be set in: ALTER SYSTEM, ALTER SESSION / SET (and a REST request's
# options, which Drill sets in the request's session), and a query's own (the planner's)
SYSTEM, SESSION, QUERY = "SYSTEM", "SESSION", "QUERY"
# Drill's accessibleScopes -> the scopes each allows
ACCESSIBLE: dict[str, frozenset[str]] = {
    "ALL": frozenset({SYSTEM, SESSION, QUERY}),
    "SYSTEM": frozenset({SYSTEM}),
    "SYSTEM_AND_SESSION": frozenset({SYSTEM, SESSION}),
    "SESSION_AND_QUERY": frozenset({SESSION, QUERY}),
}

# where an option takes effect in drillspark
PLAN = "plan"  # the SQL layer: a plan's head.options, read by the lowering, translator or reader
SERVER = "server"  # `drillspark serve` reads it (never passed to a plan)
NONE = "none"  # accepted and shown as Drill shows it, but nothing here reads it
EFFECTS = (PLAN, SERVER, NONE)


class OptionError(UsageError, ValueError):
    """A value an option cannot take, an option that does not exist or cannot be set in a
    scope (configuration use): `message` is Drill 1.22's words. The SQL layer and the server
    answer it as their ValidationError."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


def kind_of(value: object) -> str:
    """Drill's kind of a typed value (a SQL literal's)."""
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "LONG"
    if isinstance(value, float):
        return "DOUBLE"
    return "STRING"


def java_double(x: float) -> str:
    """`x` as Java's Double.toString writes it (how Drill shows a DOUBLE option)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return repr(float(x))  # Python's shortest digits, without an exponent in this range
    sign, digits, exponent = Decimal(repr(float(x))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) - 1 + int(exponent)
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{power}"


# ----------------------------------------------------------------------------- validators
class Validator(Protocol):
    """Checks a value of the option's kind (raises OptionError); `spec()` is how
    rules/drill_options.tsv writes it."""

    def __call__(self, name: str, value: Any) -> None: ...

    def spec(self) -> str: ...


@dataclass(frozen=True)
class Range:
    """Between two bounds, inclusive; the bounds as Drill writes them in its message."""

    low: str
    high: str

    def __call__(self, name: str, value: Any) -> None:
        low, high = (int(Decimal(b)) if isinstance(value, int) else float(b) for b in self.bounds)
        if value < low or value > high:  # NaN passes, as in Drill
            raise OptionError(f"Option {name} must be between {self.low} and {self.high}.")

    @property
    def bounds(self) -> tuple[str, str]:
        return (self.low, self.high)

    def spec(self) -> str:
        return f"range:{self.low}:{self.high}"


@dataclass(frozen=True)
class JavaInt:
    """A LONG option Drill reads as a Java int."""

    def __call__(self, name: str, value: Any) -> None:
        if not -(2**31) <= value < 2**31:
            raise OptionError(f"Option {name} does not have a valid integer value")

    def spec(self) -> str:
        return "int"


@dataclass(frozen=True)
class OneOf:
    """One of a list of words, compared without case (the value is kept as given). `enum`:
    the message of Drill's enum-backed options (exec.java_compiler) instead of its lists'."""

    values: tuple[str, ...]
    enum: bool = False

    def __call__(self, name: str, value: Any) -> None:
        if str(value).lower() in (v.lower() for v in self.values):
            return
        listed = ", ".join(self.values)
        if self.enum:
            raise OptionError(
                f"Invalid value '{value}' specified for option '{name}'. Valid values are "
                f"[{listed}]."
            )
        raise OptionError(f"Option {name} must be one of: [{listed}].")

    def spec(self) -> str:
        return f"{'enum' if self.enum else 'one_of'}:{','.join(self.values)}"


# java.time.format.DateTimeFormatter's pattern letters, and the characters it reserves
_PATTERN_LETTERS = set("GuyDMLdQqYwWEecFaBhKkHmsSAnNVvzOXxZp")
_RESERVED = set("#{}")


@dataclass(frozen=True)
class DateTimePattern:
    """A java.time pattern (web.display_format.*): its reserved characters and unknown
    letters are refused with Java's reason; letter counts are not checked."""

    def __call__(self, name: str, value: Any) -> None:
        text, i = str(value), 0
        while i < len(text):
            c = text[i]
            if c == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    self._fail(value, f"Pattern ends with an incomplete string literal: {text}")
                i = end + 1
                continue
            if c in _RESERVED:
                self._fail(value, f"Pattern includes reserved character: '{c}'")
            if c.isascii() and c.isalpha() and c not in _PATTERN_LETTERS:
                self._fail(value, f"Unknown pattern letter: {c}")
            i += 1

    @staticmethod
    def _fail(value: Any, why: str) -> None:
        raise OptionError(f"'{value}' is not a valid DateTime format pattern: {why}")

    def spec(self) -> str:
        return "datetime_pattern"


@dataclass(frozen=True)
class JsonText:
    """JSON text of one shape: `controls` an object (drill.exec.testing.controls),
    `policies` an array (exec.impersonation.inbound_policies); the reason is Python's, not
    Jackson's."""

    shape: str

    def __call__(self, name: str, value: Any) -> None:
        try:
            parsed = json.loads(str(value))
            wanted = dict if self.shape == "controls" else list
            if not isinstance(parsed, wanted):
                raise ValueError(f"expected a JSON {'object' if wanted is dict else 'array'}")
        except ValueError as e:
            if self.shape == "controls":
                raise OptionError(f"Invalid controls option string ({value}) due to {e}") from None
            raise OptionError(f"Invalid impersonation policies.\nDetails: {e}") from None

    def spec(self) -> str:
        return f"json_{self.shape}"


def validator_of(spec: str) -> Validator | None:
    """The validator a table cell names (rules/drill_options.tsv's validator column)."""
    form, _, rest = spec.partition(":")
    if spec == "":
        return None
    if form == "range":
        low, high = rest.split(":")
        return Range(low, high)
    if form in ("one_of", "enum"):
        return OneOf(tuple(rest.split(",")), enum=form == "enum")
    if form == "int":
        return JavaInt()
    if form == "datetime_pattern":
        return DateTimePattern()
    if form in ("json_controls", "json_policies"):
        return JsonText(form[5:])
    raise ValueError(f"unknown option validator {spec!r}")


# ----------------------------------------------------------------------------- option kinds
@dataclass(frozen=True, eq=False)
class Option:
    """One option, declared once. `scopes` is Drill's accessibleScopes; `internal` lists it in
    sys.internal_options (not sys.options or /options.json); `effect` says where it takes
    effect here (PLAN, SERVER or NONE) and `note` how, or why it does nothing."""

    name: str
    default: Any
    scopes: str = "ALL"
    description: str = ""
    internal: bool = False
    effect: str = NONE
    note: str = ""
    validator: Validator | None = None

    KIND: ClassVar[str] = ""  # as /options.json and the options form name it
    SQL_KIND: ClassVar[str] = ""  # as sys.options names it
    VALUE_KEY: ClassVar[str] = ""  # the member of Drill's option JSON (a profile's optionsJson)

    def __post_init__(self) -> None:
        if self.scopes not in ACCESSIBLE or self.effect not in EFFECTS:
            raise ValueError(f"option {self.name!r}: scopes {self.scopes}, effect {self.effect}")
        if kind_of(self.default) != self.KIND:
            raise ValueError(f"option {self.name!r}: default {self.default!r} is not {self.KIND}")

    @property
    def applies(self) -> bool:
        return self.effect != NONE

    def allows(self, scope: str) -> bool:
        return scope in ACCESSIBLE[self.scopes]

    def check_scope(self, scope: str) -> None:
        if not self.allows(scope):  # Drill: PERMISSION ERROR
            raise OptionError(f"Cannot change option {self.name} in scope {scope}")

    def value(self, given: object, spelled: str | None = None) -> Any:
        """A SQL literal's value (or any typed value) as this option's value: text is parsed
        in the option's kind, another kind is refused (Drill refuses 1 for a DOUBLE option)."""
        if isinstance(given, str) and self.KIND != "STRING":
            return self.parse(given, spelled)
        if kind_of(given) != self.KIND:
            raise OptionError(
                f"Option {self.name} must be of type {self.KIND} but you tried to set to "
                f"{kind_of(given)}."
            )
        self.validate(given)
        return given

    def parse(self, text: str, spelled: str | None = None) -> Any:
        """Text (a REST request's options, the options form) as this option's value."""
        value = self._parse(text)
        if value is None:
            raise OptionError(
                f"'{text}' is not a valid value for option '{spelled or self.name}' of type "
                f"{self.KIND}"
            )
        self.validate(value)
        return value

    def _parse(self, text: str) -> Any:
        raise NotImplementedError

    def validate(self, value: Any) -> None:
        if self.validator is not None:
            self.validator(self.name, value)

    def text(self, value: Any) -> str:
        """`value` as sys.options shows it (its `val` column, /options.json's defaultValue)."""
        return str(value)


@dataclass(frozen=True, eq=False)
class BooleanOption(Option):
    KIND: ClassVar[str] = "BOOLEAN"
    SQL_KIND: ClassVar[str] = "BIT"
    VALUE_KEY: ClassVar[str] = "bool_val"

    def _parse(self, text: str) -> Any:
        word = text.strip().lower()
        return word == "true" if word in ("true", "false") else None

    def text(self, value: Any) -> str:
        return "true" if value else "false"


_LONG = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True, eq=False)
class LongOption(Option):
    KIND: ClassVar[str] = "LONG"
    SQL_KIND: ClassVar[str] = "BIGINT"
    VALUE_KEY: ClassVar[str] = "num_val"

    def _parse(self, text: str) -> Any:
        word = text.strip()
        if _LONG.fullmatch(word) and -(2**63) <= int(word) < 2**63:
            return int(word)
        return None


# Java's Double.parseDouble: decimal or exponent forms, NaN, Infinity, an f/d suffix
_DOUBLE = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)"
)


@dataclass(frozen=True, eq=False)
class DoubleOption(Option):
    KIND: ClassVar[str] = "DOUBLE"
    SQL_KIND: ClassVar[str] = "FLOAT"
    VALUE_KEY: ClassVar[str] = "float_val"

    def _parse(self, text: str) -> Any:
        word = text.strip()
        if not _DOUBLE.fullmatch(word):
            return None
        return float(word.rstrip("fFdD").replace("Infinity", "inf"))

    def text(self, value: Any) -> str:
        return java_double(float(value))


@dataclass(frozen=True, eq=False)
class StringOption(Option):
    KIND: ClassVar[str] = "STRING"
    SQL_KIND: ClassVar[str] = "VARCHAR"
    VALUE_KEY: ClassVar[str] = "string_val"

    def _parse(self, text: str) -> Any:
        return text


KINDS: dict[str, type[Option]] = {
    c.KIND: c for c in (BooleanOption, LongOption, DoubleOption, StringOption)
}
