// The exported session's viewer (embedded as text after markdown.js; runs in the
// reader's browser). It reads the session JSON from #session-data, draws the tree
// in the sidebar and one branch — the active one first — in the main column.
// Everything is built with DOM calls and textContent: no message text is ever
// parsed as HTML. Long sessions stay responsive: messages are added in chunks
// between frames, and long outputs are folded and only filled in when opened.

const data = JSON.parse(document.getElementById("session-data").textContent);
const entries = Array.isArray(data.entries) ? data.entries : [];

// The theme: ?theme=light|dark when given, else the reader's system setting, followed live.
const themeParam = new URLSearchParams(location.search).get("theme");
const systemDark = matchMedia("(prefers-color-scheme: dark)");
const applyTheme = () => {
  document.documentElement.dataset.theme = themeParam === "light" || themeParam === "dark" ? themeParam : systemDark.matches ? "dark" : "light";
};
applyTheme();
systemDark.addEventListener("change", applyTheme);

// ---------------------------------------------------------------------------
// The tree

const byId = new Map();
const childrenOf = new Map();
const labels = new Map();
for (const entry of entries) {
  if (!entry || typeof entry.id !== "string") continue;
  byId.set(entry.id, entry);
}
for (const entry of byId.values()) {
  const parent = entry.parentId != null && byId.has(entry.parentId) && entry.parentId !== entry.id ? entry.parentId : null;
  if (!childrenOf.has(parent)) childrenOf.set(parent, []);
  childrenOf.get(parent).push(entry);
  if (entry.type === "label") {
    if (entry.label) labels.set(entry.targetId, entry.label);
    else labels.delete(entry.targetId);
  }
}
const children = (id) => childrenOf.get(id) || [];
const activeLeafId = data.leafId && byId.has(data.leafId) ? data.leafId : null;

function pathTo(id) {
  const path = [];
  const seen = new Set();
  for (let entry = byId.get(id); entry && !seen.has(entry.id); entry = entry.parentId != null ? byId.get(entry.parentId) : undefined) {
    seen.add(entry.id);
    path.push(entry);
  }
  return path.reverse();
}

const activePath = activeLeafId ? pathTo(activeLeafId) : [];
const activeIds = new Set(activePath.map((entry) => entry.id));

/** The leaf a click on `id` shows: the active one when it lies below, else the newest descendant. */
function leafBelow(id) {
  if (activeIds.has(id)) return activeLeafId;
  let current = id;
  for (let next = children(current); next.length > 0; next = children(current)) current = next[next.length - 1].id;
  return current;
}

// ---------------------------------------------------------------------------
// Small helpers

// el(tag, className, text) comes from markdown.js.

const textOf = (content) => {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((part) => part && part.type === "text").map((part) => part.text).join("\n");
};

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|bmp|avif)$/;
function imageNode(part) {
  if (!part || typeof part.data !== "string" || !IMAGE_TYPES.test(part.mimeType)) return el("span", "muted", "[image]");
  const img = el("img", "inline-image");
  img.alt = "image (" + part.mimeType + ")";
  img.loading = "lazy";
  img.src = "data:" + part.mimeType + ";base64," + part.data;
  return img;
}

function contentNodes(content) {
  const out = document.createDocumentFragment();
  if (typeof content === "string") {
    out.appendChild(markdownBlock(content));
    return out;
  }
  for (const part of Array.isArray(content) ? content : []) {
    if (part.type === "text") out.appendChild(markdownBlock(part.text));
    else if (part.type === "image") out.appendChild(imageNode(part));
  }
  return out;
}

function markdownBlock(text) {
  const div = el("div", "markdown");
  div.appendChild(renderMarkdown(text || ""));
  return div;
}

const numberFormat = new Intl.NumberFormat("en");
const fmt = (n) => numberFormat.format(Math.round(n || 0));
const money = (n) => "$" + (n || 0).toFixed(n >= 1 ? 2 : 4);

function time(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString();
}

