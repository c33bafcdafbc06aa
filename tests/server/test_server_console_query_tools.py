"""The console's tools a Drill user reaches for (#36), in a real headless chromium: Edit Query
and Re-run from a profile, CSV export and search of a result, search in the profiles list, the
plan boxes' keys (sort and group keys, the limit, the flattened column), and the server's
threads on the Metrics page. Drill 1.22's console has each (its profile page's Edit Query tab
and Re-run, its result page's Export and search box, its profiles list's search, its
Metrics page's Threads)."""

from __future__ import annotations

import csv
import io
import time
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from tests.server.helpers import Http, chromium, wait

NATION = "dfs.data.`breadth/tpch_json/nation.json`"


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    driver = chromium(downloads=str(downloads))
    yield driver
    driver.quit()


def run_on_query_page(browser, server, sql):
    browser.get(server.url + "/query")
    area = wait(browser, EC.presence_of_element_located((By.ID, "sql")))
    area.clear()
    area.send_keys(sql)
    browser.find_element(By.ID, "run").click()
    wait(browser, EC.presence_of_element_located((By.ID, "result-table")))


@pytest.mark.load  # the long tier: 45-66 s of `make test`'s 20 minutes
def test_edit_query_and_rerun_from_a_profile(browser, server):
    marker = uuid.uuid4().hex[:8]
    sql = f"SELECT N_NAME, '{marker}' AS m FROM {NATION} WHERE N_NATIONKEY < 3 ORDER BY N_NAME"
    done = Http(server.url).query(sql)
    browser.get(server.url + "/profiles/" + done["queryId"])
    wait(browser, EC.element_to_be_clickable((By.ID, "edit-query"))).click()
    area = wait(browser, EC.presence_of_element_located((By.ID, "sql")))
    assert area.get_attribute("value") == sql
    assert not browser.find_elements(By.ID, "result-table")  # Edit Query does not run it
    browser.get(server.url + "/profiles/" + done["queryId"])
    wait(browser, EC.element_to_be_clickable((By.ID, "rerun-query"))).click()
    wait(browser, EC.presence_of_element_located((By.ID, "result-table")))
    assert browser.find_element(By.ID, "sql").get_attribute("value") == sql
    cells = browser.find_elements(By.CSS_SELECTOR, "#result-table tbody tr td:first-child")
    assert [c.text for c in cells] == ["ALGERIA", "ARGENTINA", "BRAZIL"]
    runs = [q for q in server.queries.finished() if q.text == sql]
    assert len(runs) == 2  # it ran again on the server


def test_a_link_from_elsewhere_only_fills_the_box(browser, server):
    before = len(server.queries.finished())
    browser.get(server.url + "/query?q=SELECT%201%20AS%20x&run=1")
    area = wait(browser, EC.presence_of_element_located((By.ID, "sql")))
    assert area.get_attribute("value") == "SELECT 1 AS x"
    time.sleep(1)
    assert not browser.find_elements(By.ID, "result-table")
    assert len(server.queries.finished()) == before


def test_result_search_and_csv_export(browser, server, downloads):
    sql = (
        f"SELECT N_NATIONKEY AS k, N_NAME AS name, 'a,\"b\"' AS odd, CAST(NULL AS VARCHAR) AS n, "
        f"DATE '2024-01-02' AS d FROM {NATION} ORDER BY N_NATIONKEY"
    )
    run_on_query_page(browser, server, sql)
    assert browser.find_element(By.ID, "row-count").text == "25 rows"
    search = browser.find_element(By.ID, "result-search")
    search.send_keys("united")
    wait(browser, lambda d: d.find_element(By.ID, "row-count").text == "2 of 25 rows")
    names = [
        c.text
        for c in browser.find_elements(By.CSS_SELECTOR, "#result-table tbody td:nth-child(2)")
    ]
    assert names == ["UNITED KINGDOM", "UNITED STATES"]
    # the export has every row, whatever the search and the page show
    browser.find_element(By.ID, "export-csv").click()
    query_id = next(q.id for q in server.queries.finished() if q.text == sql)
    path = downloads / f"{query_id}.csv"
    deadline = time.monotonic() + 30
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert path.exists(), list(downloads.iterdir())
    time.sleep(0.5)
    rows = list(csv.reader(io.StringIO(path.read_text(), newline="")))
    assert rows[0] == ["k", "name", "odd", "n", "d"]
    assert rows[1] == ["0", "ALGERIA", 'a,"b"', "", "2024-01-02"]
    assert len(rows) == 26 and rows[-1][1] == "UNITED STATES"
    assert '"a,""b"""' in path.read_text()  # quoted, quotes doubled (RFC 4180)


def test_profiles_list_search(browser, server):
    marker = "needle" + uuid.uuid4().hex[:8]
    http = Http(server.url)
    http.query(f"SELECT '{marker}' AS m FROM (VALUES(1))")
    http.query("SELECT 2 AS other FROM (VALUES(1))")
    browser.get(server.url + "/profiles")
    wait(browser, EC.presence_of_element_located((By.CSS_SELECTOR, "#finished table")))
    browser.find_element(By.ID, "auto").click()  # no refresh under the test's feet
    browser.find_element(By.ID, "profile-search").send_keys(marker)
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#finished tbody tr")) == 1)
    [row] = browser.find_elements(By.CSS_SELECTOR, "#finished tbody tr")
    assert marker in row.text
    browser.find_element(By.ID, "profile-search").send_keys("-nothing-matches")
    wait(browser, lambda d: "No completed queries." in d.find_element(By.ID, "finished").text)


