"use strict";
// Options page: the system options, each with a form that POSTs /option/{name}
let all = [];
function render() {
  const f = document.getElementById("filter").value.toLowerCase();
  const box = document.getElementById("options");
  box.innerHTML = "";
  const rows = all.filter(o => o.name.includes(f)).map(o => {
    const input = o.kind === "BOOLEAN"
      ? el("select", {name: "value"}, ["true", "false"].map(v => el("option", String(o.value) === v ? {selected: ""} : {}, v)))
      : el("input", {name: "value", value: String(o.value), size: 14});
    return el("tr", {id: "option-" + o.name},
      el("td", {}, o.name), el("td", {}, o.kind), el("td", {}, o.optionScope), el("td", {}, o.defaultValue),
      el("td", {}, el("form", {method: "POST", action: "/option/" + o.name, class: "toolbar", style: "margin:0"},
        el("input", {type: "hidden", name: "name", value: o.name}), el("input", {type: "hidden", name: "kind", value: o.kind}),
        el("input", {type: "hidden", name: "csrfToken", value: csrfToken()}),
        input, el("button", {type: "submit"}, "Update"))));
  });
  box.append(el("table", {}, el("thead", {}, el("tr", {}, ["Name", "Kind", "Scope", "Default", "Value"].map(h => el("th", {}, h)))), el("tbody", {}, rows)));
}
document.addEventListener("DOMContentLoaded", async () => {
  all = await getJson("/options.json");
  document.getElementById("filter").addEventListener("input", render);
  render();
});
