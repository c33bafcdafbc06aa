"use strict";
// Overview: the cluster (one "drillbit"), the API version, and queries at a glance
document.addEventListener("DOMContentLoaded", async () => {
  const box = document.getElementById("overview");
  const c = await getJson("/cluster.json");
  const p = await getJson("/profiles.json");
  // queries finished since the server started (the profiles list keeps only the newest 100)
  const m = await getJson("/status/metrics").catch(() => null);
  const completed = m ? m.counters["drill.queries.completed"].count : p.finishedQueries.length;
  const b = c.drillbits[0];
  box.append(el("div", {class: "card grid"},
    el("b", {}, "REST API"), el("span", {}, "Apache Drill " + c.currentVersion + " compatible"),
    el("b", {}, "Address"), el("span", {}, b.address + ":" + b.httpPort),
    el("b", {}, "State"), el("span", {class: "ok"}, b.state),
    el("b", {}, "Authentication"), el("span", {}, c.authEnabled ? "on" : "off"),
    el("b", {}, "Running queries"), el("span", {}, p.runningQueries.length),
    el("b", {}, "Completed queries"), el("span", {id: "completed-count"}, completed)),
    el("p", {}, el("a", {href: "/query"}, "Run a query"), " · ", el("a", {href: "/profiles"}, "see the profiles")));
});
