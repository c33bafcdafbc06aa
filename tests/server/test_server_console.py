"""The web console in a real headless browser (Debian's chromium + chromedriver, selenium):
every page loads, a query runs and pages, an error points at its SQL position, a running
query is cancelled from the profiles page. Screenshots go to $DRILLSPARK_SCREENSHOTS (the
ones in docs/server/ were made so) or the test's temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from tests.server.helpers import Http, chromium, wait

SUPPLIER = "dfs.data.`breadth/tpch_json/supplier.json`"


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("DRILLSPARK_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_query_page_runs_and_pages(browser, server, shots):
    browser.get(server.url + "/query")
    area = wait(browser, EC.presence_of_element_located((By.ID, "sql")))
    area.clear()
    area.send_keys(
        "SELECT N_NATIONKEY, N_NAME, N_REGIONKEY FROM "
        "dfs.data.`breadth/tpch_json/nation.json` a, (VALUES(1),(2),(3)) b(x) "
        "ORDER BY N_NATIONKEY, x"
    )
    browser.find_element(By.ID, "run").click()
    wait(browser, EC.presence_of_element_located((By.ID, "result-table")))
    assert browser.find_element(By.ID, "row-count").text == "75 rows"
    assert browser.find_element(By.ID, "page").text == "page 1 of 2"
    body_rows = browser.find_elements(By.CSS_SELECTOR, "#result-table tbody tr")
    assert len(body_rows) == 50
    assert body_rows[0].find_elements(By.TAG_NAME, "td")[1].text == "ALGERIA"
    browser.save_screenshot(str(shots / "query.png"))
    browser.find_element(By.ID, "next").click()
    assert browser.find_element(By.ID, "page").text == "page 2 of 2"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#result-table tbody tr")) == 25


def test_query_page_places_errors(browser, server, shots):
    browser.get(server.url + "/query")
    area = wait(browser, EC.presence_of_element_located((By.ID, "sql")))
    area.clear()
    area.send_keys(
        "SELECT N_NAME\nFROM dfs.data.`breadth/tpch_json/nation.json`\n"
        "WHERE nosuch_function(N_NAME) = 1"
    )
    browser.find_element(By.ID, "run").click()
    message = wait(browser, EC.presence_of_element_located((By.ID, "error-message")))
    assert "FAILED" in message.text and "line 3" in message.text
    assert message.text.rstrip().endswith("^")  # the caret under the SQL position
    browser.save_screenshot(str(shots / "query-error.png"))


def test_profiles_page_cancels_a_running_query(browser, server, shots):
    http = Http(server.url)
    # every row of the 900^4 cross product is tested: it runs for minutes
    slow = (
        f"SELECT count(*) AS n FROM {SUPPLIER} a, {SUPPLIER} b, {SUPPLIER} c, {SUPPLIER} d "
        "WHERE concat(a.S_COMMENT, b.S_COMMENT, c.S_COMMENT, d.S_COMMENT) "
        "LIKE '%console-cancel%'"
    )
    worker, answer, query_id = http.start(slow)
    assert query_id is not None, answer
    browser.get(server.url + "/profiles")
    # no refresh behind our back (it would replace the button between finding and clicking)
    wait(browser, EC.element_to_be_clickable((By.ID, "auto"))).click()

    def cancel_button(driver):
        found = driver.find_elements(By.CSS_SELECTOR, "#running .cancel")
        if not found:
            driver.find_element(By.ID, "refresh").click()
        return found[0] if found else False

    button = wait(browser, cancel_button)
    browser.save_screenshot(str(shots / "profiles.png"))
    button.click()
    worker.join(timeout=120)
    assert answer["queryState"] == "CANCELED", answer
    browser.get(server.url + "/profiles")
    wait(browser, EC.text_to_be_present_in_element((By.ID, "finished"), "Canceled"))


@pytest.mark.load  # the long tier: 45-66 s of `make test`'s 20 minutes
def test_profile_page_draws_the_plan(browser, server, shots):
    http = Http(server.url)
    done = http.query(
        "SELECT N_REGIONKEY, count(*) AS n FROM "
        "dfs.data.`breadth/tpch_json/nation.json` WHERE N_NATIONKEY > 2 "
        "GROUP BY N_REGIONKEY ORDER BY N_REGIONKEY"
    )
    browser.get(server.url + "/profiles/" + done["queryId"])
    wait(browser, EC.presence_of_element_located((By.ID, "plan-svg")))
    assert browser.find_element(By.ID, "state").text == "Succeeded"
    ops = browser.find_elements(By.CSS_SELECTOR, "#plan-svg g.op")
    assert len(ops) >= 3 and any("scan" in o.text for o in ops)
    assert "GROUP BY N_REGIONKEY" in browser.find_element(By.ID, "sql").text
    browser.set_window_size(1280, 1350)  # the whole plan in the picture
    browser.save_screenshot(str(shots / "profile.png"))
    browser.set_window_size(1280, 900)


def test_storage_and_options_pages(browser, server, shots):
    browser.get(server.url + "/storage")
    card = wait(browser, EC.presence_of_element_located((By.ID, "plugin-dfs")))
    assert "dfs.data" in card.text and "enabled" in card.text
    browser.save_screenshot(str(shots / "storage.png"))
    browser.get(server.url + "/options")
    row = wait(browser, EC.presence_of_element_located((By.ID, "option-store.json.all_text_mode")))
    assert "BOOLEAN" in row.text and "applied" in row.text
    # every option Drill 1.22 lists; those that change nothing here are marked
    other = browser.find_element(By.ID, "option-planner.enable_hashjoin")
    assert "no effect here" in other.text and "Spark" in other.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.options tbody tr")) == 227
    browser.save_screenshot(str(shots / "options.png"))
    browser.get(server.url + "/")
    wait(browser, EC.text_to_be_present_in_element((By.ID, "overview"), "ONLINE"))
    browser.save_screenshot(str(shots / "overview.png"))


def test_login_page(browser, auth_server, shots):
    browser.get(auth_server.url + "/query")
    form = wait(browser, EC.presence_of_element_located((By.NAME, "j_username")))
    form.send_keys("alice")
    browser.find_element(By.NAME, "j_password").send_keys("wrong")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(
        browser,
        EC.text_to_be_present_in_element(
            (By.TAG_NAME, "body"), "Invalid username/password credentials."
        ),
    )
    browser.save_screenshot(str(shots / "login.png"))
