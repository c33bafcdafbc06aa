"use strict";
// Profiles list: running (with a cancel button) and finished queries
// The search box keeps the queries whose text, user, state, queue or id hold its text
function matching(entries) {
  const needle = (document.getElementById("profile-search").value || "").trim().toLowerCase();
  if (!needle) return entries;
  return entries.filter(q => [q.query, q.user, q.state, q.queueName, q.queryId].some(v => String(v || "").toLowerCase().includes(needle)));
}
let latest = null;
function show() {
  const run = document.getElementById("running"), fin = document.getElementById("finished");
  run.innerHTML = ""; fin.innerHTML = "";
  if (!latest) return;
  run.append(table(matching(latest.runningQueries), true)); fin.append(table(matching(latest.finishedQueries), false));
}
function table(entries, running) {
  if (!entries.length) return el("p", {class: "muted"}, running ? "No running queries." : "No completed queries.");
  const head = el("tr", {}, ["Time", "User", "Query", "State", "Duration", "Queue"].map(h => el("th", {}, h)), running ? el("th", {}, "") : null);
  const rows = entries.map(q => el("tr", {"data-id": q.queryId},
    el("td", {}, q.time), el("td", {}, q.user),
    el("td", {}, el("a", {href: "/profiles/" + q.queryId}, q.query.length > 140 ? q.query.slice(0, 140) + "…" : q.query)),
    el("td", {class: "state-" + q.state.replace(/ /g, "")}, q.state), el("td", {}, q.duration), el("td", {}, q.queueName),
    running ? el("td", {}, el("button", {class: "danger cancel", onclick: () => cancel(q.queryId)}, "Cancel")) : null));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, rows));
}
async function cancel(id) {
  await send("/profiles/cancel/" + id);
  load();
}
async function load() {
  try {
    latest = await getJson("/profiles.json");
    show();
  } catch (e) { document.getElementById("finished").textContent = String(e); }
}
document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("refresh").addEventListener("click", load);
  document.getElementById("profile-search").addEventListener("input", show);
  load();
  setInterval(() => { if (document.getElementById("auto").checked) load(); }, 2000);
});
