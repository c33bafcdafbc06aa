"use strict";
// Options page: every option drillspark accepts (Drill 1.22's: /options.json, and
// /internal_options.json with "internal"), each with a form that POSTs /option/{name}; whether
// it takes effect here and how, or why not, from /options/notes.json (the options registry)
let all = [];
let notes = {};
function render() {
  const f = document.getElementById("filter").value.toLowerCase();
  const onlyApplied = document.getElementById("applied").checked;
  const box = document.getElementById("options");
  box.innerHTML = "";
  const rows = all.filter(o => o.name.toLowerCase().includes(f)).filter(o => !onlyApplied || (notes[o.name] || {}).applies).map(o => {
    const note = notes[o.name] || {};
    const input = o.kind === "BOOLEAN"
      ? el("select", {name: "value"}, ["true", "false"].map(v => el("option", String(o.value) === v ? {selected: ""} : {}, v)))
      : el("input", {name: "value", value: String(o.value), size: 14});
    const here = note.applies
      ? el("td", {class: "applies"}, el("span", {class: "tag"}, note.effect === "server" ? "server" : "applied"), " ", note.note)
      : el("td", {class: "not-applied muted"}, el("span", {class: "tag"}, "no effect here"), " ", note.note || "");
    return el("tr", {id: "option-" + o.name, class: note.applies ? "" : "not-applied"},
      el("td", {class: "name"}, o.name, note.description ? el("div", {class: "muted"}, note.description) : null),
      el("td", {class: "value"}, el("form", {method: "POST", action: "/option/" + o.name, class: "toolbar", style: "margin:0"},
        el("input", {type: "hidden", name: "name", value: o.name}), el("input", {type: "hidden", name: "kind", value: o.kind}),
        el("input", {type: "hidden", name: "csrfToken", value: csrfToken()}),
        input, el("button", {type: "submit"}, "Update"))),
      here, el("td", {}, o.kind), el("td", {}, o.optionScope), el("td", {class: "default"}, o.defaultValue));
  });
  const shown = el("p", {class: "muted"}, rows.length + " of " + all.length + " options; " +
    all.filter(o => (notes[o.name] || {}).applies).length + " take effect here, the others are accepted and shown as Drill shows them");
  box.append(shown, el("table", {class: "options"}, el("thead", {}, el("tr", {}, ["Name", "Value", "Here", "Kind", "Scope", "Default"].map(h => el("th", {}, h)))), el("tbody", {}, rows)));
}
async function load() {
  const internal = document.getElementById("internal").checked;
  all = await getJson(internal ? "/internal_options.json" : "/options.json");
  render();
}
document.addEventListener("DOMContentLoaded", async () => {
  notes = await getJson("/options/notes.json");
  document.getElementById("filter").addEventListener("input", render);
  document.getElementById("applied").addEventListener("change", render);
  document.getElementById("internal").addEventListener("change", load);
  await load();
});
