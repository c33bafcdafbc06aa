"""A small real HTTP API for the `http` plugin's tests (and for asking Drill 1.22 the same
questions): Python's http.server on a loopback port, serving JSON pages, pagination by page and
by offset (and a paginator that never ends), query parameters echoed back, basic auth, a
malformed page, a 500, a slow page and a redirect; CSV and XML pages, keyset pages (the next
index or URL in the answer), pages linked by a response header, a limit parameter, POSTs
echoing their body and content type, and answers with HTTP caching headers (max-age, no-store,
an ETag revalidated with 304, one whose 304 names its Cache-Control in lower case).
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
# a header with a padded name, padded and quoted values, empty fields, a blank line
CSV = b'id,name,city , note\n1, alpha ,Paris,"a, b"\n2,beta,,\n\n3,"gamma ""g""",Oslo,x\n'
SEMI = b"k;v\nx;1\ny;NA\n"
BOOKS = """<?xml version="1.0" encoding="UTF-8"?>
<library>
  <book id="b1">
    <title>Dune</title>
    <author>Frank Herbert</author>
    <year>1965</year>
    <price currency="USD">9.99</price>
  </book>
  <book id="b2">
    <title>Solaris</title>
    <author>Stanis\u0142aw Lem</author>
    <year>1961</year>
    <price currency="EUR">12.50</price>
  </book>
</library>
""".encode()
BROKEN_XML = b"<library>\n  <book><title>Dune</title>\n  <book>\n</library>\n"


class Api(BaseHTTPRequestHandler):
    log_file = ""
    served = 0

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
        if self.path.startswith("/postecho"):
            kind = (self.headers.get("Content-Type") or "").split(";")[0]
            self._json({"results": [{"path": self.path, "body": body, "type": kind}]})
            return
        self._json({"results": [{"method": "POST", "body": body}]})

    def _here(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

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
        elif path.startswith("/orgs/"):  # a URL parameter's place: the path asked, echoed
            self._json({"results": [{"path": self.path, "n": 1}, {"path": self.path, "n": 2}]})
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
        elif path == "/data.csv":
            self._send(200, CSV, "text/csv")
        elif path == "/semi.csv":
            self._send(200, SEMI, "text/csv")
        elif path == "/pages.csv":
            page, size = int(query.get("page", 1)), int(query.get("per_page", 10))
            rows = ROWS[(page - 1) * size : page * size]
            text = "n,word\n" + "".join(f"{r['n']},{r['word']}\n" for r in rows)
            self._send(200, text.encode(), "text/csv")
        elif path == "/books.xml":
            self._send(200, BOOKS, "application/xml")
        elif path == "/broken.xml":
            self._send(200, BROKEN_XML, "application/xml")
        elif path == "/keyset":
            # the next page's index is in the answer (`cursor`), asked back as ?cursor=
            at = int(query.get("cursor", "c0")[1:])
            more = at + 2 < len(ROWS)
            self._json({"results": ROWS[at : at + 2], "has_more": more, "cursor": f"c{at + 2}"})
        elif path == "/keyurl":
            # the next page's whole URL is in the answer; the last page has none
            at = int(query.get("at", 0))
            answer: dict[str, object] = {"results": ROWS[at : at + 2]}
            if at + 2 < len(ROWS):
                answer["next"] = f"{self._here()}/keyurl?at={at + 2}"
            self._json(answer)
        elif path == "/keyfirst":
            # as /keyset, the paging fields before the records
            at = int(query.get("cursor", "c0")[1:])
            more = at + 2 < len(ROWS)
            self._json({"has_more": more, "cursor": f"c{at + 2}", "results": ROWS[at : at + 2]})
        elif path == "/keyurlfirst":
            at = int(query.get("at", 0))
            first: dict[str, object] = {}
            if at + 2 < len(ROWS):
                first["next"] = f"{self._here()}/keyurlfirst?at={at + 2}"
            self._json({**first, "results": ROWS[at : at + 2]})
        elif path == "/keyloopfirst":
            self._json({"has_more": True, "cursor": "same", "results": [{"n": 1}, {"n": 2}]})
        elif path == "/keyevil":
            # a next page on another host, in the answer and in a header
            body = json.dumps({"next": "http://localhost:1/x", "results": ROWS[:2]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Next-Page", "http://localhost:1/x")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/keyloop":
            self._json({"results": [{"n": 1}, {"n": 2}], "has_more": True, "cursor": "same"})
        elif path == "/linked":
            # the next page's URL in response headers: Link (rel="next") and X-Next-Page
            at = int(query.get("at", 0))
            body = json.dumps({"results": ROWS[at : at + 2]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if at + 2 < len(ROWS):
                nxt = f"{self._here()}/linked?at={at + 2}"
                links = [f'<{nxt}>; rel="next"', f'<{self._here()}/linked>; rel="first"']
                if query.get("order") == "first":  # the next page's link is not the first
                    links = [
                        f'<{self._here()}/linked>; rel="first"',
                        f'<{nxt}&order=first>; rel="next"',
                    ]
                self.send_header("Link", ", ".join(links))
                self.send_header("X-Next-Page", nxt)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/limited":
            n = int(query["max"]) if "max" in query else len(ROWS)
            self._json({"results": ROWS[:n]})
        elif path == "/sent.json":
            # the request's headers a client adds unasked (the JDK's Accept, no-cache)
            names = ("Accept", "Cache-Control", "Pragma")
            self._json({"results": [{n: self.headers.get(n) for n in names}]})
        elif path == "/headers.json":
            self._json({"results": [{"key": self.headers.get("X-Api-Key")}]})
        elif path in ("/cached.json", "/nostore.json"):
            # which request this is (a cached answer repeats an old number)
            Api.served += 1
            body = json.dumps({"results": [{"served": Api.served}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            control = "max-age=300" if path == "/cached.json" else "no-store"
            self.send_header("Cache-Control", control)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/etag.json":
            # always asked again (no-cache), answered 304 when the client holds version v1
            if self.headers.get("If-None-Match") == '"v1"':
                self._log("304 /etag.json")
                self.send_response(304)
                self.send_header("ETag", '"v1"')
                self.end_headers()
                return
            body = json.dumps({"results": [{"version": 1}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("ETag", '"v1"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/revalidated.json":
            # asked again at once (no-cache); the 304 makes it fresh for 300 s, its field
            # named in lower case as HTTP allows
            if self.headers.get("If-None-Match") == '"v2"':
                self._log("304 /revalidated.json")
                self.send_response(304)
                self.send_header("ETag", '"v2"')
                self.send_header("cache-control", "max-age=300")
                self.end_headers()
                return
            body = json.dumps({"results": [{"version": 2}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("ETag", '"v2"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
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
