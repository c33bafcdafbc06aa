"""The server's recent log, for the console's Logs page and Drill's /logs.json,
/log/{name}/content.json and /log/{name}/download: the last lines the `drillspark` loggers
wrote while the server ran, kept in memory (the server writes its log to stderr, not to a
file Drill's pages could list). One log, named `drillspark.log`."""

from __future__ import annotations

import collections
import datetime as _dt
import logging
import threading

LOG_NAME = "drillspark.log"
MAX_LINES = 10_000  # Drill's maxLines


class LogBuffer(logging.Handler):
    def __init__(self, max_lines: int = MAX_LINES) -> None:
        super().__init__(logging.NOTSET)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.max_lines = max_lines
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self._bytes = 0
        self._modified = _dt.datetime.now(_dt.UTC)
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # noqa: BLE001 - a bad record must not break the logging caller
            self.handleError(record)
            return
        with self._guard:
            for line in text.splitlines() or [""]:
                if len(self._lines) == self.max_lines:
                    self._bytes -= len(self._lines[0].encode()) + 1
                self._lines.append(line)
                self._bytes += len(line.encode()) + 1
            self._modified = _dt.datetime.now(_dt.UTC)

    def lines(self) -> list[str]:
        with self._guard:
            return list(self._lines)

    def listing(self) -> list[dict[str, str]]:
        """/logs.json: as Drill lists its log folder (size in KB rounded up, as Drill's)."""
        with self._guard:
            kb = max(1, -(-self._bytes // 1024))
            modified = self._modified.strftime("%m/%d/%Y %H:%M:%S")
        return [{"name": LOG_NAME, "size": f"{kb}.0 KB", "lastModified": modified}]

    def attach(self, logger: str = "drillspark") -> LogBuffer:
        # what the loggers pass at the server's log level (--log-level), as stderr shows it
        logging.getLogger(logger).addHandler(self)
        return self

    def detach(self, logger: str = "drillspark") -> None:
        logging.getLogger(logger).removeHandler(self)
