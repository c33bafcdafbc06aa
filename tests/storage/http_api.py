"""A small real HTTP API for the `http` plugin's tests (and for asking Drill 1.22 the same
questions): Python's http.server on a loopback port, serving JSON pages, pagination by page and
by offset (and a paginator that never ends), query parameters echoed back, basic auth, a
malformed page, a 500, a slow page and a redirect.
Each request's path is appended as a line to the log file, so tests see what was asked.

    python tests/storage/http_api.py PORT_FILE LOG_FILE   # writes its port to PORT_FILE
"""

from __future__ import annotations

import base64
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

USER, PASSWORD = "reader", "s3cret-pw"

API = {
    "status": "ok",
    "results": [
        {"id": 1, "name": "alpha", "tags": ["x", "y"], "score": 1.5},
        {"id": 2, "name": "beta", "tags": [], "score": None, "extra": {"a": 1}},
    ],
}
NESTED = {"meta": {"n": 2}, "data": {"items": [{"k": "a", "v": 10}, {"k": "b", "v": 20}]}}
PLAIN = [{"a": 1}, {"a": 2, "b": "x"}]
ONE = {"a": 1, "b": {"c": 2}}
TYPES = {
    "results": [
        {"i": 9007199254740993, "f": 0.1, "b": True, "s": "x", "arr": [1, 2], "m": {"k": "v"}},
        {"i": 2, "f": 2.5, "b": False, "s": None, "arr": [], "m": {"k": None}},
    ]
}
# five records served two at a time by either paginator
ROWS = [{"n": i, "word": w} for i, w in enumerate(["one", "two", "three", "four", "five"], 1)]
BROKEN = b'{"results": [\n  {"id": 1},\n  {"id": 2,,}\n]}\n'


class Api(BaseHTTPRequestHandler):
    log_file = ""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        pass

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, value: object) -> None:
        self._send(200, json.dumps(value).encode())

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        self._log(f"POST {self.path} {body}")
        self._json({"results": [{"method": "POST", "body": body}]})

    def _log(self, line: str) -> None:
        with open(self.log_file, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._log(f"GET {self.path} key={self.headers.get('X-Api-Key') or ''}")
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        path = url.path
        if path == "/api.json":
            self._json(API)
        elif path == "/nested.json":
            self._json(NESTED)
        elif path == "/plain.json":
            self._json(PLAIN)
        elif path == "/one.json":
            self._json(ONE)
        elif path == "/types.json":
            self._send(200, json.dumps(TYPES).encode())
        elif path == "/search":
            self._json({"results": [{"q": query.get("q"), "lang": query.get("lang"), "n": 1}]})
        elif path == "/pages":
            page, size = int(query.get("page", 1)), int(query.get("per_page", 10))
            self._json({"results": ROWS[(page - 1) * size : page * size]})
        elif path == "/offsets":
            offset, limit = int(query.get("offset", 0)), int(query.get("limit", 10))
            self._json({"results": ROWS[offset : offset + limit]})
        elif path == "/broken.json":
            self._send(200, BROKEN)
        elif path == "/fail":
            self._send(500, b"database on fire", "text/plain")
        elif path == "/slow.json":
            time.sleep(float(query.get("s", 5)))
            self._json(API)
        elif path == "/secure.json":
            expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="api"')
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._json(API)
        elif path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query.get("to", "/api.json"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/endless":
            self._json({"results": [{"page": query.get("page")}, {"page": query.get("page")}]})
        elif path == "/headers.json":
            self._json({"results": [{"key": self.headers.get("X-Api-Key")}]})
        else:
            self._send(404, b'{"error": "no such page"}')


def main() -> None:
    port_file, log_file = sys.argv[1], sys.argv[2]
    Api.log_file = log_file
    server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os

    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
