"""Throw-away PostgreSQL and MariaDB servers for the `jdbc` storage plugin's tests and benchmark:
each on a free loopback port, its data in a folder of its own (removed at the end), started from
the Debian packages' binaries (`make databases`: `apt-get install postgresql mariadb-server`) and
stopped by its process id. Nothing of the machine's own database services is used or touched.

PostgreSQL: `initdb` (as the `postgres` user when run as root: PostgreSQL refuses to run as
root), then `postgres -D DIR -p PORT -k DIR -c listen_addresses=127.0.0.1`; local socket
connections are trusted (the set-up runs `psql` through them), TCP connections need a password
(scram-sha-256), so a wrong password fails as on a real server.
MariaDB: `mariadb-install-db`, then `mariadbd --datadir DIR --socket DIR/mysqld.sock --port
PORT --bind-address=127.0.0.1` (as the `mysql` user when run as root); `root` has no password on
the socket, other users connect over TCP with their password.

Both start in a few seconds: no fsync, small buffers. Standard library only, so the test
fixtures (tests/storage/conftest.py), the benchmark (benchmarks/jdbc_bench.py) and a developer
share it:

    python tools/db_servers.py --postgresql --mariadb [--sql-postgresql F] [--sql-mariadb F]

starts both, runs the set-up files, prints their ports as JSON and serves until Ctrl-C.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0


class ServerError(Exception):
    """A server could not be started or a set-up statement failed."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(text[-lines:])


