"use strict";
// Metrics: the counters and gauges of /status/metrics
document.addEventListener("DOMContentLoaded", async () => {
  const box = document.getElementById("status");
  const s = await getJson("/status.json");
  const m = await getJson("/status/metrics");
  const rows = (obj, key) => Object.entries(obj).map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {class: "num"}, String(v[key]))));
  box.append(el("p", {class: "ok"}, s.status),
    el("h2", {}, "Counters"), el("table", {}, el("tbody", {}, rows(m.counters, "count"))),
    el("h2", {}, "Gauges"), el("table", {}, el("tbody", {}, rows(m.gauges, "value"))));
});