function oneLine(text, max) {
  const line = String(text || "").replace(/\s+/g, " ").trim();
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

const countLines = (text) => {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
};

/**
 * Text shown in a <pre>: as is when short; else folded in a <details> whose
 * body is only built when first opened, so a 5 MB output costs nothing unread.
 */
function foldedText(text, options = {}) {
  const { lang, label = "Output", openLines = 12, className = "output" } = options;
  const value = String(text || "");
  const lines = countLines(value.replace(/\n$/, ""));
  const makePre = () => {
    const pre = el("pre", className);
    if (lang) pre.appendChild(highlightCode(value, lang));
    else pre.textContent = value;
    return pre;
  };
  if (lines <= openLines && value.length < 4000) return makePre();
  const details = el("details", "fold");
  const summary = el("summary", "", `${label} — ${fmt(lines)} lines`);
  const preview = el("span", "fold-preview", oneLine(value.slice(0, 200), 90));
  summary.appendChild(preview);
  details.appendChild(summary);
  details.addEventListener("toggle", function fill() {
    if (!details.open) return;
    details.removeEventListener("toggle", fill);
    details.appendChild(makePre());
  });
  return details;
}

// ---------------------------------------------------------------------------
// Messages

function messageShell(entry, kind, title) {
  const li = el("li", "entry " + kind);
  li.id = "entry-" + entry.id;
  const head = el("div", "entry-head");
  head.appendChild(el("span", "entry-title", title));
  const label = labels.get(entry.id);
  if (label) head.appendChild(el("span", "badge label", label));
  const when = time(entry.timestamp);
  if (when) head.appendChild(el("time", "entry-time", when));
  li.appendChild(head);
  return li;
}

function eventLine(entry, text, kind) {
  const li = el("li", "entry event " + (kind || ""));
  li.id = "entry-" + entry.id;
  li.appendChild(el("span", "event-text", text));
  const label = labels.get(entry.id);
  if (label) li.appendChild(el("span", "badge label", label));
  return li;
}

function usageLine(message) {
  const usage = message.usage;
  if (!usage) return undefined;
  const parts = [`${fmt(usage.input)} in`, `${fmt(usage.output)} out`];
  if (usage.cacheRead) parts.push(`${fmt(usage.cacheRead)} cache read`);
  if (usage.cacheWrite) parts.push(`${fmt(usage.cacheWrite)} cache write`);
  if (usage.cost && usage.cost.total) parts.push(money(usage.cost.total));
  return el("span", "usage", parts.join(" · "));
}

function renderAssistant(entry, message, results) {
  const li = messageShell(entry, "assistant", "Assistant");
  const head = li.firstChild;
  if (message.model) head.insertBefore(el("span", "badge model", (message.provider ? message.provider + "/" : "") + message.model), head.querySelector(".entry-time"));
  const usage = usageLine(message);
  if (usage) head.insertBefore(usage, head.querySelector(".entry-time"));
  const body = el("div", "entry-body");
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (block.type === "text") body.appendChild(markdownBlock(block.text));
    else if (block.type === "thinking") body.appendChild(thinkingBlock(block));
    else if (block.type === "toolCall") body.appendChild(toolCard(block, results.get(block.id)));
  }
  if (message.stopReason === "error" || message.stopReason === "aborted" || message.stopReason === "length") {
    const note = message.stopReason === "aborted" ? "Aborted" : message.stopReason === "length" ? "Stopped: output length limit" : "Error";
    body.appendChild(el("div", "stop-note " + message.stopReason, message.errorMessage ? `${note}: ${message.errorMessage}` : note));
  }
  li.appendChild(body);
  return li;
}

function thinkingBlock(block) {
  const text = block.thinking || (block.redacted ? "(redacted)" : "");
  const details = el("details", "thinking");
  const summary = el("summary", "", "Thinking");
  summary.appendChild(el("span", "fold-preview", oneLine(text.slice(0, 200), 80)));
  details.appendChild(summary);
  details.addEventListener("toggle", function fill() {
    if (!details.open) return;
    details.removeEventListener("toggle", fill);
    details.appendChild(el("div", "thinking-text", text));
  });
  return details;
}