def _service_user(name: str) -> pwd.struct_passwd | None:
    """The account a server runs as when this process is root (both servers refuse root)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise ServerError(
            f"running as root, but there is no {name!r} user to run the server as "
            "(the Debian package creates it: make databases)"
        ) from None


def _own(path: Path, user: pwd.struct_passwd | None) -> None:
    if user is not None:
        os.chown(path, user.pw_uid, user.pw_gid)


def _as(user: pwd.struct_passwd | None) -> dict:
    """Popen arguments that run the child as `user` (no wrapper process: its pid is the
    server's)."""
    if user is None:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


@dataclass
class Server:
    kind: str
    port: int
    root: Path
    user: str  # the application user (password authentication over TCP)
    password: str
    database: str
    process: subprocess.Popen | None = None
    log: Path | None = None
    client: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def url(self, database: str | None = None) -> str:
        db = self.database if database is None else database
        scheme = "postgresql" if self.kind == "postgresql" else "mariadb"
        return f"jdbc:{scheme}://127.0.0.1:{self.port}/{db}"

    def sql(self, statements: str, database: str | None = None) -> str:
        """Run SQL as the superuser through the local socket; its output (tab-separated)."""
        db = self.database if database is None else database
        cmd = [*self.client, db] if db else list(self.client)
        done = subprocess.run(cmd, input=statements, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise ServerError(f"{self.kind}: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, remove: bool = True) -> None:
        """Stop the server by its process id (PostgreSQL: a fast shutdown, SIGINT; MariaDB:
        SIGTERM), killing it if it does not stop in time; then remove its folder."""
        p = self.process
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGINT if self.kind == "postgresql" else signal.SIGTERM)
            try:
                p.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(STOP_TIMEOUT)
        if remove:
            shutil.rmtree(self.root, ignore_errors=True)

    def describe(self) -> dict:
        return {
            "kind": self.kind,
            "port": self.port,
            "pid": self.pid,
            "url": self.url(),
            "user": self.user,
            "password": self.password,
            "database": self.database,
            "folder": str(self.root),
        }


# --- PostgreSQL ---------------------------------------------------------------------------


def postgresql_bin() -> Path | None:
    """The folder of PostgreSQL's server binaries: the newest /usr/lib/postgresql/N/bin (the
    Debian layout), else where `initdb` is on PATH."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def start_postgresql(
    root: Path | None = None, user: str = "drill", password: str = "drill-pw", database="drilltest"
) -> Server:
    """A fresh PostgreSQL cluster with `database` owned by `user` (who logs in with
    `password` over TCP)."""
    bindir = postgresql_bin()
    if bindir is None:
        raise ServerError(
            "PostgreSQL is not installed (make databases: apt-get install postgresql)"
        )
    account = _service_user("postgres")
    root = Path(root or tempfile.mkdtemp(prefix="drillspark-pg-"))
    root.chmod(0o755)
    data, sock = root / "data", root / "run"
    for d in (data, sock):
        d.mkdir(mode=0o700)
        _own(d, account)
    superpw = root / "superuser.pw"
    superpw.write_text(password + "\n")
    superpw.chmod(0o644)
    init = subprocess.run(
        [
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={superpw}",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
            "--no-instructions",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        **_as(account),
    )
    superpw.unlink()
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise ServerError(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
    psql = bindir / "psql"
    client = [
        str(psql if psql.exists() else (shutil.which("psql") or "psql")),
        "-X",
        "-q",
        "-A",
        "-t",
        "-F",
        "\t",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        str(sock),
    ]
    for _attempt in range(5):
        port = free_port()
        log = root / "postgres.log"
        server = Server("postgresql", port, root, user, password, database, log=log)
        server.client = [*client, "-p", str(port), "-U", "postgres", "-d"]
        with open(log, "ab") as out:
            server.process = subprocess.Popen(
                [
                    str(bindir / "postgres"),
                    "-D",
                    str(data),
                    "-p",
                    str(port),
                    "-k",
                    str(sock),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "shared_buffers=64MB",
                    "-c",
                    "max_connections=60",
                    "-c",
                    "TimeZone=UTC",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                **_as(account),
            )
        try:
            _wait_ready_keep(server, "SELECT 1;", "postgres")
        except _PortTaken:
            continue
        server.sql(
            f"CREATE ROLE {user} LOGIN PASSWORD '{password}';\n"
            f"CREATE DATABASE {database} OWNER {user};\n",
            database="postgres",
        )
        return server
    shutil.rmtree(root, ignore_errors=True)
    raise ServerError("PostgreSQL: no free port after 5 tries")


class _PortTaken(Exception):
    pass


def _wait_ready_keep(server: Server, probe: str, database: str) -> None:
    """Wait for the server; a start that failed because another process took the port is
    _PortTaken (the caller tries another), any other failure a ServerError."""
    deadline = time.monotonic() + START_TIMEOUT
    last = ""
    while time.monotonic() < deadline and server.alive():
        try:
            server.sql(probe, database=database)
            return
        except (ServerError, subprocess.TimeoutExpired) as e:
            last = str(e)
        time.sleep(0.1)
    log = _tail(server.log) if server.log else ""
    server.stop(remove=False)
    if "already in use" in log or "Address in use" in log or "Do you already have" in log:
        raise _PortTaken()
    shutil.rmtree(server.root, ignore_errors=True)
    raise ServerError(f"{server.kind} did not start ({last})\n{log}")


# --- MariaDB ------------------------------------------------------------------------------


def mariadb_bin() -> tuple[str, str, str] | None:
    """(mariadb-install-db, mariadbd, mariadb) or None when MariaDB is not installed."""
    install = shutil.which("mariadb-install-db")
    server = shutil.which("mariadbd") or (
        "/usr/sbin/mariadbd" if os.path.exists("/usr/sbin/mariadbd") else None
    )
    client = shutil.which("mariadb")
    if not (install and server and client):
        return None
    return install, server, client


def start_mariadb(
    root: Path | None = None, user: str = "drill", password: str = "drill-pw", database="drilltest"
) -> Server:
    """A fresh MariaDB server with `database`, on which `user` (password `password`, from any
    host) has every right."""
    found = mariadb_bin()
    if found is None:
        raise ServerError(
            "MariaDB is not installed (make databases: apt-get install mariadb-server)"
        )
    install, mariadbd, client = found
    account = _service_user("mysql")
    root = Path(root or tempfile.mkdtemp(prefix="drillspark-mariadb-"))
    root.chmod(0o755)
    data, run = root / "data", root / "run"
    for d in (data, run):
        d.mkdir(mode=0o700)
        _own(d, account)
    init = subprocess.run(
        [
            install,
            "--no-defaults",
            f"--datadir={data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            "--skip-name-resolve",
            *([f"--user={account.pw_name}"] if account else []),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        **_as(account),
    )
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise ServerError(
            f"mariadb-install-db failed: {init.stderr.strip()[-2000:] or init.stdout[-2000:]}"
        )
    sock = run / "mysqld.sock"
    for _attempt in range(5):
        port = free_port()
        log = root / "mariadb.log"
        log.touch()
        _own(log, account)
        server = Server("mariadb", port, root, user, password, database, log=log)
        server.client = [client, "--no-defaults", "-S", str(sock), "-u", "root", "-N", "-B"]
        server.process = subprocess.Popen(
            [
                mariadbd,
                "--no-defaults",
                f"--datadir={data}",
                f"--socket={sock}",
                f"--port={port}",
                "--bind-address=127.0.0.1",
                f"--pid-file={run / 'mariadbd.pid'}",
                f"--log-error={log}",
                "--skip-log-bin",
                "--skip-name-resolve",
                "--innodb-buffer-pool-size=64M",
                "--innodb-flush-log-at-trx-commit=0",
                "--innodb-doublewrite=0",
                "--performance-schema=OFF",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
                "--default-time-zone=+00:00",
                "--max-connections=60",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            **_as(account),
        )
        try:
            _wait_ready_keep(server, "SELECT 1;", "")
        except _PortTaken:
            continue
        server.sql(
            f"CREATE DATABASE {database} CHARACTER SET utf8mb4;\n"
            f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}';\n"
            f"GRANT ALL PRIVILEGES ON *.* TO '{user}'@'%';\n",
            database="",
        )
        return server
    shutil.rmtree(root, ignore_errors=True)
    raise ServerError("MariaDB: no free port after 5 tries")


STARTERS = {"postgresql": start_postgresql, "mariadb": start_mariadb}


def missing(kind: str) -> str | None:
    """Why a server of `kind` cannot be started here, or None."""
    if kind == "postgresql":
        return None if postgresql_bin() else "PostgreSQL is not installed (make databases)"
    return None if mariadb_bin() else "MariaDB is not installed (make databases)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--postgresql", action="store_true")
    ap.add_argument("--mariadb", action="store_true")
    ap.add_argument("--sql-postgresql", type=Path, help="SQL run in the test database")
    ap.add_argument("--sql-mariadb", type=Path, help="SQL run in the test database")
    args = ap.parse_args(argv)
    kinds = [k for k in ("postgresql", "mariadb") if getattr(args, k)] or list(STARTERS)
    servers: list[Server] = []
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1) or sys.exit(0))
    try:
        for kind in kinds:
            t0 = time.monotonic()
            server = STARTERS[kind]()
            servers.append(server)
            setup = getattr(args, f"sql_{kind}")
            if setup:
                server.sql(setup.read_text())
            print(
                json.dumps({**server.describe(), "seconds": round(time.monotonic() - t0, 2)}),
                flush=True,
            )
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    except ServerError as e:
        print(f"db_servers: {e}", file=sys.stderr)
        return 1
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
