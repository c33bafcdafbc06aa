// drillspark web console: shared helpers (no framework, no build step)
"use strict";

const PAGES = [["/", "Overview"], ["/query", "Query"], ["/profiles", "Profiles"],
               ["/storage", "Storage"], ["/options", "Options"], ["/status", "Metrics"],
               ["/logs", "Logs"]];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// The page's CSRF token (the server writes it into every page's <head>): forms carry it as
// csrfToken, and send() as the X-CSRF-Token header, which no page of another site can set.
function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

// A request that changes something on the server (POST, enable, cancel, log out).
function send(path, options) {
  const o = Object.assign({credentials: "same-origin"}, options || {});
  o.headers = Object.assign({"X-CSRF-Token": csrfToken()}, o.headers || {});
  return fetch(path, o);
}

async function getJson(path) {
  const r = await fetch(path, {credentials: "same-origin", headers: {Accept: "application/json"}});
  const body = await r.json().catch(() => ({errorMessage: "HTTP " + r.status}));
  if (!r.ok) throw new Error(body.errorMessage || ("HTTP " + r.status));
  return body;
}

function nav() {
  const here = location.pathname.replace(/\/$/, "") || "/";
  const bar = el("nav", {}, el("span", {class: "brand"}, "drillspark"),
    PAGES.map(([href, name]) => el("a", {href, class: (here === href || (href !== "/" && here.startsWith(href))) ? "active" : ""}, name)));
  const user = el("span", {class: "user"});
  bar.append(user);
  document.body.prepend(bar);
  getJson("/session.json").then(s => {
    user.textContent = s.authEnabled ? (s.user + (s.admin ? " (admin)" : "") + " · ") : "no authentication";
    if (s.authEnabled) user.append(el("a", {href: "/logout", onclick: async e => {
      e.preventDefault(); await send("/logout"); location.href = "/login";
    }}, "Log out"));
  }).catch(() => {});
}

function cell(value, type) {
  if (value === null || value === undefined) return el("td", {class: "null"}, "null");
  if (typeof value === "object") return el("td", {}, JSON.stringify(value));
  const numeric = /INT|FLOAT|DECIMAL|BIGINT/.test(type || "");
  if (type === "DATE" && typeof value === "number") value = new Date(value).toISOString().slice(0, 10);
  else if (type === "TIMESTAMP" && typeof value === "number") value = new Date(value).toISOString().replace("T", " ").replace("Z", "");
  else if (type === "TIME" && typeof value === "number") value = new Date(value).toISOString().slice(11, 23);
  return el("td", {class: numeric ? "num" : ""}, String(value));
}

function fmtTime(ms) { return ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : ""; }

document.addEventListener("DOMContentLoaded", nav);
