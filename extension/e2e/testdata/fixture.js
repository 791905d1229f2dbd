// A chat page, as far as the extension sees one: fixture.answer(markdown)
// streams an answer in chunks, rendered as the site renders Markdown
// (SITE, set by the page, says how its code blocks and markers look), with
// the site's "stop" marker shown while it streams. The send button counts
// its clicks in window.sent; the input counts its input events.
"use strict";

window.sent = 0;
window.inputEvents = 0;

const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// render is the HTML of a Markdown prefix: paragraphs and ``` fences (an
// unclosed fence is a code block still coming).
function render(md) {
  const out = [];
  const lines = md.split("\n");
  let code = null;
  let lang = "";
  let para = [];
  const flush = () => {
    if (para.length) out.push("<p>" + esc(para.join(" ")) + "</p>");
    para = [];
  };
  for (const line of lines) {
    if (code === null) {
      const m = /^```(\S*)$/.exec(line);
      if (m) {
        flush();
        code = [];
        lang = m[1];
      } else if (line.trim() === "") {
        flush();
      } else {
        para.push(line);
      }
    } else if (line === "```") {
      out.push(SITE.code(lang, code.join("\n") + "\n"));
      code = null;
    } else {
      code.push(line);
    }
  }
  flush();
  if (code !== null) out.push(SITE.code(lang, code.join("\n")));
  return out.join("");
}

// A highlighter's spans, as the sites put around keywords.
function highlight(code) {
  return esc(code).replace(/\b(def|return|import|from|print)\b/g, '<span class="hljs-keyword">$1</span>');
}

const fixture = {
  // answer streams md in chunks; pauseAt: a chunk index after which the
  // stream stalls (marker still up) for pauseMs.
  async answer(md, { chunks = 8, delay = 40, pauseAt = -1, pauseMs = 0 } = {}) {
    const body = SITE.newAnswer();
    SITE.streaming(true);
    const step = Math.ceil(md.length / chunks);
    for (let i = 0; i < chunks; i++) {
      body.innerHTML = render(md.slice(0, (i + 1) * step));
      await new Promise((r) => setTimeout(r, i === pauseAt ? pauseMs : delay));
    }
    body.innerHTML = render(md);
    SITE.streaming(false);
  },
  inputText() {
    const el = document.querySelector(SITE.input);
    return el.value !== undefined ? el.value : el.innerText;
  },
};
window.fixture = fixture;

document.addEventListener("input", () => window.inputEvents++, true);
document.addEventListener("click", (e) => {
  if (e.target.closest(SITE.send)) window.sent++;
}, true);
