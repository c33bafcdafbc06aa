"""Plain-HTTP helper of the server tests."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

PASSWORDS = {"alice": "wonderland-42", "bob": "builder-7"}


def write_users(folder: Any) -> str:
    """The tests' users file in `folder`: alice an admin, bob a user, with PASSWORDS'."""
    from drillspark.server.auth import add_user

    path = str(folder / "users")
    add_user(path, "alice", PASSWORDS["alice"], "admin")
    add_user(path, "bob", PASSWORDS["bob"], "user")
    return path


class Http:
    """A plain HTTP client (urllib) that keeps its own cookies when asked to."""

    def __init__(self, base: str, cookies: bool = False):
        self.base = base
        self.cookie: str | None = None
        self.keep = cookies

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = self.cookie
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                status, hdrs, data = r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            status, hdrs, data = e.code, dict(e.headers), e.read()
        cookie = hdrs.get("Set-Cookie")
        if self.keep and cookie:
            self.cookie = cookie.split(";")[0]
        return status, hdrs, data

    def get(self, path: str, **kw: Any) -> tuple[int, dict[str, str], bytes]:
        return self.request("GET", path, **kw)

    def get_json(self, path: str) -> Any:
        status, _, data = self.get(path)
        assert status == 200, data
        return json.loads(data)

    def query_raw(self, sql: str, **fields: Any) -> tuple[int, dict[str, str], bytes]:
        body = json.dumps({"queryType": "SQL", "query": sql, **fields}).encode()
        return self.request("POST", "/query.json", body, {"Content-Type": "application/json"})

    def query(self, sql: str, **fields: Any) -> dict[str, Any]:
        status, _, data = self.query_raw(sql, **fields)
        assert status == 200, data
        return json.loads(data)

    def running_id(self, sql: str, alive: Callable[[], bool]) -> str | None:
        """The id of `sql` once the server lists it among its running queries; None when
        `alive()` (whoever sent it) turns false first."""
        while alive():
            running = self.get_json("/profiles.json")["runningQueries"]
            found = next((q["queryId"] for q in running if q["query"] == sql[:150]), None)
            if found is not None:
                return found
            time.sleep(0.2)
        return None

    def start(self, sql: str) -> tuple[threading.Thread, dict[str, Any], str | None]:
        """Send `sql` from a thread; (the thread, the answer it fills in, the query's id once
        the server runs it)."""
        answer: dict[str, Any] = {}
        worker = threading.Thread(target=lambda: answer.update(self.query(sql)))
        worker.start()
        return worker, answer, self.running_id(sql, worker.is_alive)


def chromium(*flags: str, downloads: str | None = None) -> Any:
    """A headless chromium (Debian's chromium and chromedriver) for the console's browser
    tests; `flags` add to the usual ones, `downloads` is where it saves files."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,900",
        *flags,
    ):
        options.add_argument(flag)
    if downloads is not None:
        options.add_experimental_option(
            "prefs",
            {"download.default_directory": downloads, "download.prompt_for_download": False},
        )
    driver = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options
    )
    if downloads is not None:
        driver.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads}
        )
    driver.set_page_load_timeout(60)
    return driver


def wait(driver: Any, condition: Callable[[Any], Any], seconds: float = 180) -> Any:
    """Wait for a selenium `condition`, polling through the moment a form post or link
    replaces the page: an element looked up in the old document then goes stale, or
    chromium answers "Node with given id does not belong to the document". Those are
    asked again; any other browser error, or the condition never holding, fails."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def polled(browser: Any) -> Any:
        try:
            return condition(browser)
        except StaleElementReferenceException:
            return False
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return False
            raise

    return WebDriverWait(driver, seconds).until(polled)
