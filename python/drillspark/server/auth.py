"""Users and HTTP sessions of `drillspark serve`.

The users file holds one user per line, `name:role:hash` (role `admin` or `user`; `#` starts a
comment), where hash is `scrypt$N$r$p$salt$key` (salt and key in base64): salted, slow to
brute-force, and checked in constant time. `drillspark serve --users FILE --add-user NAME`
writes such a line."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from drillspark.errors import UsageError
from drillspark.sql.temporary import TemporaryTables

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
    the default schema and options that USE / ALTER SESSION set. `owner` is whom the store
    counts it against: `user:NAME` (a login, or HTTP Basic) or `addr:ADDRESS` (anonymous,
    by client address; an IPv6 client by its /64)."""

    id: str
    user: str | None = None
    admin: bool = False
    default_schema: tuple[str, ...] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    touched: float = field(default_factory=time.monotonic)
    # requests of it under way: a session is not idle while one runs (a query longer than
    # the idle limit must not lose its session, and its temporary tables, half way)
    busy: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    owner: str = ""
    # its temporary tables (CREATE TEMPORARY TABLE), removed with it
    temporary: TemporaryTables = field(default_factory=TemporaryTables)
    established: float = field(default_factory=time.time)  # for sys.connections

    @property
    def holds_state(self) -> bool:
        """Whether it keeps anything a later request needs (else it need not be kept)."""
        return (
            self.user is not None
            or self.default_schema is not None
            or bool(self.options)
            or self.temporary.holds_tables
        )


def client_owner(address: str) -> str:
    """The owner of an anonymous session: its client's address (an IPv6 client by its /64,
    which one host usually holds whole; an IPv4-mapped one as IPv4)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "addr:" + address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return "addr:" + str(ip.ipv4_mapped)
        return "addr:" + str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return "addr:" + str(ip)


def _is_user(owner: str) -> bool:
    return owner.startswith("user:")


class SessionStore:
    """HTTP sessions by cookie value.

    A session is dropped after `idle` seconds without a request, counted from the end of its
    last one (never while one runs; Drill's
    drill.exec.http.session_max_idle_secs is 3600): the least recently used are swept at every
    change and count. Each owner (a user, or an anonymous client address) holds at most
    `per_owner`; a new one past that evicts the same owner's least recently used. Anonymous
    sessions number at most `limit` in all; past that, a new one evicts the least recently
    used session of the address holding the most. A logged-in user's sessions are never
    evicted by anyone else's requests (they are bounded by the users file times
    `per_owner`).

    The store also words the CSRF tokens of the console's pages: an HMAC under a secret of
    this process of whom the page is for (a user, or an anonymous client address), so a
    token is that one's, never guessable from outside, and the same in every page it
    loads."""

    def __init__(self, idle: float = 3600.0, limit: int = 10_000, per_owner: int = 100):
        self.idle = idle
        self.limit = limit
        self.per_owner = per_owner
        self._sessions: OrderedDict[str, HttpSession] = OrderedDict()  # least recent first
        self._owned: dict[str, OrderedDict[str, None]] = {}
        self._anonymous = 0
        self._lock = threading.Lock()
        self._secret = secrets.token_bytes(32)

    def get(self, sid: str | None, hold: bool = False) -> HttpSession | None:
        """The session `sid`, touched; `hold` marks a request of it under way until
        `release` (the sweep leaves it alone meanwhile)."""
        if not sid:
            return None
        now = time.monotonic()
        with self._lock:
            s = self._sessions.get(sid)
            if s is None:
                return None
            if now - s.touched > self.idle and not s.busy:
                self._remove(sid)
                return None
            self._touch(s, now)
            if hold:
                s.busy += 1
            return s

    def release(self, s: HttpSession, held: bool = True) -> None:
        """A request of `s` ended (`held`: it was taken with `get(..., hold=True)`): its idle
        time counts from now."""
        with self._lock:
            if held:
                s.busy = max(0, s.busy - 1)
            if s.id in self._sessions:
                self._touch(s, time.monotonic())

    def new(self, owner: str) -> HttpSession:
        """A session not yet kept: `add` keeps it once it holds something."""
        return HttpSession(secrets.token_urlsafe(24), owner=owner)

    def add(self, s: HttpSession) -> None:
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            mine = self._owned.setdefault(s.owner, OrderedDict())
            while len(mine) >= max(1, self.per_owner):
                self._remove(next(iter(mine)))
            if not _is_user(s.owner):
                while self._anonymous >= max(1, self.limit):
                    self._remove(self._victim())
                self._anonymous += 1
            s.touched = now
            self._sessions[s.id] = s
            self._owned.setdefault(s.owner, mine)[s.id] = None

    def create(self, owner: str = "") -> HttpSession:
        s = self.new(owner)
        self.add(s)
        return s

    def drop(self, sid: str) -> None:
        with self._lock:
            self._remove(sid)

    def csrf_token(self, who: str) -> str:
        """The CSRF token of `who` (a user, or an anonymous client address)."""
        digest = hmac.new(self._secret, who.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def __len__(self) -> int:
        with self._lock:
            self._expire(time.monotonic())
            return len(self._sessions)

    def kept(self) -> list[HttpSession]:
        """The sessions kept now (sys.connections), least recently used first."""
        with self._lock:
            self._expire(time.monotonic())
            return list(self._sessions.values())

    # callers hold self._lock
    def _remove(self, sid: str) -> None:
        s = self._sessions.pop(sid, None)
        if s is None:
            return
        s.temporary.drop_all()  # the session's temporary tables end with it, as in Drill
        mine = self._owned.get(s.owner)
        if mine is not None:
            mine.pop(sid, None)
            if not mine:
                del self._owned[s.owner]
        if not _is_user(s.owner):
            self._anonymous -= 1

    def _touch(self, s: HttpSession, now: float) -> None:
        s.touched = now
        self._sessions.move_to_end(s.id)
        self._owned[s.owner].move_to_end(s.id)

    def _expire(self, now: float) -> None:
        idle = []  # least recently used first: up to the first session still fresh
        for sid, s in self._sessions.items():
            if now - s.touched <= self.idle:
                break
            if not s.busy:
                idle.append(sid)
        for sid in idle:
            self._remove(sid)

    def _victim(self) -> str:
        """The least recently used session of the anonymous owner holding the most."""
        owners = [(len(m), o) for o, m in self._owned.items() if not _is_user(o)]
        _, owner = max(owners, key=lambda pair: pair[0])
        return next(iter(self._owned[owner]))


_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if c in _ESCAPES:
        return _ESCAPES[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def log_text(value: object) -> str:
    """Client-given text (a user name, SQL, a path, a header) made safe for one log line:
    control characters (newline, carriage return, ESC sequences that rewrite a terminal,
    NEL), the Unicode line and paragraph separators and the bidirectional overrides are
    written as escapes (`\\n`, `\\x1b`, `\\u2028`), so a client cannot start a log line of
    its own or disguise one. Everything else is left as it is."""
    return _UNSAFE.sub(_escape, str(value))
