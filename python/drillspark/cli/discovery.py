"""How `drillspark sql` and `drillspark shell` find a local `drillspark serve`: the server
writes a small file (its URL, pid, workspaces, whether it needs a login) in a per-user runtime
folder and removes it when it stops; the CLI reads the files, skipping any whose process is
gone or that another user could have written."""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Tests (and anyone who wants separate sets of servers) point this elsewhere.
RUNTIME_DIR_ENV = "DRILLSPARK_RUNTIME_DIR"
PREFIX = "serve-"


def runtime_dir() -> Path:
    """$DRILLSPARK_RUNTIME_DIR, else $XDG_RUNTIME_DIR/drillspark, else ~/.cache/drillspark."""
    override = os.environ.get(RUNTIME_DIR_ENV)
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isdir(xdg):
        return Path(xdg) / "drillspark"
    return Path.home() / ".cache" / "drillspark"


@dataclass
class LocalServer:
    url: str
    pid: int
    workspaces: dict[str, str]
    auth: bool
    path: Path


def client_url(host: str, port: int) -> str:
    """The URL a client on this machine uses: a wildcard address is reached on loopback."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def publish(url: str, workspaces: dict[str, str], auth: bool) -> Path:
    """Write this process's server file (mode 0600 in a 0700 folder); returns its path."""
    folder = runtime_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{PREFIX}{os.getpid()}.json"
    tmp = path.with_suffix(".tmp")
    data = json.dumps(
        {
            "url": url,
            "pid": os.getpid(),
            "workspaces": workspaces,
            "auth": auth,
            "started": int(time.time()),
        },
        indent=1,
    )
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(data)
    os.replace(tmp, path)  # a reader never sees half a file
    return path


def withdraw(path: Path) -> None:
    path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: not our server
        return False
    return True


def _trusted(st: os.stat_result) -> bool:
    """Ours, and not writable by anyone else."""
    return st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def local_servers() -> list[LocalServer]:
    """The servers whose files are in the runtime folder and whose process runs, newest
    first; files of dead processes are removed."""
    folder = runtime_dir()
    try:
        if not _trusted(folder.stat()):
            return []
        names = sorted(folder.glob(f"{PREFIX}*.json"))
    except OSError:
        return []
    found: list[tuple[float, LocalServer]] = []
    for path in names:
        try:
            st = path.stat()
            if not _trusted(st):
                continue
            data: Any = json.loads(path.read_text())
            server = LocalServer(
                str(data["url"]),
                int(data["pid"]),
                {str(k): str(v) for k, v in data["workspaces"].items()},
                bool(data["auth"]),
                path,
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # being written, or not ours to read
        if not _alive(server.pid):
            withdraw(path)  # the server died without cleaning up
            continue
        found.append((st.st_mtime, server))
    return [s for _, s in sorted(found, key=lambda item: -item[0])]
