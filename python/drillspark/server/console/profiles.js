"use strict";
// Profiles list: running (with a cancel button) and finished queries
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
    const p = await getJson("/profiles.json");
    const run = document.getElementById("running"), fin = document.getElementById("finished");
    run.innerHTML = ""; fin.innerHTML = "";
    run.append(table(p.runningQueries, true)); fin.append(table(p.finishedQueries, false));
  } catch (e) { document.getElementById("finished").textContent = String(e); }
}
document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("refresh").addEventListener("click", load);
  load();
  setInterval(() => { if (document.getElementById("auto").checked) load(); }, 2000);
});
