// The options page: per site on/off, auto-send (off by default) and the
// repository (by name, as autocoder bridge list shows it); and the other
// pages the generic adapter runs on.
"use strict";

const api = globalThis.browser ?? globalThis.chrome;

async function load() {
  const got = await api.storage.local.get("settings");
  const s = got.settings || {};
  return { sites: s.sites || {}, generic: Array.isArray(s.generic) ? s.generic : [] };
}

async function save(settings) {
  await api.storage.local.set({ settings });
}

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  Object.assign(e, props || {});
  e.append(...kids);
  return e;
}

async function render() {
  const settings = await load();
  const repos = await api.runtime.sendMessage({ type: "repositories" });
  const names = repos && repos.ok ? repos.repositories.map((r) => r.name) : [];
  document.getElementById("bridge").textContent = repos && repos.ok
    ? "autocoder bridge: registered repositories: " + (names.join(", ") || "none (autocoder bridge add PATH)")
    : "autocoder bridge: " + ((repos && repos.error) || "not reachable") + (repos && repos.hint ? " (hint: " + repos.hint + ")" : "");

  const rows = [];
  const hosts = Object.keys(AUTOCODER_SITES).concat(settings.generic.map((g) => new URL(g.origin).host));
  for (const host of hosts) {
    const mine = settings.sites[host] || {};
    const builtin = host in AUTOCODER_SITES;
    const on = el("input", { type: "checkbox", checked: builtin ? mine.enabled !== false : true, disabled: !builtin });
    const auto = el("input", { type: "checkbox", checked: mine.autoSend === true });
    const repo = el("select", {}, el("option", { value: "", textContent: names.length === 1 ? names[0] + " (the only one)" : "(choose)" }),
      ...names.map((n) => el("option", { value: n, textContent: n, selected: mine.repository === n })));
    const update = async () => {
      const s = await load();
      s.sites[host] = { enabled: on.checked, autoSend: auto.checked, repository: repo.value };
      await save(s);
    };
    on.addEventListener("change", update);
    auto.addEventListener("change", update);
    repo.addEventListener("change", update);
    rows.push(el("tr", {}, el("td", { textContent: host }), el("td", {}, on), el("td", {}, auto), el("td", {}, repo)));
  }
  document.getElementById("sites").replaceChildren(...rows);

  document.getElementById("generic").replaceChildren(...settings.generic.map((g, i) => {
    const sel = el("input", { type: "text", value: g.answer || "" });
    sel.addEventListener("change", async () => {
      const s = await load();
      s.generic[i].answer = sel.value;
      await save(s);
    });
    const rm = el("button", { type: "button", textContent: "Remove" });
    rm.addEventListener("click", async () => {
      const s = await load();
      s.generic.splice(i, 1);
      await save(s);
      await api.permissions.remove({ origins: [g.origin + "/*"] });
      render();
    });
    return el("tr", {}, el("td", { textContent: g.origin }), el("td", {}, sel), el("td", {}, rm));
  }));
}

document.getElementById("add").addEventListener("click", async () => {
  const status = document.getElementById("status");
  let origin;
  try {
    const u = new URL(document.getElementById("origin").value.trim());
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("not a web page");
    origin = u.origin;
  } catch (e) {
    status.textContent = "not an origin: write it as https://chat.example.com";
    return;
  }
  // Asked from this click: the browser shows its own prompt.
  const granted = await api.permissions.request({ origins: [origin + "/*"] });
  if (!granted) {
    status.textContent = "the browser did not allow the extension on " + origin;
    return;
  }
  const s = await load();
  if (!s.generic.some((g) => g.origin === origin)) s.generic.push({ origin });
  await save(s);
  status.textContent = "enabled on " + origin + ": reload its tabs";
  render();
});

render();
