"""Write python/drillspark/rules/drill_options.tsv, the facts of Apache Drill 1.22's options,
from what the real Drill answers (the oracle of ../shared/tools/drill, never Drill's code).

Two runs of the oracle's query.sh (each starts an embedded Drillbit: ~30 s, ~4 GB): the first
lists `sys.options` and `sys.internal_options` (name, kind, accessible scopes, default,
description as Drill shows them); the second sets each option to values its validator may
refuse (LONG and DOUBLE: the lowest and highest numbers, STRING: a word no list holds), each
accepted value reset at once, and reads the validator from Drill's error ("must be between 1
and 9223372036854775807", "must be one of: [none, gzip, ...]"). A refusal this script does not
know stops it: look at the message and teach `validator` its form.

    python tools/drill_options_table.py                # both runs, writes the table
    python tools/drill_options_table.py --keep DIR     # also keeps the oracle's answers in DIR
    python tools/drill_options_table.py --from DIR     # the table from answers kept before

Standard library only; run it again when the Drill version drillspark follows changes.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "drillspark" / "rules" / "drill_options.tsv"
QUERY_SH = ROOT.parent / "shared" / "tools" / "drill" / "query.sh"
LISTING = (
    "SELECT * FROM sys.options ORDER BY name",
    "SELECT * FROM sys.internal_options ORDER BY name",
)
# sys.options' kind -> the kind /options.json and the options form name
KINDS = {"BIT": "BOOLEAN", "BIGINT": "LONG", "FLOAT": "DOUBLE", "VARCHAR": "STRING"}
# values a validator may refuse, per kind (a LONG's lowest is one above Long.MIN_VALUE: Drill
# reads `-9223372036854775808` as the negation of a number too large for a LONG)
PROBES = {
    "LONG": ("-9223372036854775807", "9223372036854775807"),
    "DOUBLE": ("-1.0E300", "1.0E300"),
    "STRING": ("'zz_no_such_value'",),
    "BOOLEAN": (),
}
HEADER = """\
# Apache Drill 1.22's options, one line each, tab-separated, as the real Drill answers (written by
# tools/drill_options_table.py from sys.options, sys.internal_options and Drill's answers to
# values each option's validator refuses; never edited by hand): the name; the kind (BOOLEAN,
# LONG, DOUBLE, STRING, as /options.json names it); the default as sys.options shows it; the
# accessible scopes (ALL, SYSTEM, SYSTEM_AND_SESSION, SESSION_AND_QUERY); the table that lists
# it (options: sys.options and /options.json; internal: sys.internal_options); the validator
# (- none beyond the kind; range:MIN:MAX; one_of:A,B,... and enum:A,B,..., values compared
# without case, each with its own message; int: a LONG that fits a Java int; datetime_pattern:
# a java.time pattern; json_controls, json_policies: JSON text); Drill's description (- none;
# Drill cuts long ones at about 110 characters with "..."). What drillspark does with each
# option is not here: python/drillspark/options/ declares it.
"""


def run_oracle(query_sh: Path, statements: list[str], keep: Path | None, name: str) -> list[dict]:
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write("".join(s + ";\n" for s in statements))
    done = subprocess.run(
        [str(query_sh), "--json", "--file", f.name], capture_output=True, text=True, check=False
    )
    Path(f.name).unlink()
    if done.returncode not in (0, 1):  # 1: a statement failed, as probes do
        sys.exit(f"{query_sh} failed ({done.returncode}):\n{done.stderr}")
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if len(answers) != len(statements):
        sys.exit(f"{len(statements)} statements, {len(answers)} answers:\n{done.stderr}")
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{name}.jsonl").write_text(done.stdout, encoding="utf-8")
    return answers


def probe_statements(rows: list[list]) -> list[str]:
    """For each option and value to try: the SET, and a RESET (which undoes an accepted one and
    does nothing otherwise), in the scope the option accepts."""
    out = []
    for name, kind, scopes, *_ in rows:
        alter = "ALTER SYSTEM" if scopes == "SYSTEM" else "ALTER SESSION"
        for value in PROBES[KINDS[kind]]:
            out += [f"{alter} SET `{name}` = {value}", f"{alter} RESET `{name}`"]
    return out


# Drill's refusals, each read as a validator of the table (the probed value and the option's
# name stand where the message names them)
_FORMS = (
    (re.compile(r"Option (?P<name>\S+) must be between (?P<min>\S+) and (?P<max>\S+)\."), "range"),
    (re.compile(r"Option (?P<name>\S+) must be one of: \[(?P<values>.*)\]\."), "one_of"),
    (re.compile(r"Option (?P<name>\S+) does not have a valid integer value"), "int"),
    (
        re.compile(
            r"Invalid value '.*' specified for option '(?P<name>\S+)'\. "
            r"Valid values are \[(?P<values>.*)\]\."
        ),
        "enum",
    ),
    (re.compile(r"'.*' is not a valid DateTime format pattern: .*"), "datetime_pattern"),
    (re.compile(r"Invalid controls option string \(.*\) due to .*"), "json_controls"),
    (re.compile(r"Invalid impersonation policies\."), "json_policies"),
)


def validator(name: str, answers: list[dict]) -> str:
    """The validator Drill's answers to one option's probes show."""
    found = "-"
    for answer in answers:
        if answer["ok"]:
            continue
        message = answer["error"].split("VALIDATION ERROR: ", 1)[-1].split("\n", 1)[0].strip()
        known = [
            (m, form)
            for pattern, form in _FORMS
            if (m := pattern.fullmatch(message)) and m.groupdict().get("name", name) == name
        ]
        if not known:
            sys.exit(f"{name}: an answer this script does not know: {message!r}")
        m, form = known[0]
        if form == "range":
            found = f"range:{m['min']}:{m['max']}"
        elif form in ("one_of", "enum"):
            found = f"{form}:" + ",".join(v.strip() for v in m["values"].split(","))
        else:
            found = form
    return found


def table(listing: list[dict], statements: list[str], answers: list[dict]) -> str:
    by_sql = {s: a for s, a in zip(statements, answers, strict=True)}
    lines = [HEADER]
    tables = (("options", listing[0]["rows"]), ("internal", listing[1]["rows"]))
    for where, rows in tables:
        for name, kind, scopes, default, _status, _scope, description in rows:
            tried = [
                by_sql[s]
                for s in probe_statements([[name, kind, scopes]])
                if s.split(" ", 3)[2] == "SET"
            ]
            cells = [
                name,
                KINDS[kind],
                default,
                scopes,
                where,
                validator(name, tried),
                " ".join((description or "").split()) or "-",
            ]
            if any("\t" in c or c == "" and i != 2 for i, c in enumerate(cells)):
                sys.exit(f"{name}: a cell this table cannot hold: {cells!r}")
            lines.append("\t".join(cells) + "\n")
    return "".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--query-sh", type=Path, default=QUERY_SH, help="the oracle's query.sh")
    ap.add_argument("--keep", type=Path, help="keep the oracle's answers in this folder")
    ap.add_argument("--from", dest="source", type=Path, help="answers kept by --keep")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if args.source is not None:

        def read(name: str) -> list[dict]:
            text = (args.source / f"{name}.jsonl").read_text(encoding="utf-8")
            return [json.loads(line) for line in text.splitlines() if line.startswith("{")]

        listing = read("listing")
        statements = probe_statements(listing[0]["rows"] + listing[1]["rows"])
        answers = read("probes")
    else:
        listing = run_oracle(args.query_sh, list(LISTING), args.keep, "listing")
        statements = probe_statements(listing[0]["rows"] + listing[1]["rows"])
        answers = run_oracle(args.query_sh, statements, args.keep, "probes")
    args.out.write_text(table(listing, statements, answers), encoding="utf-8")
    print(f"{args.out}: {len(listing[0]['rows'])} options, {len(listing[1]['rows'])} internal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
