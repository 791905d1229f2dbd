// The content script: it reads each complete answer on a chat page, asks
// autocoder bridge (through the background) what the answer would do, and
// puts a panel after each answer that holds instruction blocks, with Apply,
// Dry run and Undo.
//
// The page is not trusted. The content script runs in its own JavaScript
// world (the page cannot reach its variables or functions), never listens to
// the page's messages (no window "message" listener: nothing is relayed from
// the page world), keeps the answer text it previewed and applies exactly
// that text (a page that changes the answer after the preview changes
// nothing), keeps its panel in a closed shadow root (the page can neither
// read nor rewrite what the panel says), and acts only on a click the
// browser marks as the user's (event.isTrusted): a page script's click does
// nothing; Apply takes one only after it has been in sight a moment
// (ARM_MS), so a panel swapped in or brought into sight under the pointer
// gets nothing from the click that was meant for something else. The request it sends names no path and no site: the background
// takes the site from the tab and the repository from the user's options.
"use strict";

(() => {
  // The page's elements are named properties of the window in this world
  // too (DOM clobbering): <div id="__autocoderContent"> or <div
  // id="browser"> must not turn autocoder off on a page, so the mark is
  // checked for true and the API for a real sendMessage.
  if (globalThis.__autocoderContent === true) return;
  globalThis.__autocoderContent = true;

  const real = (o) => o != null && typeof o === "object" && o.runtime != null && typeof o.runtime.sendMessage === "function";
  const api = real(globalThis.browser) ? globalThis.browser : globalThis.chrome;
  // An answer is read once no streaming marker is on the page and the page
  // has been still this long.
  const QUIET_MS = 1000;
  // Apply answers a click only once its button has been in sight this long
  // without a break: a page that swaps the answer (a new panel in the old
  // one's place) or keeps the panel out of sight (display: none, detached,
  // off screen, clipped to nothing) and brings it under the pointer as the
  // user clicks gets nothing from the click. (A panel made transparent or
  // covered by the page is the overlay case, which this cannot see.)
  const ARM_MS = 600;
  const BLOCK_TAGS = new Set([
    "P", "DIV", "SECTION", "ARTICLE", "UL", "OL", "LI", "H1", "H2", "H3", "H4", "H5", "H6",
    "BLOCKQUOTE", "TABLE", "TR", "HR", "DL", "DT", "DD", "FIGURE", "HEADER", "FOOTER",
  ]);

  let conf = null;
  let timer = 0;
  // answer element → {text, panel}: what was read of it, and its panel.
  const seen = new WeakMap();

  function ask(msg) {
    return api.runtime.sendMessage(msg).then(
      (r) => r || { ok: false, outcome: "error", error: "no reply from the extension" },
      (e) => ({ ok: false, outcome: "error", error: String(e && e.message ? e.message : e), hint: "reload the page" })
    );
  }

  // ---- reading an answer ----

  // extract is the answer's Markdown as the model wrote it, as far as the
  // page keeps it: the prose's text, and each code block as a fence with
  // its info string and its code exactly (never the page's header or
  // "Copy code" button).
  function extract(root) {
    const out = [];
    const tail = () => (out.length ? out[out.length - 1] : "\n");
    const newline = () => {
      if (!tail().endsWith("\n")) out.push("\n");
    };
    const walk = (node) => {
      for (const c of node.childNodes) {
        if (c.nodeType === Node.TEXT_NODE) {
          out.push(c.nodeValue);
          continue;
        }
        if (c.nodeType !== Node.ELEMENT_NODE) continue;
        if (c.hasAttribute("data-autocoder-panel")) continue;
        if (c.matches(conf.adapter.block || "pre") || c.tagName === "PRE") {
          newline();
          out.push(fence(c));
          continue;
        }
        const tag = c.tagName;
        if (tag === "BR") {
          out.push("\n");
          continue;
        }
        if (tag === "BUTTON" || tag === "SCRIPT" || tag === "STYLE" || tag === "SVG" || tag === "svg") continue;
        if (tag === "CODE") {
          out.push("`" + c.textContent + "`");
          continue;
        }
        const block = BLOCK_TAGS.has(tag);
        if (block) newline();
        if (tag === "LI") out.push("- ");
        walk(c);
        if (block) newline();
      }
    };
    walk(root);
    return out.join("").replace(/^\n+/, "");
  }

  // fence rebuilds one code block: ```info, the code, ```, with a fence
  // longer than any run of backticks that starts a line of the code.
  function fence(block) {
    const pre = block.tagName === "PRE" ? block : block.querySelector("pre") || block;
    const code = pre.querySelector("code") || pre;
    let info = "";
    for (const el of [code, pre, block]) {
      const m = /(?:^|\s)(?:language|lang)-(\S+)/.exec(el.className && typeof el.className === "string" ? el.className : "");
      if (m) {
        info = m[1];
        break;
      }
    }
    if (!info && conf.adapter.lang) {
      const label = block.querySelector(conf.adapter.lang);
      if (label) info = label.textContent.trim().split(/\s+/)[0] || "";
    }
    let text = code.textContent;
    if (text !== "" && !text.endsWith("\n")) text += "\n";
    let n = 3;
    for (const m of text.matchAll(/^ {0,3}(`{3,})/gm)) n = Math.max(n, m[1].length + 1);
    const f = "`".repeat(n);
    return f + info + "\n" + text + f + "\n";
  }

  // ---- when to read ----

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(check, QUIET_MS);
  }

  function answers() {
    const all = Array.from(document.querySelectorAll(conf.adapter.answer));
    // The outermost of nested matches, and none inside a panel.
    return all.filter((el) => !all.some((o) => o !== el && o.contains(el)));
  }

  function check() {
    if (conf.adapter.streaming && document.querySelector(conf.adapter.streaming)) return; // the page will change again
    for (const el of answers()) {
      const text = extract(el);
      const was = seen.get(el);
      if (was && was.text === text) {
        if (was.panel && !was.panel.host.isConnected) el.after(was.panel.host); // the page re-rendered around it
        continue;
      }
      if (was && was.panel) was.panel.host.remove();
      const entry = { text, panel: null };
      seen.set(el, entry);
      if (text.trim() === "") continue;
      read(el, entry);
    }
  }

  async function read(el, entry) {
    const rep = await ask({ type: "preview", answer: entry.text });
    if (seen.get(el) !== entry) return; // the answer changed meanwhile
    if (rep.outcome === "no_block") return; // no panel under an answer without a block
    if (!rep.ok && !/```/.test(entry.text)) return; // the bridge is away, and there is nothing to apply anyway
    entry.panel = new Panel(entry.text, rep);
    el.after(entry.panel.host);
  }

  // ---- the panel ----

  const STYLE = `
    :host { all: initial; display: block; margin: 8px 0 16px; }
    .box { font: 13px/1.45 system-ui, sans-serif; color: #1f2328; background: #f6f8fa; border: 1px solid #d0d7de;
           border-radius: 8px; padding: 10px 12px; }
    .head { font-weight: 600; margin-bottom: 4px; }
    ul { margin: 4px 0; padding-left: 18px; }
    li { margin: 1px 0; }
    code, pre { font: 12px/1.4 ui-monospace, monospace; }
    pre { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 8px; max-height: 360px; overflow: auto; white-space: pre; }
    .add { color: #1a7f37; } .del { color: #cf222e; }
    .bar { display: flex; gap: 8px; margin-top: 8px; }
    button { font: 600 13px system-ui, sans-serif; padding: 4px 12px; border-radius: 6px; border: 1px solid #d0d7de;
             background: #fff; color: #1f2328; cursor: pointer; }
    button.apply { background: #1f883d; color: #fff; border-color: #1a7f37; }
    button:disabled { opacity: .5; cursor: default; }
    .msg { margin-top: 6px; } .err { color: #cf222e; } .hint { color: #59636e; }
  `;

  function h(tag, props, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") el.className = v;
      else el.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) el.append(k);
    return el;
  }

  function stepsOf(report) {
    return report && Array.isArray(report.results) ? report.results : [];
  }

  function describeStep(r, i) {
    const ops = Array.isArray(r.ops) ? r.ops : [];
    const what = ops.map((o) => o.kind + (o.path ? " " + o.path : "") + (o.to ? " → " + o.to : "")).join(", ");
    const progs = Array.isArray(r.programs) ? r.programs.map((p) => "run " + p.name).join(", ") : "";
    let s = "step " + (r.step_id || i + 1) + ": " + ([what, progs].filter(Boolean).join(", ") || "(no operation)");
    if (r.outcome && r.outcome !== "planned") s += " — " + r.outcome.replace(/_/g, " ");
    if (r.commit) s += " — commit " + r.commit.slice(0, 12);
    if (r.error) s += " — " + r.error;
    return s;
  }

  class Panel {
    constructor(answer, preview) {
      this.answer = answer; // the text previewed: Apply applies exactly this
      this.commits = [];
      this.busy = false;
      this.host = document.createElement("div");
      this.host.setAttribute("data-autocoder-panel", "");
      const root = this.host.attachShadow({ mode: "closed" });
      root.append(h("style", {}, STYLE));
      this.box = h("div", { class: "box" });
      root.append(this.box);
      this.head = h("div", { class: "head" });
      this.list = h("ul");
      this.files = h("div");
      this.diff = h("pre");
      this.diff.hidden = true;
      this.msg = h("div", { class: "msg" });
      this.buttons = {
        apply: h("button", { type: "button", class: "apply" }, "Apply"),
        dry: h("button", { type: "button" }, "Dry run"),
        undo: h("button", { type: "button" }, "Undo"),
      };
      this.buttons.undo.disabled = true;
      this.armed = false;
      this.blocked = false;
      this.armTimer = 0;
      this.box.append(this.head, this.files, this.list, h("div", { class: "bar" }, this.buttons.apply, this.buttons.dry, this.buttons.undo), this.msg, this.diff);
      this.on(this.buttons.apply, () => this.apply());
      this.on(this.buttons.dry, () => this.dryRun());
      this.on(this.buttons.undo, () => this.undo());
      this.showPreview(preview);
      this.buttons.apply.disabled = true;
      new IntersectionObserver((entries) => {
        clearTimeout(this.armTimer);
        this.arm(false);
        if (entries[entries.length - 1].isIntersecting) this.armTimer = setTimeout(() => this.arm(true), ARM_MS);
      }).observe(this.buttons.apply);
    }

    // arm lets Apply answer clicks, or not (see ARM_MS).
    arm(on) {
      this.armed = on;
      if (!this.busy) this.buttons.apply.disabled = !on || this.blocked;
    }

    // on runs act for a click of the user's only: a click a page script
    // makes (dispatchEvent, element.click()) is not trusted and does nothing.
    on(button, act) {
      button.addEventListener("click", (ev) => {
        if (!ev.isTrusted || this.busy || (button === this.buttons.apply && !this.armed)) return;
        this.busy = true;
        for (const b of Object.values(this.buttons)) b.disabled = true;
        Promise.resolve(act()).finally(() => {
          this.busy = false;
          this.buttons.apply.disabled = !this.armed;
          this.buttons.dry.disabled = false;
          this.buttons.undo.disabled = this.commits.length === 0;
        });
      });
    }

    say(rep) {
      this.msg.replaceChildren();
      if (rep.message) this.msg.append(h("div", {}, rep.message));
      if (rep.error) this.msg.append(h("div", { class: "err" }, rep.error));
      if (rep.hint) this.msg.append(h("div", { class: "hint" }, "hint: " + rep.hint));
      if (rep.truncated) this.msg.append(h("div", { class: "hint" }, rep.truncated));
    }

    showSteps(rep) {
      this.list.replaceChildren(...stepsOf(rep.report).map((r, i) => h("li", {}, describeStep(r, i))));
    }

    showPreview(rep) {
      const s = rep.summary;
      this.head.textContent = "autocoder" + (rep.repository ? " → " + rep.repository : "") + (s ? ": " + s.steps + " step(s), " + s.files.length + " file(s), " : "");
      if (s) this.head.append(h("span", { class: "add" }, "+" + s.added), " ", h("span", { class: "del" }, "-" + s.removed));
      this.files.replaceChildren(...(s ? s.files.map((f) => h("code", {}, f)).flatMap((c, i) => (i ? [", ", c] : [c])) : []));
      this.showSteps(rep);
      this.diff.textContent = rep.patch || "";
      this.say(rep);
      this.blocked = !rep.ok;
      if (!rep.ok) this.buttons.apply.disabled = true;
    }

    async dryRun() {
      const rep = await ask({ type: "preview", answer: this.answer });
      this.showPreview(rep);
      this.diff.hidden = false;
      if (!rep.patch) this.diff.textContent = "(the dry run changes no file)";
    }

    async apply() {
      const rep = await ask({ type: "apply", answer: this.answer });
      this.diff.hidden = true;
      this.say(rep);
      if (rep.outcome === "already_applied") {
        this.commits = rep.commits || [];
        return; // nothing changed, and the feedback was given already
      }
      if (rep.report) this.showSteps(rep);
      if (rep.commits && rep.commits.length) this.commits = rep.commits;
      if (rep.ok && rep.feedback) this.giveFeedback(rep.feedback);
    }

    async undo() {
      const rep = await ask({ type: "undo", commits: this.commits });
      this.say(rep);
      if (rep.ok) this.commits = [];
    }

    // giveFeedback puts the feedback in the chat's input box, as if the
    // user had typed it; it is sent only when the user turned auto-send on
    // for this site.
    giveFeedback(text) {
      const input = document.querySelector(conf.adapter.input);
      if (!input) {
        this.msg.append(h("div", { class: "err" }, "the chat's input box was not found: the feedback is below, copy it"), h("pre", {}, text));
        return;
      }
      const kind = conf.adapter.kind === "auto" ? (input.isContentEditable ? "contenteditable" : "textarea") : conf.adapter.kind;
      if (kind === "textarea") {
        // The prototype's setter, as typing would: frameworks that track
        // the value (React) then see the change in the input event.
        const proto = input instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
        Object.getOwnPropertyDescriptor(proto, "value").set.call(input, text);
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.dispatchEvent(new Event("change", { bubbles: true }));
      } else {
        input.focus();
        const sel = window.getSelection();
        sel.selectAllChildren(input);
        sel.collapseToEnd();
        document.execCommand("insertText", false, text);
      }
      this.msg.append(h("div", { class: "hint" }, conf.autoSend ? "feedback sent (auto-send is on for this site)" : "the feedback is in the input box: read it, then send it"));
      if (conf.autoSend) {
        const send = document.querySelector(conf.adapter.send);
        if (send) send.click();
      }
    }
  }

  // ---- start ----

  ask({ type: "settings" }).then((c) => {
    if (!c || !c.enabled || !c.adapter) return;
    conf = c;
    new MutationObserver(schedule).observe(document.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
    schedule();
  });
})();