function argString(args, key) {
  return args && typeof args[key] === "string" ? args[key] : undefined;
}

/** A tool call and its result: what the tool was asked, and what it answered. */
function toolCard(call, resultEntry) {
  const args = call.arguments && typeof call.arguments === "object" ? call.arguments : {};
  const result = resultEntry && resultEntry.message;
  const status = !result ? "pending" : result.isError ? "error" : "ok";
  const card = el("div", "tool tool-" + status);
  card.dataset.tool = call.name;
  if (resultEntry) card.id = "entry-" + resultEntry.id;
  const head = el("div", "tool-head");
  head.appendChild(el("span", "tool-name", call.name));
  const path = argString(args, "path") || argString(args, "file_path");
  const resultText = result ? textOf(result.content) : "";

  if (call.name === "bash") {
    const command = el("pre", "tool-command");
    command.appendChild(el("span", "prompt", "$ "));
    command.appendChild(highlightCode(argString(args, "command") || "", "sh"));
    card.appendChild(head);
    card.appendChild(command);
    if (result) {
      const exit = /Command exited with code (-?\d+)\s*$/.exec(resultText);
      const code = exit ? Number(exit[1]) : result.isError ? undefined : 0;
      head.appendChild(el("span", "badge exit " + (code === 0 ? "ok" : "error"), code === undefined ? "failed" : `exit ${code}`));
    }
  } else {
    if (path) head.appendChild(el("span", "tool-path", path));
    if (call.name === "read" && (args.offset || args.limit)) {
      const from = args.offset || 1;
      head.appendChild(el("span", "muted", args.limit ? `lines ${from}–${from + args.limit - 1}` : `from line ${from}`));
    }
    card.appendChild(head);
    if (call.name === "edit") card.appendChild(editDiff(args, result));
    else if (call.name === "write") card.appendChild(foldedText(argString(args, "content") || "", { lang: languageOfPath(path), label: "Content", className: "output code" }));
    else if (!["read", "ls", "find", "grep"].includes(call.name) || !path) {
      const keys = Object.keys(args).filter((key) => !(key === "path" && path));
      if (keys.length > 0) {
        const shown = {};
        for (const key of keys) shown[key] = args[key];
        card.appendChild(foldedText(JSON.stringify(shown, null, 2), { lang: "json", label: "Arguments", className: "args" }));
      }
    }
  }

  if (result) {
    const showOutput = !(call.name === "edit" && !result.isError);
    if (showOutput && resultText) {
      const lang = call.name === "read" && !result.isError ? languageOfPath(path) : undefined;
      card.appendChild(foldedText(resultText, { lang, className: "output" + (result.isError ? " error" : "") }));
    }
    for (const part of Array.isArray(result.content) ? result.content : []) if (part.type === "image") card.appendChild(imageNode(part));
  } else {
    card.appendChild(el("div", "muted", "No result recorded."));
  }
  return card;
}

function editDiff(args, result) {
  const fromResult = result && result.details && typeof result.details.diff === "string" ? result.details.diff : undefined;
  let diff = fromResult;
  if (diff === undefined) {
    const edits = Array.isArray(args.edits) ? args.edits : typeof args.oldText === "string" ? [{ oldText: args.oldText, newText: args.newText }] : [];
    diff = edits
      .map((edit) => [
        ...String(edit.oldText || "").split("\n").map((line) => "-" + line),
        ...String(edit.newText || "").split("\n").map((line) => "+" + line),
      ].join("\n"))
      .join("\n…\n");
  }
  const pre = el("pre", "diff");
  for (const line of diff.split("\n")) {
    const kind = line[0] === "+" ? "add" : line[0] === "-" ? "del" : "ctx";
    pre.appendChild(el("span", "diff-line diff-" + kind, line + "\n"));
  }
  return pre;
}

