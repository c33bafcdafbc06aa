"""A real MongoDB-protocol server for the `mongo` plugin's tests: FerretDB 1.24.2 over its SQLite
back end (built by `make setup` into build/ferretdb/, Makefile's $(FERRETDB)), on a free loopback
port with its data in a temporary folder, stopped by its process id."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

from tests.storage.listening import wait_listening

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "build" / "ferretdb" / "ferretdb"


def missing() -> str | None:
    if not BINARY.is_file():
        return f"FerretDB is not built ({BINARY}); `make setup` builds it with go"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FerretDB:
    def __init__(self, folder: Path):
        self.folder = folder
        data = folder / "data"
        data.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.log = open(folder / "ferretdb.log", "wb")  # noqa: SIM115  (closed in stop)
        self.proc = subprocess.Popen(
            [
                str(BINARY),
                "--handler=sqlite",
                f"--sqlite-url=file:{data}/",
                f"--listen-addr=127.0.0.1:{self.port}",
                f"--state-dir={folder}",
                "--telemetry=disable",
                "--debug-addr=-",
                "--log-level=error",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "FERRETDB_TELEMETRY": "disable"},
        )
        wait_listening(self.proc, self.port, "FerretDB", folder / "ferretdb.log", 60, self.stop)
        self.uri = f"mongodb://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


if __name__ == "__main__":  # run one by hand: python tests/storage/mongo_server.py DIR
    import sys

    server = FerretDB(Path(sys.argv[1]))
    print(server.uri, server.proc.pid, flush=True)
    try:
        server.proc.wait()
    except KeyboardInterrupt:
        server.stop()
