"""The console's Storage page in a real headless browser (chromium + chromedriver, selenium),
as a Drill user works it: create a `file` and a `jdbc` plugin, see them listed as enabled,
edit one field (the masked password stays the stored one), disable / enable, export, delete,
and bad JSON or a bad config showing the server's message while the plugin keeps its previous
configuration; a user who is not an admin sees everything and can change nothing.
Screenshots go to $DRILLSPARK_SCREENSHOTS (docs/server/storage-*.png were made so) or the
test's temporary folder."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select
from tests.server.helpers import PASSWORDS, chromium, wait

from drillspark.server import DrillServer
from drillspark.server.auth import read_users

SECRET = "s3cret-pw"
PG = {
    "type": "jdbc",
    "driver": "org.postgresql.Driver",
    "url": "jdbc:postgresql://127.0.0.1:5432/shop",
    "username": "drill",
    "password": SECRET,
    "caseInsensitiveTableNames": False,
    "enabled": True,
}


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    driver = chromium(downloads=str(downloads))
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("DRILLSPARK_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("storage-console")
    for name in ("data", "logs", "state", "auth-state"):
        (root / name).mkdir()
    return root


@pytest.fixture(scope="module")
def srv(spark, folders):
    """A server of this module's own (the page changes its plugins), state in a temp folder."""
    server = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(folders / "data")},
        state_dir=str(folders / "state"),
    ).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def users_srv(spark, folders, users_file):
    server = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(folders / "data")},
        users=read_users(str(users_file)),
        state_dir=str(folders / "auth-state"),
    ).start()
    server.catalog.plugins.put("pg", PG)
    yield server
    server.stop()


def open_list(browser, server) -> None:
    browser.get(server.url + "/storage")
    wait(browser, EC.presence_of_element_located((By.ID, "plugin-dfs")))


def type_into(area, text: str) -> None:
    area.clear()
    area.send_keys(text)


def plugin_row(browser, name: str):
    return wait(browser, EC.visibility_of_element_located((By.ID, "plugin-" + name)))


def editor(browser):
    return wait(browser, EC.visibility_of_element_located((By.ID, "edit-config")))


def error_text(browser, box: str) -> str:
    return wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, f"#{box} .error"))).text


def create(browser, name: str, template: str, config: dict) -> None:
    browser.find_element(By.ID, "create-open").click()
    name_box = wait(browser, EC.visibility_of_element_located((By.ID, "new-name")))
    name_box.clear()
    name_box.send_keys(name)
    Select(browser.find_element(By.ID, "new-template")).select_by_value(template)
    area = browser.find_element(By.ID, "new-config")
    assert f'"type": "{template}"' in area.get_attribute("value")  # the template's start
    type_into(area, json.dumps(config))
    browser.find_element(By.ID, "create-save").click()


def test_create_a_file_and_a_jdbc_plugin(browser, srv, folders):
    open_list(browser, srv)
    logs = {
        "type": "file",
        "connection": "file:///",
        "workspaces": {"w": {"location": str(folders / "logs"), "writable": False}},
        "formats": {"json": {"type": "json", "extensions": ["json"]}},
        "enabled": True,
    }
    create(browser, "logs", "file", logs)
    wait(browser, EC.text_to_be_present_in_element((By.ID, "msg"), "Created logs."))
    create(browser, "pg", "jdbc", PG)
    wait(browser, EC.text_to_be_present_in_element((By.ID, "msg"), "Created pg."))
    # listed among the enabled plugins, with what they reach
    assert "logs.w" in browser.find_element(By.CSS_SELECTOR, "#enabled #plugin-logs").text
    pg = browser.find_element(By.CSS_SELECTOR, "#enabled #plugin-pg")
    assert "jdbc" in pg.text and PG["url"] in pg.text and "enabled" in pg.text
    # the create form is emptied and closed: the typed password is nowhere on the page
    assert not browser.find_element(By.ID, "create").is_displayed()
    assert browser.find_element(By.ID, "new-config").get_attribute("value") == ""
    assert SECRET not in browser.page_source
    assert srv.catalog.plugins.get("pg").raw["password"] == SECRET
    assert srv.catalog.plugins.get("logs").raw["workspaces"]["w"]["location"] == str(
        (folders / "logs").resolve()
    )


