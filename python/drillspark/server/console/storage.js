"use strict";
// Storage page, as Drill's: the enabled and disabled plugins (Update, Enable/Disable, Export),
// Create a plugin by name, and a plugin's configuration as JSON (Back, Update, Enable/Disable,
// Export, Delete). The editor is this page's #/NAME. Secrets come from the server as *****;
// sent back so, the server keeps the stored secret.

const $ = id => document.getElementById(id);
const enc = encodeURIComponent;
const JSON_TYPE = {"Content-Type": "application/json"};
// what "Create" starts from (Drill's field names and defaults)
const TEMPLATES = {
  file: {
    type: "file", connection: "file:///",
    workspaces: {root: {location: "/path/to/folder", writable: false, defaultInputFormat: null, allowAccessOutsideWorkspace: false}},
    formats: {json: {type: "json", extensions: ["json"]}, parquet: {type: "parquet"},
              csvh: {type: "text", extensions: ["csvh"], fieldDelimiter: ",", extractHeader: true}},
    enabled: true,
  },
  jdbc: {
    type: "jdbc", driver: "org.postgresql.Driver", url: "jdbc:postgresql://localhost:5432/database",
    username: "", password: "", caseInsensitiveTableNames: false, sourceParameters: {}, writable: false,
    enabled: true,
  },
  other: {type: "", enabled: true},
};

let readOnly = false;   // a user who is not an admin: everything is shown, nothing can change
let shown = null;       // the editor's plugin: {name, text (as loaded), enabled}

function message(box, kind, text) {
  box.innerHTML = "";
  if (text) box.append(el("div", {class: kind}, text));
}
function flash(kind, text) { message($("msg"), kind, text); }

// The server's answer to a change: null when it succeeded, else its message.
async function failure(r) {
  if (r.ok) return null;
  const body = await r.json().catch(() => ({}));
  return body.errorMessage || body.result || ("HTTP " + r.status + " " + r.statusText);
}

function parse(text) {
  let value;
  try { value = JSON.parse(text); } catch (e) { return {error: "Not valid JSON: " + e.message}; }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return {error: 'The configuration must be a JSON object: {"type": ..., ...}'};
  return {value};
}

// "valid JSON" / the parse error under an editor, as one types
function liveCheck(area, out) {
  const check = () => {
    const p = parse(area.value);
    out.className = p.error ? "warn" : "muted";
    out.textContent = area.value.trim() === "" ? "" : (p.error || "valid JSON");
  };
  area.addEventListener("input", check);
  return check;
}

// Tab indents, Ctrl+Enter submits
function editorKeys(area, submit) {
  area.addEventListener("keydown", e => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submit(); }
    else if (e.key === "Tab" && !e.shiftKey && !area.readOnly) {
      e.preventDefault();
      area.setRangeText("  ", area.selectionStart, area.selectionEnd, "end");
    }
  });
}

// ------------------------------------------------------------------ the list
function summary(name, c) {
  if (c.type === "file") {
    const ws = Object.entries(c.workspaces || {}).map(([w, s]) => name + "." + w + (s && s.writable ? " (writable)" : ""));
    return [c.connection || "file:///", ws.length ? " · " + ws.join(", ") : ""].join("");
  }
  if (c.type === "jdbc") return c.url || "";
  return "";
}

function row(p) {
  const c = p.config || {};
  const enabled = c.enabled === true;
  const buttons = [
    el("button", {class: "update", onclick: () => { location.hash = "#/" + p.name; }}, readOnly ? "View" : "Update"),
    readOnly ? null : el("button", {class: enabled ? "disable secondary" : "enable", onclick: async () => { await setEnabled(p.name, !enabled); await loadList(); }}, enabled ? "Disable" : "Enable"),
    el("a", {class: "button secondary export", href: `/storage/${enc(p.name)}/export/json`, download: p.name + ".json"}, "Export"),
  ];
  return el("tr", {id: "plugin-" + p.name},
    el("td", {class: "name"}, el("a", {href: "#/" + p.name}, p.name)),
    el("td", {class: "kind"}, el("span", {class: "type"}, c.type || "?")),
    el("td", {class: "summary", title: summary(p.name, c)}, summary(p.name, c)),
    el("td", {class: "state " + (enabled ? "ok" : "muted")}, enabled ? "enabled" : "disabled"),
    el("td", {class: "actions"}, el("div", {class: "toolbar"}, buttons)));
}

async function loadList() {
  let plugins;
  try { plugins = await getJson("/storage.json"); } catch (e) { flash("error", "Cannot list the plugins: " + e.message); return; }
  for (const [id, on] of [["enabled", true], ["disabled", false]]) {
    const body = $(id).tBodies[0];
    body.innerHTML = "";
    const these = plugins.filter(p => p.config && (p.config.enabled === true) === on);
    body.append(...these.map(row));
    if (!these.length) body.append(el("tr", {class: "none"}, el("td", {class: "muted", colspan: 5}, on ? "No plugin is enabled." : "No plugin is disabled.")));
  }
}

async function setEnabled(name, enabled) {
  const r = await send(`/storage/${enc(name)}/enable/${enabled}`, {method: "POST", headers: JSON_TYPE});
  const error = await failure(r);
  flash(error ? "error" : "ok", error ? `Could not ${enabled ? "enable" : "disable"} ${name}: ${error}` : `${name} ${enabled ? "enabled" : "disabled"}.`);
  return !error;
}

// ------------------------------------------------------------------ create
let checkNew = () => {};
function openCreate() {
  $("create").hidden = false;
  if (!$("new-config").value.trim()) useTemplate();
  $("new-name").focus();
}
function useTemplate() {
  $("new-config").value = JSON.stringify(TEMPLATES[$("new-template").value], null, 2);
  checkNew();
}
function closeCreate() {
  // nothing typed stays on the page (a password in the JSON)
  $("create").hidden = true;
  $("new-name").value = "";
  $("new-config").value = "";
  message($("create-error"), "", "");
  checkNew();
}

async function create() {
  const out = $("create-error");
  const name = $("new-name").value.trim();
  if (!name) { message(out, "error", "Give the plugin a name."); $("new-name").focus(); return; }
  const p = parse($("new-config").value);
  if (p.error) { message(out, "error", p.error); return; }
  try {
    const existing = await getJson(`/storage/${enc(name)}.json`);
    if (existing && existing.config) {
      message(out, "error", `A storage plugin named '${name}' exists already: Update changes it.`);
      return;
    }
  } catch (e) { /* the server's POST answer says what is wrong with the name */ }
  const r = await send(`/storage/${enc(name)}.json`, {method: "POST", headers: JSON_TYPE, body: JSON.stringify({name, config: p.value})});
  const error = await failure(r);
  if (error) { message(out, "error", error); return; }
  closeCreate();
  flash("ok", `Created ${name}.`);
  await loadList();
}

// ------------------------------------------------------------------ the editor
let checkEdit = () => {};
async function openEditor(name) {
  $("list-view").hidden = true;
  $("edit-view").hidden = false;
  $("edit-name").textContent = name;
  message($("edit-error"), "", "");
  $("export").href = `/storage/${enc(name)}/export/json`;
  $("export").setAttribute("download", name + ".json");
  let found;
  try { found = await getJson(`/storage/${enc(name)}.json`); } catch (e) { message($("edit-error"), "error", e.message); return; }
  if (!found.config) {
    shown = null;
    $("edit-config").value = "";
    $("edit-state").textContent = "";
    for (const id of ["update", "toggle", "delete", "export"]) $(id).hidden = true;
    message($("edit-error"), "error", `No storage plugin is named '${name}'.`);
    return;
  }
  showConfig(name, found.config);
}

function showConfig(name, config) {
  const enabled = config.enabled === true;
  shown = {name, text: JSON.stringify(config, null, 2), enabled};
  $("edit-config").value = shown.text;   // the server's masked text: no secret in clear
  $("edit-config").readOnly = readOnly;
  $("edit-state").textContent = enabled ? "enabled" : "disabled";
  $("edit-state").className = enabled ? "ok" : "muted";
  $("toggle").textContent = enabled ? "Disable" : "Enable";
  $("export").hidden = false;
  for (const id of ["update", "toggle", "delete"]) $(id).hidden = readOnly;
  checkEdit();
}

async function reloadEditor() {
  const found = await getJson(`/storage/${enc(shown.name)}.json`);
  if (found.config) showConfig(shown.name, found.config);
}

async function update() {
  if (!shown || readOnly) return;
  const out = $("edit-error");
  const p = parse($("edit-config").value);
  if (p.error) { message(out, "error", p.error + "\nNothing was sent: the plugin keeps its configuration."); return; }
  const r = await send(`/storage/${enc(shown.name)}.json`, {method: "POST", headers: JSON_TYPE, body: JSON.stringify({name: shown.name, config: p.value})});
  const error = await failure(r);
  if (error) { message(out, "error", error + "\nNothing was changed: the plugin keeps its previous configuration."); return; }
  message(out, "", "");
  await reloadEditor();   // what the server keeps, secrets masked again
  flash("ok", `Updated ${shown.name}.`);
}

async function toggle() {
  if (!shown) return;
  if ($("edit-config").value !== shown.text && !confirm("Discard your changes to the configuration?")) return;
  if (await setEnabled(shown.name, !shown.enabled)) await reloadEditor();
}

async function remove() {
  if (!shown) return;
  if (!confirm(`Delete the storage plugin '${shown.name}'?`)) return;
  const r = await send(`/storage/${enc(shown.name)}.json`, {method: "DELETE"});
  const error = await failure(r);
  if (error) { message($("edit-error"), "error", error); return; }
  flash("ok", `Deleted ${shown.name}.`);
  location.hash = "";
}

// ------------------------------------------------------------------ routing
async function route() {
  const m = /^#\/(.+)$/.exec(location.hash);
  if (m) { flash("", ""); await openEditor(decodeURIComponent(m[1])); return; }
  shown = null;
  $("edit-config").value = "";
  await loadList();   // then shown: never a list from before a change
  $("edit-view").hidden = true;
  $("list-view").hidden = false;
}

document.addEventListener("DOMContentLoaded", async () => {
  try {
    const s = await getJson("/session.json");
    readOnly = s.authEnabled && !s.admin;
  } catch (e) { /* the server refuses what this user may not do */ }
  document.body.classList.toggle("read-only", readOnly);
  $("readonly-note").hidden = !readOnly;
  $("create-open").hidden = readOnly;
  checkNew = liveCheck($("new-config"), $("new-check"));
  checkEdit = liveCheck($("edit-config"), $("edit-check"));
  editorKeys($("new-config"), create);
  editorKeys($("edit-config"), update);
  $("create-open").addEventListener("click", openCreate);
  $("new-template").addEventListener("change", useTemplate);
  $("create-save").addEventListener("click", create);
  $("create-cancel").addEventListener("click", closeCreate);
  $("back").addEventListener("click", () => { location.hash = ""; });
  $("update").addEventListener("click", update);
  $("toggle").addEventListener("click", toggle);
  $("delete").addEventListener("click", remove);
  window.addEventListener("hashchange", route);
  // Drill's address of a plugin's page, /storage/NAME: the editor of NAME
  const at = /^\/storage\/([^/]+)$/.exec(location.pathname);
  if (at) history.replaceState(null, "", "/storage#/" + at[1]);
  await route();
});
