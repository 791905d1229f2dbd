// The background (a service worker in Chromium, a background script in
// Firefox): it holds the one connection to autocoder bridge, the native
// host, and is the only part that talks to it.
//
// What it trusts: only messages from this extension's own content scripts
// (in a tab's top frame) and its own options page. The site a request is for
// is the tab's host as the browser reports it (sender.url), never a field a
// content script sends; the repository is the one the user chose for that
// site in the options, never a path. A web page has no way to reach this
// code: the extension declares no externally_connectable, and the content
// script relays nothing from the page world.
"use strict";

if (typeof importScripts === "function" && typeof AUTOCODER_SITES === "undefined") {
  importScripts("adapters.js");
}

const api = globalThis.browser ?? globalThis.chrome;
const HOST = "dev.autocoder.bridge";

// ---- settings ----

// loadSettings is the user's options: per site enabled, autoSend and
// repository; and the generic pages the user enabled.
async function loadSettings() {
  const got = await api.storage.local.get("settings");
  const s = got.settings || {};
  return { sites: s.sites || {}, generic: Array.isArray(s.generic) ? s.generic : [] };
}

// siteFor is what the extension does on the page at url: its adapter,
// whether it is on, auto-send and the repository; null when it is no page
// of the extension's.
async function siteFor(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return null;
  const settings = await loadSettings();
  const name = autocoderSiteOf(u.hostname);
  if (name) {
    const mine = settings.sites[name] || {};
    return {
      site: name,
      enabled: mine.enabled !== false, // the five built-in sites are on by default
      autoSend: mine.autoSend === true, // off by default
      repository: typeof mine.repository === "string" ? mine.repository : "",
      adapter: AUTOCODER_SITES[name],
    };
  }
  const g = settings.generic.find((e) => e && e.origin === u.origin);
  if (!g) return null;
  const adapter = Object.assign({}, AUTOCODER_GENERIC);
  for (const k of ["answer", "streaming", "input", "send"]) {
    if (typeof g[k] === "string" && g[k].trim() !== "") adapter[k] = g[k];
  }
  const mine = settings.sites[u.host] || {};
  return {
    site: u.host,
    enabled: true,
    autoSend: mine.autoSend === true,
    repository: typeof mine.repository === "string" ? mine.repository : "",
    adapter,
  };
}

// ---- the native host ----

let port = null;
let seq = 0;
const pending = new Map();

function unreachable(why) {
  return {
    ok: false,
    outcome: "error",
    error: "autocoder bridge is not reachable: " + why,
    hint: "install it in a terminal: autocoder bridge install, and register a repository: autocoder bridge add PATH; then reload this page",
  };
}

function connect() {
  const p = api.runtime.connectNative(HOST);
  p.onMessage.addListener((reply) => {
    const done = reply && pending.get(reply.id);
    if (!done) return;
    pending.delete(reply.id);
    done(reply);
  });
  p.onDisconnect.addListener((gone) => {
    const err = (api.runtime.lastError && api.runtime.lastError.message) || (gone && gone.error && gone.error.message) || "it ended";
    if (port === p) port = null;
    for (const done of pending.values()) done(unreachable(err));
    pending.clear();
  });
  return p;
}

// ask sends one request to the host and resolves with its reply.
function ask(req) {
  return new Promise((resolve) => {
    if (!port) port = connect();
    const id = "r" + ++seq;
    pending.set(id, resolve);
    try {
      port.postMessage(Object.assign({}, req, { id }));
    } catch (e) {
      pending.delete(id);
      port = null;
      resolve(unreachable(String(e && e.message ? e.message : e)));
    }
  });
}

function refused(msg, hint) {
  return { ok: false, outcome: "refused", error: msg, hint: hint || "" };
}

// undo takes back the steps of one answer: only when they are the newest
// steps of the work branch, so that a panel's Undo never drops a later
// answer's work.
async function undo(base, commits) {
  if (!Array.isArray(commits) || commits.length === 0 || !commits.every((c) => typeof c === "string" && /^[0-9a-f]{40,64}$/.test(c))) {
    return refused("there is nothing of this answer to undo", "apply it first");
  }
  const st = await ask(Object.assign({ type: "status" }, base));
  if (!st.ok) return st;
  let steps = [];
  try {
    steps = (JSON.parse(JSON.stringify(st.report)) || {}).steps || [];
  } catch {
    steps = [];
  }
  const newest = steps.slice(0, commits.length).map((s) => s.commit);
  const want = commits.slice().reverse();
  if (newest.length !== want.length || newest.some((c, i) => c !== want[i])) {
    return refused(
      "this answer's steps are no longer the newest on the work branch; undo here would take back other work",
      "undo in a terminal: autocoder log shows the steps, autocoder undo N takes back the newest N"
    );
  }
  return ask(Object.assign({ type: "undo", steps: commits.length }, base));
}

// ---- messages from the extension's own pages ----

async function handle(msg, sender) {
  if (!msg || typeof msg !== "object" || sender.id !== api.runtime.id) return null;
  const own = api.runtime.getURL("");
  if (sender.url && sender.url.startsWith(own)) {
    // The options page.
    if (msg.type === "repositories") return ask({ type: "repositories" });
    return refused("unknown request");
  }
  if (!sender.tab || sender.frameId !== 0) return null;
  const site = await siteFor(sender.url || (sender.tab && sender.tab.url) || "");
  if (msg.type === "settings") {
    if (!site || !site.enabled) return { enabled: false };
    return { enabled: true, site: site.site, autoSend: site.autoSend, adapter: site.adapter };
  }
  if (!site || !site.enabled) return refused("autocoder is off on this site", "turn it on in the extension's options");
  const base = { site: site.site };
  if (site.repository) base.repository = site.repository;
  switch (msg.type) {
    case "preview":
    case "apply":
      if (typeof msg.answer !== "string" || msg.answer === "") return refused("no answer");
      return ask(Object.assign({ type: msg.type, answer: msg.answer }, base));
    case "undo":
      return undo(base, msg.commits);
    case "status":
      return ask(Object.assign({ type: "status" }, base));
  }
  return refused("unknown request");
}

api.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  handle(msg, sender).then(sendResponse, (e) => sendResponse(refused(String(e && e.message ? e.message : e))));
  return true; // the answer comes later
});

// ---- the generic adapter's pages ----

// registerGeneric makes the content script run on the pages the user
// enabled in the options (and granted the browser's permission for).
async function registerGeneric() {
  if (!api.scripting || !api.scripting.registerContentScripts) return;
  const { generic } = await loadSettings();
  try {
    const old = await api.scripting.getRegisteredContentScripts();
    if (old.length) await api.scripting.unregisterContentScripts({ ids: old.map((s) => s.id) });
  } catch {
    // none registered
  }
  const scripts = [];
  for (const g of generic) {
    let u;
    try {
      u = new URL(g.origin);
    } catch {
      continue;
    }
    const matches = [u.origin + "/*"];
    if (!(await api.permissions.contains({ origins: matches }))) continue;
    scripts.push({ id: "generic-" + scripts.length, matches, js: ["adapters.js", "content.js"], runAt: "document_idle" });
  }
  if (scripts.length) await api.scripting.registerContentScripts(scripts);
}

api.storage.onChanged.addListener((changes) => {
  if (changes.settings) registerGeneric();
});
api.runtime.onInstalled.addListener(() => registerGeneric());
api.runtime.onStartup.addListener(() => registerGeneric());