def test_create_shows_the_servers_error(browser, srv, shots):
    open_list(browser, srv)
    bad = {"type": "file", "workspaces": {"w": {"location": "/no/such/folder"}}}
    create(browser, "broken", "file", bad)
    text = error_text(browser, "create-error")
    assert "storage plugin 'broken'" in text and "workspace 'w'" in text, text
    assert "/no/such/folder" in text
    # what was typed stays, to be corrected
    assert "/no/such/folder" in browser.find_element(By.ID, "new-config").get_attribute("value")
    browser.save_screenshot(str(shots / "storage-create-error.png"))
    assert srv.catalog.plugins.get("broken") is None
    # a name that exists is not replaced by Create
    type_into(browser.find_element(By.ID, "new-config"), json.dumps(PG))
    name_box = browser.find_element(By.ID, "new-name")
    name_box.clear()
    name_box.send_keys("pg")
    browser.find_element(By.ID, "create-save").click()
    wait(browser, EC.text_to_be_present_in_element((By.ID, "create-error"), "exists already"))
    # not JSON: said before anything is sent
    type_into(browser.find_element(By.ID, "new-config"), '{"type": "jdbc",')
    name_box.clear()
    name_box.send_keys("other")
    browser.find_element(By.ID, "create-save").click()
    wait(browser, EC.text_to_be_present_in_element((By.ID, "create-error"), "Not valid JSON"))
    browser.find_element(By.ID, "create-cancel").click()
    assert srv.catalog.plugins.get("other") is None


def test_update_one_field_keeps_the_masked_password(browser, srv, shots):
    open_list(browser, srv)
    plugin_row(browser, "pg").find_element(By.CSS_SELECTOR, "button.update").click()
    area = editor(browser)
    shown = json.loads(area.get_attribute("value"))
    assert shown["password"] == "*****" and shown["url"] == PG["url"]
    browser.save_screenshot(str(shots / "storage-update.png"))
    type_into(area, json.dumps({**shown, "caseInsensitiveTableNames": True}, indent=2))
    browser.find_element(By.ID, "update").click()
    wait(browser, EC.text_to_be_present_in_element((By.ID, "msg"), "Updated pg."))
    kept = srv.catalog.plugins.get("pg").raw
    assert kept["password"] == SECRET and kept["caseInsensitiveTableNames"] is True
    # the editor shows what the server keeps, the password masked
    again = json.loads(editor(browser).get_attribute("value"))
    assert again["password"] == "*****" and again["caseInsensitiveTableNames"] is True
    assert SECRET not in browser.page_source
    # a new password typed in: stored, and no longer shown once saved
    type_into(area, json.dumps({**again, "password": "n3w-s3cret"}))
    browser.find_element(By.ID, "update").click()
    wait(browser, lambda d: srv.catalog.plugins.get("pg").raw["password"] == "n3w-s3cret")
    wait(browser, lambda d: "n3w-s3cret" not in area.get_attribute("value"))
    assert json.loads(area.get_attribute("value"))["password"] == "*****"
    assert "n3w-s3cret" not in browser.page_source


def test_a_bad_update_shows_the_error_and_keeps_the_previous_config(browser, srv, shots):
    browser.get(srv.url + "/storage#/pg")
    area = editor(browser)
    wait(browser, lambda d: area.get_attribute("value").strip().startswith("{"))
    before = dict(srv.catalog.plugins.get("pg").raw)
    shown = json.loads(area.get_attribute("value"))
    # not JSON: nothing is sent
    type_into(area, '{"type": "jdbc", "url": ')
    browser.find_element(By.ID, "update").click()
    assert "Not valid JSON" in error_text(browser, "edit-error")
    # a config the server refuses: its message, naming the plugin and field
    no_url = {k: v for k, v in shown.items() if k != "url"}
    type_into(area, json.dumps(no_url, indent=2))
    browser.find_element(By.ID, "update").click()
    wait(browser, EC.text_to_be_present_in_element((By.ID, "edit-error"), "'url' is required"))
    text = error_text(browser, "edit-error")
    assert "storage plugin 'pg' (jdbc): field 'url' is required" in text
    assert "keeps its previous configuration" in text
    assert json.loads(area.get_attribute("value")) == no_url  # the edit is not lost
    browser.save_screenshot(str(shots / "storage-update-error.png"))
    wrong_type = {**shown, "writable": "yes"}
    type_into(area, json.dumps(wrong_type))
    browser.find_element(By.ID, "update").click()
    wait(
        browser,
        EC.text_to_be_present_in_element((By.ID, "edit-error"), "'writable' must be a boolean"),
    )
    assert srv.catalog.plugins.get("pg").raw == before
    # Back: the list, the plugin as it was
    browser.find_element(By.ID, "back").click()
    assert PG["url"] in plugin_row(browser, "pg").text


