"""The server's Logs (#36): Drill's /logs.json, /log/{name}/content.json and
/log/{name}/download, and the console's Logs page, over the lines the server logged while it
ran. Drill 1.22 (server.sh with DRILL_LOG_DIR holding `drillbit.log` = "line one\\nline two"):

    GET /logs.json  -> [{"name": "drillbit.log", "size": "1.0 KB",
                         "lastModified": "12/02/2026 03:36:54"}]
    GET /log/drillbit.log/content.json -> {"name": "drillbit.log",
                         "lines": ["line one", "line two"], "maxLines": 10000}
    GET /log/drillbit.log/download -> 200, text/plain,
                         Content-Disposition: attachment;filename="drillbit.log"
    GET /log/nosuch.log/content.json -> 500 {"errorMessage": "nosuch.log doesn't exist"}

(without DRILL_LOG_DIR Drill answers 500 "DRILL_LOG_DIR variable is not set"). drillspark
writes its log to stderr, so its one log is the recent lines it keeps, `drillspark.log`."""

from __future__ import annotations

import json
import logging
import re
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from tests.server.helpers import PASSWORDS, chromium


def test_logs_list_content_and_download(server, http, caplog):
    caplog.set_level(logging.INFO, logger="drillspark")  # `drillspark serve`'s default level
    marker = "logs-" + uuid.uuid4().hex[:8]
    http.query(f"SELECT '{marker}' AS m FROM (VALUES(1))")  # one line per query, at INFO
    [entry] = http.get_json("/logs.json")
    assert entry["name"] == "drillspark.log"
    assert re.fullmatch(r"\d+\.0 KB", entry["size"])
    assert re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d", entry["lastModified"])
    content = http.get_json("/log/drillspark.log/content.json")
    assert content["name"] == "drillspark.log" and content["maxLines"] == 10000
    assert any(marker in line and "COMPLETED" in line for line in content["lines"])
    status, headers, body = http.get("/log/drillspark.log/download")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert headers["Content-Disposition"] == 'attachment;filename="drillspark.log"'
    assert marker in body.decode()
    status, _, body = http.get("/log/nosuch.log/content.json")
    assert status == 500 and json.loads(body)["errorMessage"] == "nosuch.log doesn't exist"


def test_logs_are_for_admins(auth_server):
    with requests.Session() as s:
        s.post(
            auth_server.url + "/j_security_check",
            data={"j_username": "bob", "j_password": PASSWORDS["bob"]},
        )
        for path in ("/logs.json", "/log/drillspark.log/content.json"):
            assert s.get(auth_server.url + path).status_code == 403
    with requests.Session() as s:
        s.post(
            auth_server.url + "/j_security_check",
            data={"j_username": "alice", "j_password": PASSWORDS["alice"]},
        )
        assert s.get(auth_server.url + "/logs.json").status_code == 200


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def test_logs_page_shows_and_searches_the_log(browser, server, http, caplog):
    caplog.set_level(logging.INFO, logger="drillspark")
    marker = "page-" + uuid.uuid4().hex[:8]
    http.query(f"SELECT '{marker}' AS m FROM (VALUES(1))")
    browser.get(server.url + "/logs")
    box = WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.ID, "log-lines")))
    WebDriverWait(browser, 60).until(lambda d: marker in box.text)
    assert browser.find_element(By.CSS_SELECTOR, "#logs td").text == "drillspark.log"
    browser.find_element(By.ID, "log-search").send_keys(marker)
    WebDriverWait(browser, 30).until(
        lambda d: d.find_element(By.ID, "log-info").text.startswith("1 of ")
    )
    assert [line for line in box.text.splitlines() if line] == [
        line for line in box.text.splitlines() if marker in line
    ]
