"use strict";
// Metrics: the counters and gauges of /status/metrics
document.addEventListener("DOMContentLoaded", async () => {
  const box = document.getElementById("status");
  const s = await getJson("/status.json");
  const m = await getJson("/status/metrics");
  const rows = (obj, key) => Object.entries(obj).map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {class: "num"}, String(v[key]))));
  box.append(el("p", {class: "ok"}, s.status),
    el("h2", {}, "Counters"), el("table", {}, el("tbody", {}, rows(m.counters, "count"))),
    el("h2", {}, "Gauges"), el("table", {}, el("tbody", {}, rows(m.gauges, "value"))),
    el("h2", {id: "threads-heading"}, "Threads ", el("button", {class: "secondary", id: "threads-refresh", onclick: threads}, "Refresh")),
    el("pre", {id: "threads"}));
  threads();
});

// The server's threads and their stacks, as /status/threads gives them (admins only)
async function threads() {
  const box = document.getElementById("threads");
  const r = await fetch("/status/threads", {credentials: "same-origin"});
  box.textContent = r.ok ? await r.text() : "Threads are shown to admins only (HTTP " + r.status + ").";
}
