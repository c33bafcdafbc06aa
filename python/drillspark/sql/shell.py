"""`drillspark shell`: an interactive Drill SQL shell in the manner of Drill's sqlline.

Statements may span lines and run when a line ends with ';'. History is kept in a file;
Tab completes keywords, functions, schemas and (inside dfs.`...`) file paths. Commands:
!quit, !tables (SHOW FILES of the default schema), !schemas, !help.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from drillspark.plugin_configs import bootstrap
from drillspark.progress import ProgressWatch, TextProgress
from drillspark.sql import statements as st
from drillspark.sql.cancel import QueryCancelled, run_cancellable, starter
from drillspark.sql.engine import SqlEngine
from drillspark.sql.errors import SqlError, ValidationError
from drillspark.sql.output import render
from drillspark.sql.warm_up import WarmUp

KEYWORDS = sorted(
    {
        "SELECT",
        "FROM",
        "WHERE",
        "GROUP",
        "BY",
        "HAVING",
        "ORDER",
        "LIMIT",
        "OFFSET",
        "DISTINCT",
        "UNION",
        "ALL",
        "INTERSECT",
        "EXCEPT",
        "JOIN",
        "LEFT",
        "RIGHT",
        "FULL",
        "OUTER",
        "INNER",
        "CROSS",
        "ON",
        "AS",
        "WITH",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "CAST",
        "AND",
        "OR",
        "NOT",
        "IN",
        "EXISTS",
        "IS",
        "NULL",
        "LIKE",
        "BETWEEN",
        "ASC",
        "DESC",
        "NULLS",
        "FIRST",
        "LAST",
        "OVER",
        "PARTITION",
        "USE",
        "SHOW",
        "FILES",
        "SCHEMAS",
        "TABLES",
        "DESCRIBE",
        "EXPLAIN",
        "PLAN",
        "FOR",
        "ALTER",
        "SESSION",
        "SET",
        "RESET",
        "CREATE",
        "TABLE",
        "TRUE",
        "FALSE",
        "VALUES",
    }
)
FUNCTIONS = sorted(
    {
        "FLATTEN",
        "KVGEN",
        "MAPPIFY",
        "REPEATED_COUNT",
        "REPEATED_CONTAINS",
        "TYPEOF",
        "SQLTYPEOF",
        "DRILLTYPEOF",
        "MODEOF",
        "COUNT",
        "SUM",
        "AVG",
        "MIN",
        "MAX",
        "COALESCE",
        "CONCAT",
        "LOWER",
        "UPPER",
        "SUBSTR",
        "LENGTH",
        "TRIM",
        "ROUND",
        "ABS",
        "TO_DATE",
        "TO_TIMESTAMP",
        "DATE_TRUNC",
        "ROW_NUMBER",
        "RANK",
        "DENSE_RANK",
    }
)
COMMANDS = ["!quit", "!tables", "!schemas", "!help"]
HELP = """Statements end with ';' and may span lines. Commands:
  !quit      leave the shell (also !q, !exit, Ctrl-D)
  !tables    SHOW FILES in the default schema
  !schemas   SHOW SCHEMAS
  !help      this text
