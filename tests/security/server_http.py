"""Raw HTTP for the server attack tests: requests exactly as a browser (or an attacker's page
in one) sends them, with the Host, Origin and Sec-Fetch-* headers it chooses; and the headers
of each kind of sender."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any

# What a current browser sends with a request a page on another site triggers: a form posted
# to this server, an <img> pointing at it.
UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
EVIL = "http://evil.example"
CROSS_SITE_FORM = {
    "User-Agent": UA,
    "Origin": EVIL,
    "Referer": EVIL + "/",
    "Sec-Fetch-Site": "cross-site",
    "Sec-Fetch-Mode": "navigate",
    "Sec-Fetch-Dest": "document",
    "Content-Type": "application/x-www-form-urlencoded",
}
CROSS_SITE_IMAGE = {
    "User-Agent": UA,
    "Referer": EVIL + "/",
    "Sec-Fetch-Site": "cross-site",
    "Sec-Fetch-Mode": "no-cors",
    "Sec-Fetch-Dest": "image",
}
# An older browser (before Origin on every POST and before Sec-Fetch-*): only its User-Agent
# says it is a browser; the page may also hide the Referer.
OLD_BROWSER = {"User-Agent": "Mozilla/5.0 (Windows NT 6.1; rv:60.0) Gecko/20100101 Firefox/60.0"}
OLD_BROWSER_FORM = {**OLD_BROWSER, "Content-Type": "application/x-www-form-urlencoded"}


def same_origin(url: str) -> dict[str, str]:
    """A page of the console itself (a form or a fetch)."""
    return {"User-Agent": UA, "Origin": url, "Sec-Fetch-Site": "same-origin"}


def send(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    source: str | None = None,
) -> tuple[int, Any, bytes]:
    """One request on its own connection (from `source`, a loopback address, when given);
    (status, headers, body). A Host header in `headers` replaces http.client's."""
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=300, source_address=(source, 0) if source else None
    )
    try:
        conn.request(method, path, body=body, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        conn.close()


def error(data: bytes) -> str:
    """The errorMessage of a JSON error answer (it fails when the answer is not one)."""
    value = json.loads(data)
    assert isinstance(value, dict) and set(value) == {"errorMessage"}, value
    return str(value["errorMessage"])


def raw(port: int, data: bytes) -> bytes:
    """Bytes on a socket, the whole reply."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply
