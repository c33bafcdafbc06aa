"use strict";
// Storage page: the plugins, their workspaces, enable/disable, the dfs workspaces editor
async function load() {
  const box = document.getElementById("plugins");
  const plugins = await getJson("/storage.json");
  box.innerHTML = "";
  for (const p of plugins) {
    const enabled = p.config.enabled === true;
    const ws = p.config.workspaces || {};
    box.append(el("div", {class: "card", id: "plugin-" + p.name},
      el("div", {class: "toolbar"}, el("b", {}, p.name), el("span", {class: enabled ? "ok" : "muted"}, enabled ? "enabled" : "disabled"),
        el("span", {class: "muted"}, p.config.connection),
        el("button", {class: "secondary", onclick: async () => { await send(`/storage/${p.name}/enable/${!enabled}`, {method: "POST", headers: {"Content-Type": "application/json"}}); load(); }}, enabled ? "Disable" : "Enable")),
      Object.keys(ws).length ? el("table", {}, el("thead", {}, el("tr", {}, ["Workspace", "Location", "Writable"].map(h => el("th", {}, h)))),
        el("tbody", {}, Object.entries(ws).map(([n, w]) => el("tr", {}, el("td", {}, p.name + "." + n), el("td", {}, w.location), el("td", {}, String(w.writable)))))) : null,
      el("p", {class: "muted"}, "Formats: " + Object.keys(p.config.formats || {}).join(", "))));
  }
  const dfs = plugins.find(p => p.name === "dfs");
  document.getElementById("config").value = JSON.stringify(dfs, null, 2);
}
async function update() {
  const msg = document.getElementById("msg");
  let body;
  try { body = JSON.parse(document.getElementById("config").value); } catch (e) { msg.className = "error"; msg.textContent = "not JSON: " + e; return; }
  const r = await send("/storage/dfs.json", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await r.json();
  msg.className = r.ok ? "ok" : "error";
  msg.textContent = r.ok ? "Updated." : data.errorMessage;
  if (r.ok) load();
}
document.addEventListener("DOMContentLoaded", () => { document.getElementById("update").addEventListener("click", update); load(); });
