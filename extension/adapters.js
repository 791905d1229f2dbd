// The site adapters: for each chat site, where its answers are, what says an
// answer is still streaming, its input box and its send button. Loaded by the
// content script, the background and the options page (one table, one place).
//
// answer:    the element that holds one answer of the model (rendered Markdown)
// streaming: present anywhere on the page while an answer is still coming
// input:     the chat's input box; kind "textarea" or "contenteditable"
// send:      the send button, clicked only when the user turned auto-send on
// block:     a code block (default "pre"); lang: its language label, for the
//            sites that write it in a header instead of a language-… class
// skip:      elements inside an answer that are the page's, not the model's
//
// The selectors follow each site's page as it was when written; the
// end-to-end tests (extension/e2e) hold fixture pages with the same structure.
// When a site changes its page, fix its row here and its fixture.
"use strict";

var AUTOCODER_SITES = {
  "chatgpt.com": {
    answer: '[data-message-author-role="assistant"]',
    streaming: 'button[data-testid="stop-button"]',
    input: "#prompt-textarea",
    kind: "contenteditable",
    send: 'button[data-testid="send-button"]',
  },
  "claude.ai": {
    answer: ".font-claude-response",
    streaming: '[data-is-streaming="true"]',
    input: 'div.ProseMirror[contenteditable="true"]',
    kind: "contenteditable",
    send: 'button[aria-label="Send message"]',
  },
  "chat.deepseek.com": {
    answer: ".ds-markdown",
    streaming: 'div[role="button"][aria-label="Stop generating"]',
    input: "textarea#chat-input",
    kind: "textarea",
    send: 'div[role="button"][aria-label="Send message"]',
    block: ".md-code-block",
    lang: ".md-code-block-banner .md-code-block-language",
  },
  "chat.qwen.ai": {
    answer: ".response-message-content",
    streaming: "button.stop-button",
    input: "textarea#chat-input",
    kind: "textarea",
    send: "button#send-message-button",
  },
  "gemini.google.com": {
    answer: "message-content .markdown",
    streaming: 'button[aria-label="Stop response"]',
    input: 'rich-textarea .ql-editor[contenteditable="true"]',
    kind: "contenteditable",
    send: 'button[aria-label="Send message"]',
    block: "code-block",
    lang: ".code-block-decoration > span",
  },
};

// The generic adapter, for a page the user enables in the options: the
// options may override each selector.
var AUTOCODER_GENERIC = {
  answer: '[data-message-author-role="assistant"], .markdown',
  streaming: 'button[aria-label*="Stop" i]',
  input: 'textarea, [contenteditable="true"]',
  kind: "auto",
  send: 'button[type="submit"], button[aria-label*="Send" i]',
};

// autocoderSiteOf is the table entry for a host name: its own, or the
// one of the site it is a subdomain of; null when it is no built-in site.
function autocoderSiteOf(host) {
  for (const name of Object.keys(AUTOCODER_SITES)) {
    if (host === name || host.endsWith("." + name)) return name;
  }
  return null;
}
