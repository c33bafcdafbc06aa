"""Turning errors from Spark (JVM or Connect) into one readable paragraph."""

from __future__ import annotations


def describe(error: BaseException) -> str:
    """A short message for `error`: Spark's error condition and first message line, without
    the JVM stack trace that py4j or Connect attach."""
    try:
        from pyspark.errors import PySparkException
    except ImportError:  # pragma: no cover - pyspark is a dependency
        PySparkException = ()  # type: ignore[assignment,misc]
    if "java.lang.StackOverflowError" in str(error):
        return ("the query or plan nests too deeply for Spark (java.lang.StackOverflowError in "
                "the JVM); shorten the chain of operators or expressions")
    if isinstance(error, PySparkException):
        condition = error.getCondition() if hasattr(error, "getCondition") else None
        text = error.getMessage() if hasattr(error, "getMessage") else str(error)
        first = _first_paragraph(text)
        return f"[{condition}] {first}" if condition and condition not in first else first
    return _first_paragraph(str(error)) or type(error).__name__


def _first_paragraph(text: str) -> str:
    lines: list[str] = []
    for line in text.strip().splitlines():
        stripped = line.strip()
        if stripped.startswith(("at ", "JVM stacktrace:", "Caused by:", "...")) or not stripped:
            if lines:
                break
            continue
        lines.append(stripped)
    return " ".join(lines)