function renderToolResultAlone(entry, message) {
  const li = messageShell(entry, "tool-result", "Tool result");
  li.firstChild.appendChild(el("span", "badge", message.toolName || "tool"));
  const body = el("div", "entry-body");
  body.appendChild(foldedText(textOf(message.content), { className: "output" + (message.isError ? " error" : "") }));
  for (const part of Array.isArray(message.content) ? message.content : []) if (part.type === "image") body.appendChild(imageNode(part));
  li.appendChild(body);
  return li;
}

function renderBashExecution(entry, message) {
  const li = messageShell(entry, "bash-run", "Shell command");
  const head = li.firstChild;
  const code = message.cancelled ? "cancelled" : message.exitCode === undefined || message.exitCode === null ? "no exit code" : `exit ${message.exitCode}`;
  head.insertBefore(el("span", "badge exit " + (message.exitCode === 0 ? "ok" : "error"), code), head.querySelector(".entry-time"));
  if (message.excludeFromContext) head.insertBefore(el("span", "badge", "not sent to the model"), head.querySelector(".entry-time"));
  const body = el("div", "entry-body");
  const command = el("pre", "tool-command");
  command.appendChild(el("span", "prompt", "$ "));
  command.appendChild(highlightCode(message.command || "", "sh"));
  body.appendChild(command);
  if (message.output) body.appendChild(foldedText(message.output, {}));
  if (message.truncated) body.appendChild(el("div", "muted", "Output truncated" + (message.fullOutputPath ? ` (full output: ${message.fullOutputPath})` : "")));
  li.appendChild(body);
  return li;
}

function renderSummary(entry, kind, title, detail, summary) {
  const li = messageShell(entry, kind, title);
  if (detail) li.firstChild.insertBefore(detail, li.firstChild.querySelector(".entry-time"));
  const body = el("div", "entry-body");
  body.appendChild(markdownBlock(summary));
  li.appendChild(body);
  return li;
}

/** pi's record of its system prompt and tools (xcsh never sends it): one folded block. */
function renderSystemPrompt(entry, message) {
  const li = messageShell(entry, "system", "System prompt");
  const parts = [];
  const base = typeof message.content === "string" ? message.content : textOf(message.content);
  if (base) parts.push(base);
  for (const [name, text] of Object.entries(message.sections || {})) parts.push(text === null ? `(section ${name} removed)` : String(text));
  const body = el("div", "entry-body");
  body.appendChild(foldedText(parts.join("\n\n"), { label: "System prompt", openLines: 0 }));
  const added = (message.toolsAdded || []).map((tool) => tool && tool.name).filter(Boolean);
  const removed = (message.toolsRemoved || []).map((tool) => tool && tool.name).filter(Boolean);
  if (added.length) body.appendChild(el("div", "muted", "Tools: " + added.join(", ")));
  if (removed.length) body.appendChild(el("div", "muted", "Tools removed: " + removed.join(", ")));
  li.appendChild(body);
  return li;
}

