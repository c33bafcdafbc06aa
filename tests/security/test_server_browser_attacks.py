"""A web page the server's user opens in a browser must not be able to use the server (issue
#38): each test sends a request exactly as a browser sends it for an attacker's page — a form
posted cross-site, an <img> pointing at a state-changing GET, a fetch with the page's Origin,
DNS rebinding (the attacker's name resolved to 127.0.0.1, so the browser sends
`Host: evil.example`) — to the real server, and checks it is refused with a JSON error naming
the header, and that nothing changed. The console itself, Drill's clients (pydrill,
sqlalchemy-drill) and curl-like programs keep working."""

from __future__ import annotations

import base64
import json
import re
import urllib.request

import pytest
from pydrill.client import PyDrill
from tests.security.server_http import (
    CROSS_SITE_FORM,
    CROSS_SITE_IMAGE,
    EVIL,
    OLD_BROWSER,
    OLD_BROWSER_FORM,
    UA,
    error,
    same_origin,
    send,
)
from tests.server.helpers import PASSWORDS, Http

from drillspark.server import DrillServer, Limits, handler

OPTION = "store.json.all_text_mode"
NATION = "dfs.data.`breadth/tpch_json/nation.json`"


def _option(server, headers: dict[str, str] | None = None) -> object:
    status, _, data = send(server.port, "GET", "/options.json", headers=headers)
    assert status == 200, data
    return next(o for o in json.loads(data) if o["name"] == OPTION)["value"]


def _dfs_enabled(server) -> bool:
    return Http(server.url).get_json("/storage/dfs.json")["config"].get("enabled") is True


def _restore(server) -> None:
    """Undo what a successful attack did (the test fails anyway)."""
    h = {"Content-Type": "application/json"}
    send(server.port, "GET", "/storage/dfs/enable/true", headers=h)
    send(server.port, "POST", f"/option/{OPTION}", b'{"value": "false"}', h)


# ------------------------------------------------------------------ forms posted cross-site
@pytest.mark.parametrize(
    "headers, names",
    [
        (CROSS_SITE_FORM, "Origin"),
        ({k: v for k, v in CROSS_SITE_FORM.items() if k != "Origin"}, "Sec-Fetch-Site"),
        (OLD_BROWSER_FORM, "csrfToken"),
    ],
    ids=["current-browser", "no-origin", "old-browser"],
)
def test_a_cross_site_form_cannot_set_a_system_option(server, headers, names):
    """<form method=POST action=http://127.0.0.1:8047/option/store.json.all_text_mode> on
    any site, submitted by script: it changed the default of every session."""
    try:
        status, hdrs, data = send(
            server.port, "POST", f"/option/{OPTION}", b"value=true&kind=BOOLEAN", headers
        )
        assert status == 403, data
        assert hdrs["Content-Type"] == "application/json"
        assert names in error(data)
        assert _option(server) is False
    finally:
        _restore(server)


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize(
    "headers, names",
    [(CROSS_SITE_IMAGE, "Sec-Fetch-Site"), (OLD_BROWSER, "X-CSRF-Token")],
    ids=["current-browser", "old-browser"],
)
def test_an_image_on_another_site_cannot_disable_a_plugin(server, method, headers, names):
    """<img src=http://127.0.0.1:8047/storage/dfs/enable/false>: dfs was disabled."""
    try:
        status, _, data = send(server.port, method, "/storage/dfs/enable/false", headers=headers)
        assert status == 403
        if method == "GET":
            assert names in error(data)
        assert _dfs_enabled(server)
    finally:
        _restore(server)


def test_cross_site_requests_cannot_cancel_log_out_or_delete(server):
    for method, path in [
        ("GET", "/profiles/cancel/3f0c6d4e-1a2b-4c5d-8e9f-0a1b2c3d4e5f"),
        ("GET", "/logout"),
        ("DELETE", "/storage/dfs.json"),
    ]:
        status, _, data = send(server.port, method, path, headers=CROSS_SITE_IMAGE)
        assert status == 403, (path, data)
        assert "Sec-Fetch-Site" in error(data)


def test_a_cross_origin_fetch_is_refused_before_it_runs(server):
    """fetch() with the page's Origin: a JSON body needs a CORS preflight the server never
    grants, but the request itself is refused too, before anything runs."""
    marker = "SELECT 'cross-origin-fetch' AS m FROM (VALUES(1))"
    body = json.dumps({"queryType": "SQL", "query": marker}).encode()
    headers = {
        "User-Agent": UA,
        "Origin": EVIL,
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "application/json",
    }
    status, _, data = send(server.port, "POST", "/query.json", body, headers)
    assert status == 403 and "Origin" in error(data)
    # text/plain is what a page may send without a preflight
    plain = {**headers, "Content-Type": "text/plain"}
    status, _, data = send(server.port, "POST", "/query.json", body, plain)
    assert status == 403 and "Origin" in error(data)
    finished = Http(server.url).get_json("/profiles.json")["finishedQueries"]
    assert not any(q["query"] == marker for q in finished)
    status, _, data = send(server.port, "GET", "/profiles.json", headers=headers)
    assert status == 403 and EVIL in error(data)
    # no CORS grant: a preflight gets no Access-Control-Allow-Origin
    status, hdrs, _ = send(
        server.port,
        "OPTIONS",
        "/query.json",
        headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"},
    )
    assert status >= 400 and "Access-Control-Allow-Origin" not in hdrs


