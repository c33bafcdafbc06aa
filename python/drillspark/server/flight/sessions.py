"""Who calls, and in which session: Flight's basic-auth / bearer-token handshake over the
server's users file and its session store (the same sessions a REST client's cookie keeps).

A call with `authorization: Basic ...` (ADBC's and the Flight SQL JDBC driver's first call, the
Handshake) is checked against the users file and opens a session, whose token goes back as
`authorization: Bearer TOKEN`; the client sends it on its next calls. The token also goes back
as a cookie, for clients that keep cookies rather than tokens. Without users (authentication
off) a call without a token gets a fresh anonymous session and its token, kept once it holds
something (USE, ALTER SESSION, a temporary table); a token is never replaced, so a client that
read it from any call keeps one session. A password never appears in an error or log
line: a refusal names only the user."""

from __future__ import annotations

import logging
import re
from typing import Any

import pyarrow.flight as flight

from drillspark.server.auth import HttpSession

log = logging.getLogger("drillspark.server")

COOKIE = "drillspark-flight"
MIDDLEWARE = "session"
_TOKEN = re.compile(
    r"[A-Za-z0-9_-]{16,64}"
)  # as SessionStore.new makes them  # the key handlers find the call's middleware under


def _all(headers: dict[str, list[Any]], name: str) -> list[str]:
    out = []
    for key, values in headers.items():
        if key.lower() == name:
            out += [v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in values]
    return out


def _tokens(headers: dict[str, list[Any]]) -> list[str]:
    """The session tokens a call carries, newest first: a client may send the one it had and
    the one it was just given (bearer headers), or keep it as a cookie."""
    found = []
    for header in reversed(_all(headers, "authorization")):
        scheme, _, token = header.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            found.append(token.strip())
    for header in _all(headers, "cookie"):
        for part in header.split(";"):
            key, _, value = part.strip().partition("=")
            if key == COOKIE and value:
                found.append(value)
    return found


class CallSession(flight.ServerMiddleware):
    """The session of one call, and the token to hand back."""

    def __init__(self, store: Any, session: HttpSession, fresh: bool, held: bool = False):
        self.store = store
        self.session = session
        self.fresh = fresh  # its token is new to the client: sent back
        # a kept session this call holds (SessionStore.get(hold=True)): not idle while it runs
        self.held = held

    @property
    def user(self) -> str:
        return self.session.user or "anonymous"

    def sending_headers(self) -> dict[str, str]:
        if not self.fresh:
            return {}
        return {
            "authorization": f"Bearer {self.session.id}",
            "set-cookie": f"{COOKIE}={self.session.id}; HttpOnly",
        }

    def call_completed(self, exception: Any) -> None:
        if self.held:  # its idle time starts now
            self.store.release(self.session)
        # an anonymous session is kept once a later call needs it (as a REST client's)
        if self.session.holds_state and self.store.get(self.session.id) is None:
            self.store.add(self.session)


class Sessions(flight.ServerMiddlewareFactory):
    """Starts each call in its session, or refuses it (FlightUnauthenticatedError)."""

    def __init__(self, app: Any):
        self.app = app

    def start_call(self, info: Any, headers: dict[str, list[Any]]) -> CallSession:
        store = self.app.sessions
        basic = [h for h in _all(headers, "authorization") if h[:6].lower() == "basic "]
        if basic:
            encoded = basic[-1][6:].strip()
            # ADBC's Go client writes base64 without its `=` padding
            encoded += "=" * (-len(encoded) % 4)
            user = self.app.basic_user(f"Basic {encoded}")
            if user is None:
                raise flight.FlightUnauthenticatedError(
                    "Flight SQL login refused: wrong user name or password"
                )
            s = store.new(f"user:{user.name}")
            s.user, s.admin = user.name, user.admin or not self.app.auth.enabled
            store.add(s)
            held = store.get(s.id, hold=True) is s
            return CallSession(store, s, fresh=True, held=held)
        tokens = _tokens(headers)
        for candidate in tokens:
            found = store.get(candidate, hold=True)
            if found is None:
                continue
            if found.user is not None or not self.app.auth.enabled:
                return CallSession(store, found, fresh=False, held=True)
            store.release(found)
        token: str | None = tokens[0] if tokens else None
        if self.app.auth.enabled:
            if token:
                log.warning("Flight SQL call with an unknown or expired token refused")
                raise flight.FlightUnauthenticatedError(
                    "the session token is unknown or has expired: log in again"
                )
            raise flight.FlightUnauthenticatedError(
                "this server needs a user name and password (Flight's basic authentication)"
            )
        s = store.new("flight:anonymous")
        s.admin = True  # as REST and the native protocol without users
        if token and _TOKEN.fullmatch(token):
            # a token handed out before, whose session kept nothing: the same token again, so
            # that a client holds one token whatever call it read it from
            s.id = token
            return CallSession(store, s, fresh=False)
        return CallSession(store, s, fresh=True)


class Handshake(flight.ServerAuthHandler):
    """Flight's Handshake call: the Basic header was checked by Sessions as the call began
    (and the Bearer token rides on its answer); the handshake itself exchanges nothing."""

    def authenticate(self, outgoing: Any, incoming: Any) -> None:
        return None

    def is_valid(self, token: bytes) -> str:
        return ""  # every call is checked by Sessions, by its headers


def call_session(context: Any) -> CallSession:
    middleware = context.get_middleware(MIDDLEWARE)
    if middleware is None:  # cannot happen: every call passes the factory
        raise flight.FlightUnauthenticatedError("no session")
    return middleware  # type: ignore[no-any-return]


__all__ = ["COOKIE", "MIDDLEWARE", "CallSession", "Handshake", "Sessions", "call_session"]
