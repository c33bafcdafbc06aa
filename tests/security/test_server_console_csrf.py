"""The browser attacks of issue #38 in a real browser (headless chromium through selenium, as
tests/server/test_server_console.py): a page on another site (served on `localhost`, a
different site from the server's `127.0.0.1`) embeds an <img> that disables `dfs` and posts a
hidden form that sets a system option; a name an attacker controls (`evil.example`, made to
resolve to 127.0.0.1 as DNS rebinding does) reads the server. Both are refused and change
nothing. The console's own forms and buttons keep working under the same checks."""

from __future__ import annotations

import http.server
import threading

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select
from tests.server.helpers import Http, chromium, wait

OPTION = "store.json.all_text_mode"


@pytest.fixture(scope="module")
def browser():
    # evil.example resolves to this machine, as a rebinding DNS server makes it
    driver = chromium("--host-resolver-rules=MAP evil.example 127.0.0.1")
    yield driver
    driver.quit()


def _state(server) -> tuple[object, bool]:
    http = Http(server.url)
    option = next(o for o in http.get_json("/options.json") if o["name"] == OPTION)["value"]
    return option, http.get_json("/storage/dfs.json")["config"].get("enabled") is True


def _restore(server) -> None:
    http = Http(server.url)
    http.request("POST", "/storage/dfs/enable/true", b"", {"Content-Type": "application/json"})
    http.request(
        "POST", f"/option/{OPTION}", b'{"value": "false"}', {"Content-Type": "application/json"}
    )


@pytest.fixture
def attacker(server):
    """A web site of the attacker's (on localhost: another site than 127.0.0.1) whose page
    fires an <img> at the enable path and posts a form at the option path, into a hidden
    frame, then titles itself `done`."""
    target = server.url
    page = f"""<!DOCTYPE html><html><head><title>cats</title></head><body>
<iframe name="sink" id="sink" style="display:none"></iframe>
<form id="f" method="POST" action="{target}/option/{OPTION}" target="sink">
<input name="value" value="true"><input name="kind" value="BOOLEAN"></form>
<script>
let left = 2;
function one() {{ if (--left === 0) document.title = "done"; }}
document.getElementById("sink").addEventListener("load", one);
const img = new Image(); img.onload = one; img.onerror = one;
img.src = "{target}/storage/dfs/enable/false";
document.getElementById("f").submit();
</script></body></html>""".encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, format: str, *args: object) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{site.server_address[1]}/"
    site.shutdown()
    site.server_close()


def test_a_page_on_another_site_changes_nothing(browser, server, attacker):
    try:
        assert _state(server) == (False, True)
        browser.get(attacker)
        wait(browser, EC.title_is("done"))
        assert _state(server) == (False, True)  # before: (True, False)
    finally:
        _restore(server)


def test_dns_rebinding_reads_nothing(browser, server):
    for path in ("/storage/dfs.json", "/", "/options.json"):
        browser.get(f"http://evil.example:{server.port}{path}")
        body = wait(browser, EC.presence_of_element_located((By.TAG_NAME, "body"))).text
        assert "does not name this server" in body, body  # before: the page, the config
        assert "workspaces" not in body and "drillspark" not in browser.title


def test_the_console_forms_and_buttons_still_work(browser, server):
    try:
        browser.get(server.url + "/options")
        row = wait(browser, EC.presence_of_element_located((By.ID, f"option-{OPTION}")))
        Select(row.find_element(By.NAME, "value")).select_by_visible_text("true")
        row.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(browser, lambda d: _state(server)[0] is True)
        assert browser.current_url.endswith("/options")  # redirected back, as a browser is
        browser.get(server.url + "/storage")
        card = wait(browser, EC.presence_of_element_located((By.ID, "plugin-dfs")))
        card.find_element(By.CSS_SELECTOR, "button.disable").click()
        wait(browser, lambda d: _state(server)[1] is False)
        card = wait(
            browser,
            EC.text_to_be_present_in_element((By.ID, "plugin-dfs"), "disabled"),
        )
        browser.find_element(By.CSS_SELECTOR, "#plugin-dfs button.enable").click()
        wait(browser, lambda d: _state(server)[1] is True)
    finally:
        _restore(server)