def test_plan_boxes_show_their_keys(browser, server):
    done = Http(server.url).query(
        f"SELECT N_REGIONKEY, count(*) AS n FROM {NATION} GROUP BY N_REGIONKEY "
        "ORDER BY N_REGIONKEY DESC LIMIT 3"
    )
    browser.get(server.url + "/profiles/" + done["queryId"])
    wait(browser, EC.presence_of_element_located((By.ID, "plan-svg")))
    keys = {
        g.find_element(By.CSS_SELECTOR, "text").text.split(" ", 1)[1]: g.get_attribute("data-keys")
        for g in browser.find_elements(By.CSS_SELECTOR, "#plan-svg g.op")
    }
    assert "N_REGIONKEY" in keys["groupingaggregate"] and keys["groupingaggregate"].startswith(
        "by "
    )
    assert "N_REGIONKEY" in keys["order"] and "DESC" in keys["order"]
    assert keys["limit"] == "first 3"


def test_metrics_page_shows_the_threads(browser, server):
    browser.get(server.url + "/status")
    box = wait(browser, EC.presence_of_element_located((By.ID, "threads")))
    wait(browser, lambda d: "drillspark-http" in box.text)
    assert "MainThread" in box.text


@pytest.mark.load  # the long tier: 40-90 s of `make test`'s 20 minutes
def test_profile_shows_sparks_operator_metrics(browser, server):
    done = Http(server.url).query(
        f"SELECT N_REGIONKEY, count(*) AS n FROM {NATION} GROUP BY N_REGIONKEY ORDER BY 1"
    )
    metrics = Http(server.url).get_json(f"/profiles/{done['queryId']}/metrics.json")
    operators = [o for x in metrics for o in x["operators"]]
    names = [o["name"] for o in operators]
    assert "HashAggregate" in names, names
    # a scan names its file as the server's users name it, never where it lies
    scans = [n for n in names if "nation.json" in n]
    assert scans and not any(
        "/work/shared" in n or str(server.workspaces["data"]) in n for n in names
    )
    # the aggregate's output rows: 5 regions (partial and final aggregates each give them)
    aggregates = [o for o in operators if o["name"] == "HashAggregate"]
    assert any(o["rows"] == "5" for o in aggregates)
    assert any(o["memory"] for o in aggregates), aggregates
    browser.get(server.url + "/profiles/" + done["queryId"])
    table = wait(browser, EC.presence_of_element_located((By.ID, "operator-metrics")))
    rows = [r.text for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert any("HashAggregate" in r and " 5 " in f" {r} " for r in rows)


def test_a_chart_run_without_a_job_shows_its_operator_metrics(server):
    # a chart over a small file runs its task where it is collected, without a Spark job
    # (compat/LocalPartitionRun): its profile lists no job, and its operators' metrics are
    # there all the same, found by the query's job group
    done = Http(server.url).query(
        f"SELECT N_REGIONKEY, count(*) AS n FROM {NATION} GROUP BY N_REGIONKEY "
        "ORDER BY n DESC, N_REGIONKEY LIMIT 3"
    )
    assert [r["N_REGIONKEY"] for r in done["rows"]] == [0, 1, 2], done
    progress = Http(server.url).get_json(f"/profiles/{done['queryId']}/progress.json")
    assert progress["jobs"] == [], progress
    metrics = Http(server.url).get_json(f"/profiles/{done['queryId']}/metrics.json")
    operators = [o for x in metrics for o in x["operators"]]
    names = [o["name"] for o in operators]
    assert any("nation.json" in n for n in names), names
    aggregates = [o for o in operators if o["name"] == "HashAggregate"]
    assert any(o["rows"] == "5" for o in aggregates), aggregates


def test_a_skipped_stage_shows_as_skipped(browser, server):
    # a join whose two sides are shuffled, and the job after the map stages skips them. With
    # the scans' sizes (on by default) a join of two small files runs in place in one stage
    # (compat/SinglePartitionScans), so they are off here: Spark's sort-merge join
    region = NATION.replace("nation.json", "region.json")
    server.spark.conf.set("spark.drillspark.scanStatistics", "false")
    try:
        done = Http(server.url).query(
            f"SELECT n.N_REGIONKEY, count(*) AS n FROM {NATION} n JOIN {region} r "
            "ON n.N_REGIONKEY = r.R_REGIONKEY GROUP BY n.N_REGIONKEY ORDER BY 1"
        )
    finally:
        server.spark.conf.unset("spark.drillspark.scanStatistics")
    progress = Http(server.url).get_json(f"/profiles/{done['queryId']}/progress.json")
    skipped = [
        (j["jobId"], s["stageId"])
        for j in progress["jobs"]
        if j["status"] == "SUCCEEDED"
        for s in j["stages"]
        if s["tasks"] > 0 and s["completed"] == 0
    ]
    assert skipped, progress  # Spark reran no map stage: the later job skipped it
    browser.get(server.url + "/profiles/" + done["queryId"])
    table = wait(browser, EC.presence_of_element_located((By.ID, "progress")))
    cells = table.find_elements(By.CSS_SELECTOR, "td.skipped")
    assert len(cells) == len(skipped) and cells[0].text == "skipped (output reused)"
    assert "0 / " not in table.text  # no stage of a succeeded job shows as undone


def test_overview_counts_every_completed_query(browser, spark, shared):
    from drillspark.server import DrillServer

    srv = DrillServer(spark, port=0, workspaces={"data": str(shared / "data")})
    srv.queries.keep = 2  # the profiles list keeps the newest 2
    srv.start()
    try:
        http = Http(srv.url)
        for i in range(3):
            http.query(f"SELECT {i} AS i FROM (VALUES(1))")
        assert len(http.get_json("/profiles.json")["finishedQueries"]) == 2
        browser.get(srv.url + "/")
        count = wait(browser, EC.presence_of_element_located((By.ID, "completed-count")))
        assert count.text == "3"
    finally:
        srv.stop()