function renderEntry(entry, results) {
  switch (entry.type) {
    case "message": {
      const message = entry.message || {};
      if (message.role === "user") {
        const li = messageShell(entry, "user", "User");
        const body = el("div", "entry-body");
        body.appendChild(contentNodes(message.content));
        li.appendChild(body);
        return li;
      }
      if (message.role === "assistant") return renderAssistant(entry, message, results);
      if (message.role === "toolResult") return results.has(message.toolCallId) && results.get(message.toolCallId) === entry ? null : renderToolResultAlone(entry, message);
      if (message.role === "bashExecution") return renderBashExecution(entry, message);
      if (message.role === "custom") return message.display === false ? null : renderCustom(entry, message.customType, message.content);
      if (message.role === "compactionSummary") return renderSummary(entry, "compaction", "Compaction", null, message.summary);
      if (message.role === "branchSummary") return renderSummary(entry, "branch-summary", "Branch summary", null, message.summary);
      if (message.role === "system") return renderSystemPrompt(entry, message);
      return eventLine(entry, `Message of role ${message.role}`);
    }
    case "custom_message":
      return entry.display === false ? null : renderCustom(entry, entry.customType, entry.content);
    case "compaction":
      return renderSummary(entry, "compaction", "Compaction", el("span", "muted", `${fmt(entry.tokensBefore)} tokens summarised`), entry.summary);
    case "branch_summary": {
      let detail = null;
      if (entry.fromId && byId.has(entry.fromId)) {
        detail = el("button", "link-button", "show the branch it left");
        detail.type = "button";
        detail.addEventListener("click", () => showBranch(entry.fromId, entry.fromId));
      }
      return renderSummary(entry, "branch-summary", "Branch summary", detail, entry.summary);
    }
    case "model_change":
      return eventLine(entry, `Model → ${entry.provider}/${entry.modelId}`, "model-change");
    case "thinking_level_change":
      return eventLine(entry, `Thinking level → ${entry.thinkingLevel}`, "thinking-change");
    case "session_info":
      return entry.name ? eventLine(entry, `Session named “${entry.name}”`) : null;
    case "context_edit":
      // The edited entry is shown as written; this line says what the model is given instead.
      return eventLine(entry, `Context edit: ${entry.replacement === null ? "leaves out" : "replaces the content of"} entry ${entry.targetId}`, "context-edit");
    case "label":
    case "custom":
    case "usage":
      return null;
    default:
      return eventLine(entry, `Entry of type ${entry.type}`);
  }
}

function renderCustom(entry, customType, content) {
  const li = messageShell(entry, "custom", "Extension message");
  li.firstChild.insertBefore(el("span", "badge", customType || "custom"), li.firstChild.querySelector(".entry-time"));
  const body = el("div", "entry-body");
  body.appendChild(contentNodes(content));
  li.appendChild(body);
  return li;
}

/** Where the shown branch meets others: a line offering the siblings. */
function forkLine(entry) {
  const siblings = children(entry.parentId != null && byId.has(entry.parentId) ? entry.parentId : null);
  if (siblings.length < 2) return null;
  const li = el("li", "fork");
  const index = siblings.indexOf(entry);
  li.appendChild(el("span", "fork-text", `Branch ${index + 1} of ${siblings.length} here:`));
  siblings.forEach((sibling, i) => {
    if (sibling === entry) return;
    const button = el("button", "link-button", `#${i + 1} ${treeText(sibling)}`);
    button.type = "button";
    button.title = "Show this branch";
    button.addEventListener("click", () => showBranch(leafBelow(sibling.id), sibling.id));
    li.appendChild(button);
  });
  return li;
}

// ---------------------------------------------------------------------------
// Showing a branch, in chunks

let renderGeneration = 0;
const CHUNK = 80;

function showBranch(leafId, focusId) {
  const generation = ++renderGeneration;
  const path = leafId ? pathTo(leafId) : [];
  const list = document.getElementById("messages");
  list.textContent = "";
  const results = new Map();
  for (const entry of path) {
    const message = entry.type === "message" ? entry.message : undefined;
    if (message && message.role === "toolResult" && typeof message.toolCallId === "string") results.set(message.toolCallId, entry);
  }
  // Results belong to a call on this path; a result with no such call is shown on its own.
  const calls = new Set();
  for (const entry of path) {
    const message = entry.type === "message" ? entry.message : undefined;
    if (message && message.role === "assistant" && Array.isArray(message.content)) for (const block of message.content) if (block.type === "toolCall") calls.add(block.id);
  }
  for (const id of [...results.keys()]) if (!calls.has(id)) results.delete(id);

  updateBranchBar(leafId);
  markTree(path);
  const focusIndex = focusId ? path.findIndex((entry) => entry.id === focusId) : -1;
  let index = 0;
  const renderUpTo = (end) => {
    const fragment = document.createDocumentFragment();
    for (; index < end && index < path.length; index++) {
      const entry = path[index];
      const fork = forkLine(entry);
      if (fork) fragment.appendChild(fork);
      let node;
      try {
        node = renderEntry(entry, results);
      } catch (error) {
        node = eventLine(entry, `This entry could not be shown (${error && error.message})`, "render-error");
      }
      if (node) fragment.appendChild(node);
    }
    list.appendChild(fragment);
  };
  renderUpTo(Math.max(CHUNK, focusIndex + 10));
  if (focusIndex >= 0) document.getElementById("entry-" + path[focusIndex].id)?.scrollIntoView({ block: "start" });
  else window.scrollTo(0, 0);
  const step = () => {
    if (generation !== renderGeneration || index >= path.length) {
      if (generation === renderGeneration) document.body.dataset.rendered = "true";
      return;
    }
    renderUpTo(index + CHUNK);
    setTimeout(step, 0);
  };
  document.body.dataset.rendered = index >= path.length ? "true" : "false";
  setTimeout(step, 0);
}