Tab completes keywords, functions, schemas and file names inside dfs.`...`."""


def _path_re(plugins: tuple[str, ...]) -> re.Pattern[str]:
    """A backticked path being typed, after `plugin.` or `plugin.workspace.` of one of
    `plugins` (the session's home and classpath ones)."""
    names = "|".join(re.escape(p) for p in plugins) or "(?!)"
    return re.compile(rf"(?:\b({names})(?:\.(\w+))?\.)?`([^`]*)$", re.I)


def _completer(engine: SqlEngine | None):
    from prompt_toolkit.completion import Completer, Completion

    class SqlCompleter(Completer):
        """Keywords, functions and schemas; file paths inside backticks (schemas and paths
        only with a local engine)."""

        def get_completions(self, document, complete_event) -> Iterable[Completion]:
            before = document.text_before_cursor
            m = _path_re(engine.session.built_ins()).search(before) if engine else None
            if m and before.count("`") % 2 == 1 and engine is not None:
                yield from self._paths(m.group(1), m.group(2), m.group(3))
                return
            word = re.search(r"[\w.!$]*$", before).group(0)  # type: ignore[union-attr]
            if not word:
                return
            upper = word.upper()
            schemas = engine.session.schemas() if engine else []
            candidates = COMMANDS if word.startswith("!") else (KEYWORDS + FUNCTIONS + schemas)
            for c in candidates:
                if c.upper().startswith(upper) and c.upper() != upper:
                    kept = c.startswith("!") or c in schemas  # a schema keeps its spelling
                    text = c if (kept or word.isupper()) else c.lower()
                    yield Completion(text, start_position=-len(word))

        def _paths(self, plugin: str | None, workspace: str | None, partial: str):
            assert engine is not None
            session = engine.session
            if plugin and session.schema_part(plugin) == session.classpath:
                folder = session.cp_root
            elif workspace and session.schema_part(workspace) in session.workspaces:
                folder = session.workspaces[session.schema_part(workspace)]
            elif plugin:
                folder = session.workspaces[bootstrap.ROOT_WORKSPACE]
            else:
                try:
                    folder = session.schema_folder(None)[1]
                except ValidationError:  # no default schema and no home plugin: no folder
                    return
            head, _, prefix = partial.rpartition("/")
            base = head if os.path.isabs(partial) else os.path.join(folder, head)
            try:
                names = sorted(os.listdir(base or "/"))
            except OSError:
                return
            for name in names:
                if name.startswith(prefix) and not name.startswith("."):
                    full = os.path.join(base, name)
                    suffix = "/" if os.path.isdir(full) else "`"  # a file ends the name
                    yield Completion(name + suffix, start_position=-len(prefix))

    return SqlCompleter()


class Progress:
    """A one-line elapsed-time / Spark-task indicator on `stream` while a statement runs, on a
    terminal only (shown after the first second, erased when done): drillspark.progress's
    watch and text line."""

    def __init__(self, engine: SqlEngine, stream: TextIO):
        self.stream = stream
        self._watch = ProgressWatch(
            TextProgress(stream),
            lambda: engine.spark if engine.has_spark else None,
            interval=0.25,
            delay=1.0,
        )

    def __enter__(self) -> Progress:
        if self.stream.isatty():
            self._watch.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stream.isatty():
            self._watch.__exit__(*exc)


class Shell:
    """The shell over a local SqlEngine. A subclass may run the statements elsewhere
    (`drillspark shell --connect`, cli/remote.py) by overriding `execute`, `warm_up`,
    `completer` and `tables_statement`."""

    def __init__(
        self, engine: SqlEngine, history: Path | None = None, stdout: TextIO | None = None
    ):
        self.engine = engine
        self.history = history
        self.out = stdout or sys.stdout
        self._typed = threading.Event()  # a statement came: the warm-up ends
        self.warming: WarmUp | None = None

    def warm_up(self) -> None:
        """Called once the prompt shows: Spark starts while the first statement is typed
        (the first query waits for it), then runs a few small statements of its own until
        the first one comes (sql/warm_up.py)."""
        self.warming = WarmUp(lambda: self.engine.spark, busy=self._typed.is_set).start()

    def completer(self):
        return _completer(self.engine)

    def tables_statement(self) -> str:
        # Drill's SHOW FILES needs a workspace: the default schema's, else dfs.root
        session = self.engine.session
        if session.default_schema or session.home is None:
            return "SHOW FILES"
        return f"SHOW FILES IN {session.home}.{bootstrap.ROOT_WORKSPACE}"

    def execute(self, statement: str) -> str:
        """One statement's answer as the text to print; Ctrl-C cancels it (QueryCancelled)."""
        self._typed.set()

        def work() -> str:
            # rendered whole, so read in one pass where it can be (sql/output.py)
            return render(self.engine.execute_statement(statement))

        with Progress(self.engine, sys.stderr):
            return run_cancellable(starter(self.engine, [statement]), work)

    def run(self) -> int:
        if not sys.stdin.isatty():
            return self._batch(sys.stdin.read())
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings

        kb = KeyBindings()

        @kb.add("enter")
        def _enter(event) -> None:
            buf = event.current_buffer
            if st.is_complete(buf.text):
                buf.validate_and_handle()
            else:
                buf.insert_text("\n")

        # prompt_toolkit asks the terminal where the cursor is (CPR) and prints "WARNING: your
        # terminal doesn't support cursor position requests" when no answer comes (terminals
        # in editors, multiplexers, test harnesses); the answer only helps it place the
        # completion menu. PROMPT_TOOLKIT_NO_CPR=0 asks again.
        os.environ.setdefault("PROMPT_TOOLKIT_NO_CPR", "1")
        history = FileHistory(str(self.history)) if self.history else InMemoryHistory()
        prompt: PromptSession[str] = PromptSession(
            history=history,
            completer=self.completer(),
            key_bindings=kb,
            multiline=True,
            complete_while_typing=False,
        )
        print(
            "drillspark shell: Drill SQL on Spark. End statements with ';', "
            "!help for help, !quit to leave.",
            file=self.out,
        )
        self.warm_up()
        while True:
            try:
                text = prompt.prompt(
                    "drillspark> ", prompt_continuation=lambda w, n, s: ". ".rjust(w)
                )
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if not self.handle(text):
                break
        if self.warming is not None:  # before Spark stops with the process
            self.warming.stop(self.engine.spark if self.engine.has_spark else None)
        return 0

    def _batch(self, text: str) -> int:
        """Piped input: SQL and !commands in order, no prompt."""
        status = 0
        pending: list[str] = []
        for line in text.splitlines() + ["!end"]:
            if line.strip().startswith("!"):
                if "\n".join(pending).strip() and not self._run("\n".join(pending)):
                    status = 1
                pending = []
                if line.strip() != "!end" and not self.handle(line):
                    break
            else:
                pending.append(line)
        return status

    def handle(self, text: str) -> bool:
        """Run one entry; False when the shell should stop."""
        cmd = text.strip().rstrip(";").strip()
        if cmd.startswith("!"):
            word = cmd.split()[0].lower()
            if word in ("!quit", "!q", "!exit"):
                return False
            if word == "!tables":
                self._run(self.tables_statement())
            elif word == "!schemas":
                self._run("SHOW SCHEMAS")
            elif word == "!help":
                print(HELP, file=self.out)
            else:
                print(f"Unknown command {word}; !help lists the commands.", file=self.out)
            return True
        if cmd:
            self._run(text)
        return True

    def _run(self, text: str) -> bool:
        from drillspark.errors import describe

        for _offset, stmt in st.split(text):
            try:
                rendered = self.execute(stmt)
            except SqlError as e:
                print(e.render(), file=self.out)
                return False
            except QueryCancelled as e:
                print(e, file=self.out)
                return False
            except Exception as e:  # a Spark or plan error: one paragraph, no stack trace
                print(f"Error: {describe(e)}", file=self.out)
                return False
            print(rendered, file=self.out)
        return True