def test_disable_and_enable(browser, srv, shots):
    open_list(browser, srv)
    plugin_row(browser, "pg").find_element(By.CSS_SELECTOR, "button.disable").click()
    row = wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, "#disabled #plugin-pg")))
    assert "disabled" in row.text
    assert srv.catalog.plugins.get("pg").enabled is False
    assert not browser.find_elements(By.CSS_SELECTOR, "#enabled #plugin-pg")
    browser.save_screenshot(str(shots / "storage-list.png"))
    row.find_element(By.CSS_SELECTOR, "button.enable").click()
    wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, "#enabled #plugin-pg")))
    assert srv.catalog.plugins.get("pg").enabled is True
    # from the editor too
    browser.get(srv.url + "/storage#/pg")
    wait(browser, EC.text_to_be_present_in_element((By.ID, "edit-state"), "enabled"))
    browser.find_element(By.ID, "toggle").click()
    wait(browser, EC.text_to_be_present_in_element((By.ID, "edit-state"), "disabled"))
    assert srv.catalog.plugins.get("pg").enabled is False
    assert browser.find_element(By.ID, "toggle").text == "Enable"
    browser.find_element(By.ID, "toggle").click()
    wait(browser, EC.text_to_be_present_in_element((By.ID, "edit-state"), "enabled"))
    assert srv.catalog.plugins.get("pg").enabled is True


def test_export_downloads_the_masked_json(browser, srv, downloads):
    open_list(browser, srv)
    plugin_row(browser, "pg").find_element(By.CSS_SELECTOR, "a.export").click()
    path = downloads / "pg.json"
    deadline = time.monotonic() + 30
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert path.exists(), list(downloads.iterdir())
    time.sleep(0.5)  # the download renamed into place: complete
    exported = json.loads(path.read_text())
    assert exported["type"] == "jdbc" and exported["url"] == PG["url"]
    assert exported["password"] == "*****" and SECRET not in path.read_text()


def test_delete_asks_and_deletes(browser, srv):
    browser.get(srv.url + "/storage#/logs")
    editor(browser)
    browser.find_element(By.ID, "delete").click()
    wait(browser, EC.alert_is_present()).dismiss()  # asked: nothing happens
    assert srv.catalog.plugins.get("logs") is not None
    browser.find_element(By.ID, "delete").click()
    wait(browser, EC.alert_is_present()).accept()
    wait(browser, EC.text_to_be_present_in_element((By.ID, "msg"), "Deleted logs."))
    wait(browser, EC.visibility_of_element_located((By.ID, "list-view")))
    assert plugin_row(browser, "pg") and not browser.find_elements(By.ID, "plugin-logs")
    assert srv.catalog.plugins.get("logs") is None
    # dfs is built in: the server's refusal is shown
    browser.get(srv.url + "/storage#/dfs")
    editor(browser)
    browser.find_element(By.ID, "delete").click()
    wait(browser, EC.alert_is_present()).accept()
    assert "cannot be deleted" in error_text(browser, "edit-error")
    assert srv.catalog.plugins.get("dfs") is not None


def test_a_user_who_is_not_an_admin_reads_only(browser, users_srv, shots):
    browser.get(users_srv.url + "/login")
    wait(browser, EC.presence_of_element_located((By.NAME, "j_username"))).send_keys("bob")
    browser.find_element(By.NAME, "j_password").send_keys(PASSWORDS["bob"])
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser, EC.url_to_be(users_srv.url + "/"))
    open_list(browser, users_srv)
    row = plugin_row(browser, "pg")
    wait(browser, EC.visibility_of_element_located((By.ID, "readonly-note")))
    assert not browser.find_element(By.ID, "create-open").is_displayed()
    assert not browser.find_elements(By.CSS_SELECTOR, "button.enable, button.disable")
    assert row.find_element(By.CSS_SELECTOR, "button.update").text == "View"
    assert row.find_element(By.CSS_SELECTOR, "a.export").is_displayed()
    browser.save_screenshot(str(shots / "storage-readonly.png"))
    row.find_element(By.CSS_SELECTOR, "button.update").click()
    area = editor(browser)
    wait(browser, lambda d: area.get_attribute("value").strip().startswith("{"))
    assert area.get_attribute("readonly") is not None
    assert json.loads(area.get_attribute("value"))["password"] == "*****"
    for button in ("update", "toggle", "delete"):
        assert not browser.find_element(By.ID, button).is_displayed(), button
    assert browser.find_element(By.ID, "back").is_displayed()
    assert users_srv.catalog.plugins.get("pg").raw["password"] == SECRET
    browser.get(users_srv.url + "/logout")


def test_a_plugins_page_opens_at_drills_address(browser, srv):
    """Drill's Update page of a plugin is /storage/NAME: the same editor opens there."""
    browser.get(srv.url + "/storage/pg")
    shown = json.loads(editor(browser).get_attribute("value"))
    assert shown["type"] == "jdbc" and shown["password"] == "*****"
    assert browser.current_url.endswith("/storage#/pg")