function updateBranchBar(leafId) {
  const bar = document.getElementById("branch-bar");
  bar.textContent = "";
  if (!leafId) {
    bar.appendChild(el("span", "muted", "This session has no entries."));
    return;
  }
  const active = leafId === activeLeafId;
  bar.className = "branch-bar " + (active ? "is-active" : "is-other");
  bar.appendChild(el("span", "", active ? "Showing the active branch." : "Showing another branch (not the active one)."));
  if (!active && activeLeafId) {
    const back = el("button", "link-button", "Back to the active branch");
    back.type = "button";
    back.addEventListener("click", () => showBranch(activeLeafId));
    bar.appendChild(back);
  }
}

// ---------------------------------------------------------------------------
// The sidebar tree

function treeText(entry) {
  if (entry.type === "message") {
    const message = entry.message || {};
    if (message.role === "user") return oneLine(textOf(message.content), 70) || "(image)";
    if (message.role === "assistant") {
      const text = Array.isArray(message.content) ? message.content.find((block) => block.type === "text") : undefined;
      const call = Array.isArray(message.content) ? message.content.find((block) => block.type === "toolCall") : undefined;
      return oneLine(text ? text.text : call ? `${call.name}(…)` : message.errorMessage || "", 70);
    }
    if (message.role === "toolResult") return oneLine(`${message.toolName}: ${textOf(message.content)}`, 70);
    if (message.role === "bashExecution") return oneLine("$ " + message.command, 70);
    return oneLine(textOf(message.content) || message.summary || message.role, 70);
  }
  if (entry.type === "compaction" || entry.type === "branch_summary") return oneLine(entry.summary, 70);
  if (entry.type === "custom_message") return oneLine(textOf(entry.content), 70);
  if (entry.type === "model_change") return `${entry.provider}/${entry.modelId}`;
  if (entry.type === "thinking_level_change") return entry.thinkingLevel;
  return entry.type;
}

function treeRole(entry) {
  if (entry.type === "message") {
    const role = (entry.message || {}).role;
    return role === "toolResult" ? "tool" : role === "bashExecution" ? "shell" : role;
  }
  return { compaction: "compaction", branch_summary: "summary", custom_message: "extension", model_change: "model", thinking_level_change: "thinking" }[entry.type] || entry.type;
}

/** Rows worth a line: user turns, summaries, where branches start, and where they end. */
function inTree(entry, forkChild) {
  if (forkChild || children(entry.id).length === 0) return entry.type !== "label" && entry.type !== "custom";
  if (entry.type === "message") {
    const role = (entry.message || {}).role;
    return role === "user" || role === "bashExecution";
  }
  return entry.type === "compaction" || entry.type === "branch_summary" || (entry.type === "custom_message" && entry.display !== false);
}

const treeRows = new Map();

