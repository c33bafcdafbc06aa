"use strict";
// Logs: the server's recent log (/logs.json, /log/{name}/content.json; admins only), newest last
let lines = [];
function show() {
  const needle = document.getElementById("log-search").value.toLowerCase();
  const kept = needle ? lines.filter(l => l.toLowerCase().includes(needle)) : lines;
  document.getElementById("log-lines").textContent = kept.join("\n");
  document.getElementById("log-info").textContent = kept.length + " of " + lines.length + " lines";
}
async function load() {
  const box = document.getElementById("logs");
  box.innerHTML = "";
  try {
    const logs = await getJson("/logs.json");
    box.append(el("table", {}, el("thead", {}, el("tr", {}, ["Log", "Size", "Last modified", ""].map(h => el("th", {}, h)))),
      el("tbody", {}, logs.map(l => el("tr", {}, el("td", {}, l.name), el("td", {}, l.size), el("td", {}, l.lastModified),
        el("td", {}, el("a", {href: "/log/" + encodeURIComponent(l.name) + "/download", class: "download"}, "Download")))))));
    if (!logs.length) return;
    const content = await getJson("/log/" + encodeURIComponent(logs[0].name) + "/content.json");
    lines = content.lines;
    show();
  } catch (e) { box.append(el("div", {class: "error", id: "log-error"}, String(e.message || e))); }
}
document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("refresh").addEventListener("click", load);
  document.getElementById("log-search").addEventListener("input", show);
  load();
});
