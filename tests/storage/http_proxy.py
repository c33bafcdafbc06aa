"""A small real forwarding HTTP proxy for the `http` plugin's proxy tests: Python's http.server
on a free loopback port (in a thread of the test), taking absolute-URI requests (`GET
http://host:port/path`), checking Basic `Proxy-Authorization` when it has credentials (407
otherwise), forwarding to the origin with http.client and relaying its answer. Each request is
recorded (method, URL, whether its credentials were right), never the credentials."""

from __future__ import annotations

import base64
import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class Proxy:
    def __init__(self, user: str | None = None, password: str | None = None):
        self.seen: list[tuple[str, str, bool]] = []
        expected = None
        if user is not None:
            expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def _forward(self) -> None:
                ok = expected is None or self.headers.get("Proxy-Authorization") == expected
                proxy.seen.append((self.command, self.path, ok))
                if not ok:
                    self.send_response(407)
                    self.send_header("Proxy-Authenticate", 'Basic realm="test proxy"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                url = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("proxy-authorization", "proxy-connection", "connection")
                }
                origin = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=10)
                try:
                    target = url.path + (f"?{url.query}" if url.query else "")
                    origin.request(self.command, target, body=body, headers=headers)
                    answer = origin.getresponse()
                    data = answer.read()
                    self.send_response(answer.status)
                    for k, v in answer.getheaders():
                        if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    origin.close()

            do_GET = _forward  # noqa: N815 - http.server's names
            do_POST = _forward  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
