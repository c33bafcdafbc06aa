"use strict";
// Query page: runs /query.json, pages through the rows, shows errors at their SQL position
const PAGE_ROWS = 50;
let answer = null, pageNo = 0, search = "";

// The rows the search box keeps: those with a cell whose shown text holds it (any case)
function shownRows() {
  const rows = answer.rows || [];
  if (!search) return rows;
  const needle = search.toLowerCase();
  return rows.filter(r => answer.columns.some((c, i) => cell(r[c], answer.metadata[i]).textContent.toLowerCase().includes(needle)));
}

// The answer as CSV (RFC 4180: a field with a comma, quote or line break is quoted, quotes
// doubled; NULL is an empty field; a map or array its JSON), every row, not only the page's
function csvText() {
  const field = v => {
    if (v === null || v === undefined) return "";
    const t = typeof v === "object" ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  };
  // a value as the table shows it (a DATE as a date, not epoch milliseconds)
  const shown = (v, type) => (v === null || v === undefined || typeof v === "object") ? v : cell(v, type).textContent;
  const lines = [answer.columns.map(field).join(",")];
  for (const r of answer.rows || []) lines.push(answer.columns.map((c, i) => field(shown(r[c], answer.metadata[i]))).join(","));
  return lines.join("\r\n") + "\r\n";
}

function exportCsv() {
  const url = URL.createObjectURL(new Blob([csvText()], {type: "text/csv"}));
  const a = el("a", {href: url, download: answer.queryId + ".csv", id: "csv-link"});
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

function showError(message, sql) {
  const box = document.getElementById("error");
  box.innerHTML = "";
  if (!message) return;
  let text = message;
  const m = /\(line (\d+), column (\d+)\)/.exec(message);
  if (m && sql) {
    const line = sql.split("\n")[Number(m[1]) - 1];
    if (line !== undefined) text += "\n\n" + line + "\n" + " ".repeat(Math.max(0, Number(m[2]) - 1)) + "^";
    const area = document.getElementById("sql");
    const lines = sql.split("\n");
    let offset = 0;
    for (let i = 0; i < Number(m[1]) - 1; i++) offset += lines[i].length + 1;
    offset += Number(m[2]) - 1;
    area.focus(); area.setSelectionRange(offset, offset + 1);
  }
  box.append(el("div", {class: "error", id: "error-message"}, text));
}

function renderPage() {
  const out = document.getElementById("result");
  out.innerHTML = "";
  if (!answer) return;
  const all = answer.rows || [];
  const rows = shownRows();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
  pageNo = Math.min(pageNo, pages - 1);
  const slice = rows.slice(pageNo * PAGE_ROWS, (pageNo + 1) * PAGE_ROWS);
  const head = el("tr", {}, answer.columns.map((c, i) => el("th", {title: answer.metadata[i]}, c, el("div", {class: "muted"}, answer.metadata[i]))));
  const body = slice.map(r => el("tr", {}, answer.columns.map((c, i) => cell(r[c], answer.metadata[i]))));
  const limited = answer.attemptedAutoLimit > 0 && all.length >= answer.attemptedAutoLimit;
  const counted = all.length + " row" + (all.length === 1 ? "" : "s") + (limited ? " (limited to " + answer.attemptedAutoLimit + ")" : "");
  out.append(el("div", {class: "toolbar"},
    el("span", {id: "row-count"}, search ? rows.length + " of " + counted : counted),
    el("button", {class: "secondary", id: "prev", onclick: () => { pageNo--; renderPage(); }, ...(pageNo === 0 ? {disabled: ""} : {})}, "‹ Previous"),
    el("span", {id: "page"}, "page " + (pageNo + 1) + " of " + pages),
    el("button", {class: "secondary", id: "next", onclick: () => { pageNo++; renderPage(); }, ...(pageNo >= pages - 1 ? {disabled: ""} : {})}, "Next ›"),
    el("a", {href: "/profiles/" + answer.queryId}, "profile"),
    el("button", {class: "secondary", id: "export-csv", onclick: exportCsv}, "Export CSV"),
    el("input", {id: "result-search", type: "search", placeholder: "Search results", value: search,
      oninput: e => { search = e.target.value; pageNo = 0; renderPage(); const box = document.getElementById("result-search"); box.focus(); box.setSelectionRange(search.length, search.length); }})),
    el("div", {class: "scroll"}, el("table", {id: "result-table"}, el("thead", {}, head), el("tbody", {}, body))));
}

async function run() {
  const sql = document.getElementById("sql").value;
  const status = document.getElementById("status");
  const button = document.getElementById("run");
  showError(null); answer = null; pageNo = 0; search = ""; renderPage();
  const body = {queryType: document.getElementById("qtype").value, query: sql,
                autoLimit: document.getElementById("limit").value || "0"};
  const schema = document.getElementById("schema").value.trim();
  if (schema) body.defaultSchema = schema;
  button.disabled = true; status.textContent = "running…";
  const t0 = performance.now();
  try {
    const r = await send("/query.json", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const data = await r.json();
    status.textContent = ((performance.now() - t0) / 1000).toFixed(2) + " s";
    if (!r.ok) { showError(data.errorMessage || ("HTTP " + r.status), sql); return; }
    if (data.queryState !== "COMPLETED") {
      showError((data.queryState || "FAILED") + ": " + (data.errorMessage || "the query failed"), sql);
      if (!data.columns) return;
    }
    answer = data; renderPage();
  } catch (e) {
    showError(String(e)); status.textContent = "";
  } finally { button.disabled = false; }
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("run").addEventListener("click", run);
  document.getElementById("sql").addEventListener("keydown", e => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) run(); });
  const params = new URLSearchParams(location.search);
  const q = params.get("q");
  if (q) document.getElementById("sql").value = q;
  // Re-run from a profile page: it leaves the query in this tab's storage, which only this
  // site's pages can write (a link from elsewhere only fills the box, never runs it)
  const rerun = sessionStorage.getItem("drillspark.rerun");
  if (rerun !== null) {
    sessionStorage.removeItem("drillspark.rerun");
    document.getElementById("sql").value = rerun;
    run();
  }
});