def test_login_csrf_is_refused(auth_server):
    """A page that logs the victim's browser in as the attacker (bob), so what the victim
    then does in the console is done as bob and visible to him."""
    form = f"j_username=bob&j_password={PASSWORDS['bob']}".encode()
    for headers in (CROSS_SITE_FORM, OLD_BROWSER_FORM):
        status, hdrs, data = send(auth_server.port, "POST", "/j_security_check", form, headers)
        assert status == 403, data
        assert "Set-Cookie" not in hdrs


# ------------------------------------------------------------------ DNS rebinding
def test_dns_rebinding_cannot_read_or_repoint_a_workspace(server, tmp_path):
    """evil.example first resolves to the attacker's server (its page loads), then to
    127.0.0.1: the page's requests are same-origin for the browser, sent with
    `Host: evil.example:PORT`. Before: it read /storage/dfs.json, pointed a workspace at a
    folder of its choice (/etc) and read the files there."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"s": "rebound"}\n')
    host = f"evil.example:{server.port}"
    headers = {
        "Host": host,
        "User-Agent": UA,
        "Origin": f"http://{host}",
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/json",
    }
    before = Http(server.url).get_json("/storage/dfs.json")
    status, _, data = send(server.port, "GET", "/storage/dfs.json", headers=headers)
    assert status == 421 and "Host" in error(data) and "evil.example" in error(data)
    config = json.loads(json.dumps(before))
    config["config"]["workspaces"]["loot"] = {"location": str(tmp_path), "writable": False}
    try:
        status, _, data = send(
            server.port, "POST", "/storage/dfs.json", json.dumps(config).encode(), headers
        )
        assert status == 421, data
        body = json.dumps({"queryType": "SQL", "query": "SELECT s FROM dfs.loot.`secret.json`"})
        status, _, data = send(server.port, "POST", "/query.json", body.encode(), headers)
        assert status == 421 and b"rebound" not in data
        assert Http(server.url).get_json("/storage/dfs.json") == before
        # even a program's request naming that Host is refused (the check is on the Host)
        status, _, _ = send(server.port, "GET", "/status.json", headers={"Host": host})
        assert status == 421
    finally:
        send(
            server.port,
            "POST",
            "/storage/dfs.json",
            json.dumps(before).encode(),
            {"Content-Type": "application/json"},
        )


def test_the_served_host_names(spark, shared):
    """Loopback binds serve localhost, 127.0.0.1 and [::1]; IP literals cannot be rebound;
    extra names come from Limits.allowed_hosts; a wildcard bind serves any name unless
    allowed_hosts names some."""
    loop = handler.ServedHosts.of("127.0.0.1", ())
    for ok in ("127.0.0.1", "localhost", "LOCALHOST.", "::1", "10.1.2.3"):
        assert loop.accepts(ok), ok
    for bad in ("evil.example", "localhost.evil.example", "127.0.0.1.nip.io"):
        assert not loop.accepts(bad), bad
    assert handler.ServedHosts.of("0.0.0.0", ()).accepts("anything.example")
    named = handler.ServedHosts.of("0.0.0.0", ("drill.example",))
    assert named.accepts("drill.example") and named.accepts("192.168.1.5")
    assert not named.accepts("evil.example")
    assert handler.ServedHosts.of("127.0.0.1", ("*",)).accepts("evil.example")
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(shared / "data")},
        limits=Limits(allowed_hosts=("drill.example",)),
    ).start()
    try:
        status, _, _ = send(
            srv.port, "GET", "/status.json", headers={"Host": f"drill.example:{srv.port}"}
        )
        assert status == 200
        status, _, data = send(srv.port, "GET", "/status.json", headers={"Host": "evil.example"})
        assert status == 421 and "evil.example" in error(data)
        status, _, data = send(srv.port, "GET", "/status.json", headers={"Host": "a b"})
        assert status == 400 and "Host" in error(data)
    finally:
        srv.stop()


def test_pages_cannot_be_framed(server):
    """Clickjacking: another site framing the console under a decoy (its Disable button)."""
    for path in ("/", "/storage", "/options", "/query", "/status.json"):
        _, hdrs, _ = send(server.port, "GET", path)
        assert hdrs["X-Frame-Options"] == "DENY", path
        assert "frame-ancestors 'none'" in hdrs["Content-Security-Policy"], path


# ------------------------------------------------------------------ what keeps working
def _page_token(server, path: str = "/options", source: str | None = None) -> str:
    _, _, page = send(server.port, "GET", path, headers=OLD_BROWSER, source=source)
    m = re.search(rb'<meta name="csrf-token" content="([^"]+)">', page)
    assert m, page[:300]
    return m.group(1).decode()


def test_the_console_and_drills_clients_still_work(server):
    try:
        # the console's own form (a current browser: same-origin Origin)
        status, _, data = send(
            server.port,
            "POST",
            f"/option/{OPTION}",
            b"value=true&kind=BOOLEAN",
            {**same_origin(server.url), "Content-Type": "application/x-www-form-urlencoded"},
        )
        assert status == 200, data
        assert _option(server) is True
        # an old browser: the form carries the page's csrfToken, as Drill's console does
        token = _page_token(server)
        form = f"value=false&kind=BOOLEAN&csrfToken={token}".encode()
        status, _, data = send(server.port, "POST", f"/option/{OPTION}", form, OLD_BROWSER_FORM)
        assert status == 200, data
        assert _option(server) is False
        bad = b"value=true&kind=BOOLEAN&csrfToken=forged"
        status, _, data = send(server.port, "POST", f"/option/{OPTION}", bad, OLD_BROWSER_FORM)
        assert status == 403 and "csrfToken" in error(data)
        # the console's fetch calls send X-CSRF-Token
        headers = {**OLD_BROWSER, "X-CSRF-Token": token}
        status, _, data = send(server.port, "GET", "/storage/dfs/enable/false", headers=headers)
        assert status == 200 and json.loads(data) == {"result": "Success"}
        # Drill 1.22's POST form of enable (JSON)
        status, _, data = send(
            server.port,
            "POST",
            "/storage/dfs/enable/true",
            b"",
            {**same_origin(server.url), "Content-Type": "application/json"},
        )
        assert status == 200 and json.loads(data) == {"result": "Success"}
        assert _dfs_enabled(server)
        status, _, data = send(
            server.port,
            "POST",
            "/storage/dfs/enable/true",
            b"x=1",
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert status == 415, data  # as Drill: the POST form consumes JSON
        # pydrill (GET with Content-Type: application/json) and a plain program (curl)
        drill = PyDrill(host="127.0.0.1", port=server.port)
        assert drill.storage_enable("dfs", False).data == {"result": "Success"}
        with urllib.request.urlopen(server.url + "/storage/dfs/enable/true") as r:
            assert json.loads(r.read()) == {"result": "Success"}
        assert _dfs_enabled(server)
        # a link followed from another site to a page is fine (reading is not changing)
        status, _, _ = send(server.port, "GET", "/profiles", headers=CROSS_SITE_IMAGE)
        assert status == 200
        # the same host under its other loopback names
        for host in ("localhost", "[::1]", "127.0.0.1"):
            status, _, _ = send(
                server.port, "GET", "/status.json", headers={"Host": f"{host}:{server.port}"}
            )
            assert status == 200, host
    finally:
        _restore(server)


def test_every_console_page_carries_the_token(server):
    token = _page_token(server, "/")
    for path in ("/query", "/profiles", "/storage", "/options", "/status"):
        assert _page_token(server, path) == token
    assert Http(server.url).get_json("/session.json")["csrfToken"] == token


def test_a_login_form_carries_its_token(auth_server):
    _, _, page = send(auth_server.port, "GET", "/login", headers=OLD_BROWSER)
    m = re.search(rb'<input type="hidden" name="csrfToken" value="([^"]+)">', page)
    assert m, page
    form = f"j_username=bob&j_password={PASSWORDS['bob']}&csrfToken={m.group(1).decode()}"
    status, hdrs, _ = send(
        auth_server.port, "POST", "/j_security_check", form.encode(), OLD_BROWSER_FORM
    )
    assert status == 303 and hdrs["Location"] == "/" and "JSESSIONID=" in hdrs["Set-Cookie"]


def test_a_token_is_its_own_clients(server, auth_server):
    """A token an attacker reads from a page it loads itself (another address; as another
    user) is not the victim's: an old browser's form carrying it is refused."""
    theirs = _page_token(server, source="127.0.0.2")
    assert theirs != _page_token(server)
    form = f"value=true&kind=BOOLEAN&csrfToken={theirs}".encode()
    status, _, data = send(server.port, "POST", f"/option/{OPTION}", form, OLD_BROWSER_FORM)
    assert status == 403 and "csrfToken" in error(data)
    assert _option(server) is False
    bob = {**OLD_BROWSER, "Authorization": _basic("bob")}
    alice = {**OLD_BROWSER, "Authorization": _basic("alice")}
    _, _, page = send(auth_server.port, "GET", "/options", headers=bob)
    bobs = re.search(rb'name="csrf-token" content="([^"]+)"', page).group(1).decode()
    form = f"value=true&kind=BOOLEAN&csrfToken={bobs}".encode()
    headers = {**alice, "Content-Type": "application/x-www-form-urlencoded"}
    status, _, data = send(auth_server.port, "POST", f"/option/{OPTION}", form, headers)
    assert status == 403 and "csrfToken" in error(data)
    assert _option(auth_server, alice) is False


def _basic(user: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{PASSWORDS[user]}".encode()).decode()