function buildTree() {
  const tree = document.getElementById("tree");
  const fragment = document.createDocumentFragment();
  // Depth-first in file order, without recursion (a session can be 20 000 entries deep).
  const stack = children(null).slice().reverse().map((entry) => ({ entry, depth: 0, forkChild: children(null).length > 1 }));
  let leaves = 0;
  while (stack.length > 0) {
    const { entry, depth, forkChild } = stack.pop();
    const kids = children(entry.id);
    if (kids.length === 0) leaves++;
    if (inTree(entry, forkChild)) {
      const row = el("li", "tree-row");
      row.style.setProperty("--depth", String(depth));
      const button = el("button", "tree-button");
      button.type = "button";
      button.appendChild(el("span", "tree-marker"));
      button.appendChild(el("span", "tree-role role-" + treeRole(entry), treeRole(entry)));
      button.appendChild(el("span", "tree-text", treeText(entry)));
      const label = labels.get(entry.id);
      if (label) button.appendChild(el("span", "badge label", label));
      if (entry.id === activeLeafId) button.appendChild(el("span", "badge active", "active"));
      button.title = entry.type + " " + entry.id;
      button.addEventListener("click", () => showBranch(leafBelow(entry.id), entry.id));
      row.appendChild(button);
      fragment.appendChild(row);
      treeRows.set(entry.id, row);
    }
    const fork = kids.length > 1;
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ entry: kids[i], depth: depth + (fork ? 1 : 0), forkChild: fork });
  }
  tree.appendChild(fragment);
  document.getElementById("tree-count").textContent = `${fmt(byId.size)} entries · ${fmt(leaves)} ${leaves === 1 ? "branch" : "branches"}`;
}

let markedRows = [];
function markTree(path) {
  for (const row of markedRows) row.classList.remove("on-path", "shown-leaf");
  markedRows = [];
  for (const entry of path) {
    const row = treeRows.get(entry.id);
    if (!row) continue;
    row.classList.add("on-path");
    markedRows.push(row);
  }
  const last = path.length > 0 ? treeRows.get(path[path.length - 1].id) : undefined;
  if (last) last.classList.add("shown-leaf");
  for (const id of activeIds) treeRows.get(id)?.classList.add("active-path");
}

// ---------------------------------------------------------------------------
// The header

function renderHeader() {
  const header = document.getElementById("session-header");
  const h1 = el("h1", "", document.title);
  header.appendChild(h1);
  const facts = el("dl", "facts");
  const fact = (name, value) => {
    if (value === undefined || value === null || value === "") return;
    facts.appendChild(el("dt", "", name));
    facts.appendChild(el("dd", "", value));
  };
  const h = data.header || {};
  fact("Session", h.id);
  fact("Directory", h.cwd);
  fact("Started", time(h.timestamp));
  if (h.parentSession) fact("Forked from", h.parentSession);
  fact("Models", (data.models || []).join(", "));
  const totals = data.totals || {};
  const totalLine = (t) => (t ? `${fmt(t.input)} in · ${fmt(t.output)} out · ${fmt(t.cacheRead)} cache read · ${fmt(t.cacheWrite)} cache write · ${money(t.cost)}` : "");
  fact("Tokens & cost (all branches)", totalLine(totals.all));
  fact("Tokens & cost (active branch)", totalLine(totals.activeBranch));
  fact("Exported", `${time(data.exportedAt)} by ${data.generator || "xcsh"}`);
  header.appendChild(facts);
  const tools = el("div", "header-tools");
  const toggle = el("button", "link-button", "Open all thinking");
  toggle.type = "button";
  toggle.addEventListener("click", () => {
    const blocks = [...document.querySelectorAll("details.thinking")];
    const open = !blocks.every((block) => block.open);
    for (const block of blocks) block.open = open;
    toggle.textContent = open ? "Close all thinking" : "Open all thinking";
  });
  tools.appendChild(toggle);
  header.appendChild(tools);
}

renderHeader();
buildTree();
const focus = location.hash.startsWith("#entry-") ? location.hash.slice(7) : undefined;
if (focus && byId.has(focus)) showBranch(leafBelow(focus), focus);
else showBranch(activeLeafId);
