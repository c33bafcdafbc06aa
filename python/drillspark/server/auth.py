"""Users and HTTP sessions of `drillspark serve`.

The users file holds one user per line, `name:role:hash` (role `admin` or `user`; `#` starts a
comment), where hash is `scrypt$N$r$p$salt$key` (salt and key in base64): salted, slow to
brute-force, and checked in constant time. `drillspark serve --users FILE --add-user NAME`
writes such a line."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from drillspark.errors import UsageError

_N, _R, _P = 2**14, 8, 1  # scrypt cost: ~16 MB and tens of ms per check
ROLES = ("admin", "user")


class UsersFileError(UsageError, ValueError):
    pass


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else os.urandom(16)
    key = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${_N}${_R}${_P}${b64(salt).decode()}${b64(key).decode()}"


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, key = stored.split("$")
        if kind != "scrypt":
            return False
        expected = base64.b64decode(key)
        got = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


@dataclass(frozen=True)
class User:
    name: str
    role: str
    hash: str

    @property
    def admin(self) -> bool:
        return self.role == "admin"


def read_users(path: str) -> dict[str, User]:
    users: dict[str, User] = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise UsersFileError(f"cannot read the users file {path}: {e.strerror}") from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split(":")
        if len(parts) != 3 or parts[1] not in ROLES or not parts[2].startswith("scrypt$"):
            raise UsersFileError(
                f"{path}:{number}: expected name:role:scrypt$... with role admin or user"
            )
        users[parts[0]] = User(parts[0], parts[1], parts[2])
    if not users:
        raise UsersFileError(f"{path}: no users")
    return users


def add_user(path: str, name: str, password: str, role: str = "user") -> None:
    """Add or replace `name` in the users file (created when missing, mode 0600)."""
    if not name or ":" in name or "#" in name or name != name.strip():
        raise UsersFileError(f"invalid user name {name!r}")
    if role not in ROLES:
        raise UsersFileError(f"role must be one of {', '.join(ROLES)}")
    lines: list[str] = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            lines = [
                ln
                for ln in f.read().splitlines()
                if ln.split("#", 1)[0].strip().split(":")[0] != name
            ]
    lines.append(f"{name}:{role}:{hash_password(password)}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


class Authenticator:
    """Checks names and passwords against the users file (None: authentication off)."""

    def __init__(self, users: dict[str, User] | None):
        self.users = users
        # a fixed hash to check unknown names against, so they take as long as known ones
        self._dummy = hash_password(secrets.token_hex(8))

    @property
    def enabled(self) -> bool:
        return self.users is not None

    def check(self, name: str, password: str) -> User | None:
        assert self.users is not None
        user = self.users.get(name)
        ok = check_password(password, user.hash if user else self._dummy)
        return user if ok and user is not None else None


@dataclass
class HttpSession:
    """What one HTTP client (its JSESSIONID cookie) keeps between requests: its login, and
    the default schema and options that USE / ALTER SESSION set."""

    id: str
    user: str | None = None
    admin: bool = False
    default_schema: tuple[str, ...] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    touched: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)


class SessionStore:
    """HTTP sessions by cookie value, dropped after `idle` seconds without a request (Drill's
    drill.exec.http.session_max_idle_secs is 3600) and, oldest first, beyond `limit`."""

    def __init__(self, idle: float = 3600.0, limit: int = 10_000):
        self.idle = idle
        self.limit = limit
        self._sessions: OrderedDict[str, HttpSession] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sid: str | None) -> HttpSession | None:
        if not sid:
            return None
        now = time.monotonic()
        with self._lock:
            s = self._sessions.get(sid)
            if s is None:
                return None
            if now - s.touched > self.idle:
                del self._sessions[sid]
                return None
            s.touched = now
            self._sessions.move_to_end(sid)
            return s

    def create(self) -> HttpSession:
        s = HttpSession(secrets.token_urlsafe(24))
        with self._lock:
            self._sessions[s.id] = s
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
        return s

    def drop(self, sid: str) -> None:
        with self._lock:
            self._sessions.pop(sid, None)

    def __len__(self) -> int:
        return len(self._sessions)
