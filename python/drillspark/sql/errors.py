"""Errors of the SQL front end: each names the place in the query (line and column) so the
shell and the CLI can point at it with a caret."""

from __future__ import annotations

from drillspark.errors import Error


class SqlError(Error):
    """A problem with a SQL statement. `line`/`column` are 1-based positions in `sql` when
    known; `str(error)` is one readable paragraph."""

    kind = "SQL error"

    def __init__(
        self,
        message: str,
        sql: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ):
        self.message = message
        self.sql = sql
        self.line = line
        self.column = column
        super().__init__(self._paragraph())

    def _paragraph(self) -> str:
        where = f" (line {self.line}, column {self.column})" if self.line is not None else ""
        return f"{self.kind}: {self.message}{where}"

    def caret(self) -> str:
        """The offending SQL line with a caret under the position (empty when unknown)."""
        if self.sql is None or self.line is None or self.column is None:
            return ""
        lines = self.sql.splitlines() or [""]
        if not 1 <= self.line <= len(lines):
            return ""
        text = lines[self.line - 1].expandtabs(1)
        return f"{text}\n{' ' * max(self.column - 1, 0)}^"

    def render(self) -> str:
        """Paragraph plus caret, as the shell and `drillspark sql` print it."""
        caret = self.caret()
        return f"{self}\n{caret}" if caret else str(self)


class SqlSyntaxError(SqlError):
    kind = "Syntax error"


class UnsupportedSqlError(SqlError):
    kind = "Unsupported"


class TableNotFoundError(SqlError):
    kind = "Table not found"


class ValidationError(SqlError):
    kind = "Validation error"


class QueryPlanError(SqlError):
    """The translator refused the plan a query was lowered to (an unknown function, a type
    it cannot apply, ...): placed at the SQL the failing operator came from."""

    kind = "Query error"


def position_of(sql: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of character `offset` in `sql`."""
    before = sql[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return line, column


def shift_error(e: SqlError, text: str, offset: int) -> SqlError:
    """Re-place an error found in a statement at its position in the whole `text`."""
    if e.line is None or e.column is None or e.sql is None:
        return type(e)(e.message, text if e.sql is None else e.sql, e.line, e.column)
    lines = e.sql.splitlines(keepends=True)
    local = sum(len(x) for x in lines[: e.line - 1]) + e.column - 1
    line, column = position_of(text, offset + local)
    return type(e)(e.message, text, line, column)
