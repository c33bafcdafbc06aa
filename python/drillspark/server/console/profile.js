"use strict";
// Profile page: SQL, state, the Drill logical plan as a picture (and as JSON), Spark progress
const STATES = ["Starting", "Running", "Succeeded", "Canceled", "Failed", "Cancellation Requested", "Enqueued", "Preparing", "Planning"];
const id = location.pathname.split("/").pop();

function planPicture(planText) {
  let plan;
  try { plan = JSON.parse(planText); } catch (e) { return null; }
  const ops = plan.query || [];
  if (!ops.length) return null;
  const inputs = op => ["input", "left", "right"].filter(k => op[k] !== undefined).map(k => op[k]).concat(op.inputs || []);
  const byId = new Map(ops.map(o => [o["@id"], o]));
  const depth = new Map();
  const level = o => {
    if (depth.has(o["@id"])) return depth.get(o["@id"]);
    depth.set(o["@id"], 0);
    const d = Math.max(-1, ...inputs(o).map(i => byId.has(i) ? level(byId.get(i)) : -1)) + 1;
    depth.set(o["@id"], d); return d;
  };
  ops.forEach(level);
  const rows = new Map();
  ops.forEach(o => { const d = depth.get(o["@id"]); rows.set(d, (rows.get(d) || []).concat([o])); });
  const W = 230, H = 44, GX = 30, GY = 36;
  const pos = new Map();
  let width = 0;
  for (const [d, list] of rows) {
    list.forEach((o, i) => pos.set(o["@id"], {x: 10 + i * (W + GX), y: 10 + d * (H + GY)}));
    width = Math.max(width, 20 + list.length * (W + GX));
  }
  const height = 20 + rows.size * (H + GY);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("width", width); svg.setAttribute("height", height); svg.setAttribute("id", "plan-svg");
  svg.innerHTML = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#6b7785"/></marker></defs>';
  const label = o => {
    const extra = String(opKeys(o)).replace(/`/g, "");
    return ["@" + o["@id"] + " " + o.op, extra.length > 30 ? extra.slice(0, 29) + "…" : extra];
  };
  for (const o of ops) for (const i of inputs(o)) {
    const a = pos.get(i), b = pos.get(o["@id"]);
    if (!a || !b) continue;
    const path = document.createElementNS(NS, "path");
    path.setAttribute("class", "edge");
    path.setAttribute("d", `M${a.x + W / 2},${a.y + H} C${a.x + W / 2},${a.y + H + GY / 2} ${b.x + W / 2},${b.y - GY / 2} ${b.x + W / 2},${b.y}`);
    svg.append(path);
  }
  for (const o of ops) {
    const p = pos.get(o["@id"]);
    const g = document.createElementNS(NS, "g"); g.setAttribute("class", "op");
    const r = document.createElementNS(NS, "rect");
    Object.entries({x: p.x, y: p.y, width: W, height: H, rx: 5}).forEach(([k, v]) => r.setAttribute(k, v));
    g.append(r);
    const full = document.createElementNS(NS, "title");  // the whole key text on hover
    full.textContent = "@" + o["@id"] + " " + o.op + "\n" + String(opKeys(o)).replace(/`/g, "");
    g.append(full);
    g.setAttribute("data-keys", String(opKeys(o)).replace(/`/g, ""));
    label(o).forEach((t, i) => {
      const tx = document.createElementNS(NS, "text");
      tx.setAttribute("x", p.x + 8); tx.setAttribute("y", p.y + 17 + i * 16); tx.textContent = t;
      if (i === 0) tx.setAttribute("font-weight", "bold");
      g.append(tx);
    });
    svg.append(g);
  }
  return svg;
}

// What an operator works by, as its box shows it: the table a scan reads, a filter's
// condition, the sort keys, the grouping keys, the flattened column, the limit, the join keys
function opKeys(o) {
  const text = e => (e && typeof e === "object") ? (e.expr || e.ref || JSON.stringify(e)) : String(e);
  switch (o.op) {
    case "scan": return String((o.selection && (o.selection.table || (o.selection.files || [])[0] || "")) || o.storageengine || "").split("/").pop();
    case "filter": return String(o.expr || "");
    case "project": return (o.projections || []).map(p => p.ref).join(", ");
    case "order": return "by " + (o.orderings || []).map(k => text(k.expr) + " " + (k.order || "ASC")).join(", ");
    case "groupingaggregate": case "collapsingaggregate": case "segment": {
      const keys = (o.keys || []).map(k => text(k.expr || k.ref || k));  // the ref is internal ($g0)
      return (keys.length ? "by " + keys.join(", ") : "no keys") + ((o.exprs || []).length ? "; " + o.exprs.length + " expr" : "");
    }
    case "flatten": return text(o.expr) + (o.name ? " as " + o.name : "");
    case "limit": return o.last === null || o.last === undefined ? "from row " + (o.first || 0) : (o.first ? "rows " + o.first + ".." + o.last : "first " + o.last);
    case "join": return (o.type || "") + " on " + (o.conditions || []).map(c => text(c.left) + " " + (c.relationship || "=") + " " + text(c.right)).join(", ");
    case "union": return o.distinct ? "distinct" : "all";
    default: return "";
  }
}

function progress(pr) {
  if (!pr.jobs.length) return el("p", {class: "muted"}, "No Spark jobs recorded (yet).");
  // a stage of a succeeded job that ran no task was skipped: Spark reused its earlier output
  const skipped = (j, s) => j.status === "SUCCEEDED" && s.tasks > 0 && s.completed === 0;
  return el("table", {id: "progress"}, el("thead", {}, el("tr", {}, ["Spark job", "Status", "Stage", "Tasks done"].map(h => el("th", {}, h)))),
    el("tbody", {}, pr.jobs.flatMap(j => (j.stages.length ? j.stages : [{stageId: "", tasks: 0, completed: 0}]).map(s =>
      el("tr", {}, el("td", {}, j.jobId), el("td", {}, j.status), el("td", {}, s.stageId),
        skipped(j, s) ? el("td", {class: "muted skipped"}, "skipped (output reused)") :
        el("td", {}, el("span", {class: "bar"}, el("div", {style: "width:" + (s.tasks ? 100 * s.completed / s.tasks : 0) + "%"})), " " + s.completed + " / " + s.tasks))))));
}

// Spark's SQL metrics of the query's operators (Spark's physical plan, root first): rows,
// time and memory as Spark totals them over the tasks; every metric on hover
function operatorMetrics(executions) {
  if (!executions.length) return el("p", {class: "muted"}, "No Spark SQL metrics recorded (yet).");
  return el("table", {id: "operator-metrics"}, el("thead", {}, el("tr", {}, ["Spark SQL run", "Operator", "Rows", "Time", "Memory"].map(h => el("th", {}, h)))),
    el("tbody", {}, executions.flatMap(x => x.operators.map(o =>
      el("tr", {title: Object.entries(o.metrics).map(([k, v]) => k + ": " + v).join("\n")},
        el("td", {}, x.execution), el("td", {}, o.name), el("td", {class: "num"}, o.rows || ""),
        el("td", {class: "num"}, o.time || ""), el("td", {class: "num"}, o.memory || ""))))));
}

async function load() {
  const box = document.getElementById("profile");
  document.getElementById("qid").textContent = id;
  let p;
  try { p = await getJson("/profiles/" + id + ".json"); } catch (e) { box.textContent = String(e); return; }
  const state = STATES[p.state] || String(p.state);
  const running = !p.end;
  const pr = await getJson("/profiles/" + id + "/progress.json").catch(() => ({jobs: []}));
  const metrics = await getJson("/profiles/" + id + "/metrics.json").catch(() => []);
  box.innerHTML = "";
  box.append(...[el("div", {class: "card grid"},
    el("b", {}, "State"), el("span", {class: "state-" + state.replace(/ /g, ""), id: "state"}, state),
    el("b", {}, "User"), el("span", {}, p.user),
    el("b", {}, "Started"), el("span", {}, fmtTime(p.start)),
    el("b", {}, "Duration"), el("span", {}, ((((p.end || Date.now()) - p.start)) / 1000).toFixed(3) + " s"),
    el("b", {}, "Rows"), el("span", {}, pr.rows !== undefined ? pr.rows : ""),
    el("b", {}, "Queue (Spark pool)"), el("span", {}, p.queueName)),
    running ? el("div", {class: "toolbar"}, el("button", {class: "danger", onclick: async () => { await send("/profiles/cancel/" + id); load(); }}, "Cancel query")) : null,
    el("h2", {}, "SQL"), el("pre", {id: "sql"}, p.query),
    p.type === 1 || p.type === undefined ? el("div", {class: "toolbar"},
      el("a", {id: "edit-query", class: "button secondary", href: "/query?" + new URLSearchParams({q: p.query})}, "Edit Query"),
      el("button", {id: "rerun-query", onclick: () => { sessionStorage.setItem("drillspark.rerun", p.query); location.href = "/query"; }}, "Re-run")) : null,
    p.error ? el("div", {}, el("h2", {}, "Error"), el("div", {class: "error"}, p.error)) : null,
    el("h2", {}, "Spark progress"), progress(pr),
    el("h2", {}, "Operator metrics"), operatorMetrics(metrics),
    el("h2", {}, "Logical plan")].filter(Boolean));
  const pic = p.plan ? planPicture(p.plan) : null;
  box.append(pic ? el("div", {class: "card", style: "overflow:auto"}, pic) : el("p", {class: "muted"}, "No plan (the query did not reach planning, or needs none)."));
  if (p.plan) box.append(el("details", {}, el("summary", {}, "Plan JSON"), el("pre", {}, p.plan)));
  if (running) setTimeout(load, 1000);
}
document.addEventListener("DOMContentLoaded", load);
