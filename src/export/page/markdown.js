// Markdown and code highlighting for the exported page (embedded as text, run in
// the reader's browser). Escaping-first by construction: every piece of message
// text reaches the page through createTextNode / textContent, never innerHTML, so
// HTML in a message shows as the characters it is. Links keep only http(s) and
// mailto targets. Covers what assistants write: headings, paragraphs, lists,
// quotes, fenced code, tables, rules; inline code, bold, italic, strike, links.

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

// ---------------------------------------------------------------------------
// Code highlighting: one small tokenizer, languages described as data.

const C_LIKE_KEYWORDS =
  "if else for while do switch case default break continue return try catch finally throw new delete typeof instanceof in of " +
  "class extends super this import export from as const let var function async await yield static public private protected " +
  "interface type enum implements namespace declare readonly abstract void null undefined true false struct union unsigned signed " +
  "int long short char float double bool boolean string number any unknown never package func go defer chan map range select " +
  "fn mut pub impl trait use mod crate self Self match loop move ref where dyn unsafe extern sizeof goto auto register volatile " +
  "val var fun object when is override final sealed lateinit suspend nil";

const LANGUAGES = {
  c: { keywords: C_LIKE_KEYWORDS, line: ["//"], block: ["/*", "*/"], strings: "\"'`" },
  python: {
    keywords:
      "and as assert async await break class continue def del elif else except False finally for from global if import in is " +
      "lambda None nonlocal not or pass raise return True try while with yield self print",
    line: ["#"],
    strings: "\"'",
  },
  shell: {
    keywords: "if then else elif fi for while until do done case esac in function return export local readonly set unset echo cd exit source sudo",
    line: ["#"],
    strings: "\"'",
    variables: true,
  },
  json: { keywords: "true false null", strings: "\"" },
  css: { keywords: "important media import supports keyframes from to", block: ["/*", "*/"], strings: "\"'" },
  sql: {
    keywords:
      "select from where insert into values update set delete create table drop alter index join left right inner outer on as and or " +
      "not null is in group by order having limit offset union distinct primary key references default",
    line: ["--"],
    block: ["/*", "*/"],
    strings: "'\"",
    caseless: true,
  },
  yaml: { keywords: "true false null yes no", line: ["#"], strings: "\"'" },
  ruby: {
    keywords: "def end if elsif else unless while until for in do return class module self nil true false and or not begin rescue ensure yield require",
    line: ["#"],
    strings: "\"'",
  },
  markup: { markup: true },
};

const LANGUAGE_ALIASES = {
  js: "c", javascript: "c", jsx: "c", mjs: "c", cjs: "c", ts: "c", typescript: "c", tsx: "c", mts: "c", cts: "c",
  java: "c", kotlin: "c", kt: "c", swift: "c", go: "c", golang: "c", rust: "c", rs: "c", cpp: "c", "c++": "c", cc: "c",
  h: "c", hpp: "c", cs: "c", csharp: "c", scala: "c", dart: "c", php: "c", zig: "c",
  py: "python", python3: "python",
  sh: "shell", bash: "shell", zsh: "shell", shell: "shell", console: "shell", fish: "shell",
  json: "json", jsonc: "json", jsonl: "json",
  css: "css", scss: "css", less: "css",
  sql: "sql",
  yaml: "yaml", yml: "yaml", toml: "yaml", ini: "yaml",
  rb: "ruby", ruby: "ruby",
  html: "markup", xml: "markup", svg: "markup", vue: "markup",
  diff: "diff", patch: "diff",
};

function languageOf(name) {
  if (!name) return undefined;
  const key = String(name).toLowerCase();
  if (key === "c") return "c";
  return LANGUAGE_ALIASES[key];
}

/** The language of a file, by its extension (read/write tool output). */
function languageOfPath(path) {
  const match = /\.([A-Za-z0-9+]+)$/.exec(String(path || ""));
  return match ? languageOf(match[1]) : undefined;
}

const keywordCache = new Map();
function keywordSet(spec) {
  let set = keywordCache.get(spec);
  if (!set) {
    set = new Set(spec.keywords ? spec.keywords.split(" ").map((word) => (spec.caseless ? word.toLowerCase() : word)) : []);
    keywordCache.set(spec, set);
  }
  return set;
}

function pushToken(out, kind, text) {
  if (!text) return;
  if (!kind) out.appendChild(document.createTextNode(text));
  else out.appendChild(el("span", "tok-" + kind, text));
}

function highlightDiff(code, out) {
  const lines = code.split("\n");
  lines.forEach((line, index) => {
    const kind = /^(\+\+\+|---)/.test(line) ? "meta" : line[0] === "+" ? "add" : line[0] === "-" ? "del" : line.startsWith("@@") ? "meta" : "";
    pushToken(out, kind, line + (index < lines.length - 1 ? "\n" : ""));
  });
}

function highlightMarkup(code, out) {
  const pattern = /(<!--[\s\S]*?(?:-->|$))|(<\/?[A-Za-z][^\s>/]*)|("[^"]*"|'[^']*')|(\/?>)/g;
  let last = 0;
  for (let match; (match = pattern.exec(code)); ) {
    pushToken(out, "", code.slice(last, match.index));
    pushToken(out, match[1] ? "comment" : match[2] || match[4] ? "keyword" : "string", match[0]);
    last = pattern.lastIndex;
  }
  pushToken(out, "", code.slice(last));
}

/** Code as highlighted DOM nodes; unknown languages stay plain text. */
function highlightCode(code, lang) {
  const out = document.createDocumentFragment();
  const name = languageOf(lang);
  if (name === "diff") return highlightDiff(code, out), out;
  const spec = LANGUAGES[name];
  if (!spec) return pushToken(out, "", code), out;
  if (spec.markup) return highlightMarkup(code, out), out;
  const keywords = keywordSet(spec);
  let plain = "";
  const flush = () => {
    pushToken(out, "", plain);
    plain = "";
  };
  const length = code.length;
  let i = 0;
  while (i < length) {
    const ch = code[i];
    const rest = (prefix) => code.startsWith(prefix, i);
    const lineComment = spec.line && spec.line.find(rest);
    if (lineComment && !(ch === "#" && spec.variables && i > 0 && code[i - 1] === "$")) {
      let end = code.indexOf("\n", i);
      if (end === -1) end = length;
      flush();
      pushToken(out, "comment", code.slice(i, end));
      i = end;
      continue;
    }
    if (spec.block && rest(spec.block[0])) {
      let end = code.indexOf(spec.block[1], i + spec.block[0].length);
      end = end === -1 ? length : end + spec.block[1].length;
      flush();
      pushToken(out, "comment", code.slice(i, end));
      i = end;
      continue;
    }
    if (spec.strings && spec.strings.includes(ch)) {
      let j = i + 1;
      while (j < length && code[j] !== ch && !(code[j] === "\n" && ch !== "`")) j += code[j] === "\\" ? 2 : 1;
      j = Math.min(j + 1, length);
      flush();
      pushToken(out, "string", code.slice(i, j));
      i = j;
      continue;
    }
    if (spec.variables && ch === "$" && /[A-Za-z_{(0-9@?#]/.test(code[i + 1] || "")) {
      const match = /^\$(\{[^}\n]*\}|\([^)\n]*\)|[A-Za-z_][A-Za-z0-9_]*|[0-9@?#])/.exec(code.slice(i, i + 200));
      if (match) {
        flush();
        pushToken(out, "variable", match[0]);
        i += match[0].length;
        continue;
      }
    }
    if (/[0-9]/.test(ch) && !/[A-Za-z0-9_]/.test(code[i - 1] || "")) {
      const match = /^(0x[0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9]+)?)[a-zA-Z]*/.exec(code.slice(i, i + 64));
      flush();
      pushToken(out, "number", match[0]);
      i += match[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch) && !/[A-Za-z0-9_$]/.test(code[i - 1] || "")) {
      let j = i + 1;
      while (j < length && /[A-Za-z0-9_]/.test(code[j])) j++;
      const word = code.slice(i, j);
      const key = spec.caseless ? word.toLowerCase() : word;
      if (keywords.has(key)) {
        flush();
        pushToken(out, "keyword", word);
      } else if (code[j] === "(") {
        flush();
        pushToken(out, "function", word);
      } else if (/^[A-Z][a-z0-9]/.test(word) && name === "c") {
        flush();
        pushToken(out, "type", word);
      } else {
        plain += word;
      }
      i = j;
      continue;
    }
    plain += ch;
    i++;
  }
  flush();
  return out;
}

// ---------------------------------------------------------------------------
// Inline markdown

const SAFE_LINK = /^(https?:|mailto:)/i;

const INLINE = [
  // `code`
  { re: /^(`+)([\s\S]*?[^`])\1(?!`)/, make: (m) => el("code", "", m[2].replace(/^ (.*) $/, "$1")) },
  // ![alt](src): images from the network cannot load here; the alt text stands in.
  { re: /^!\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/, make: (m) => el("span", "md-image", `[image: ${m[1] || m[2]}]`) },
  // [text](url)
  {
    re: /^\[((?:\[[^\]]*\]|[^\[\]])*)\]\(([^)\s]*)(?:\s+"([^"]*)")?\)/,
    make: (m) => {
      if (!SAFE_LINK.test(m[2])) return renderInline(m[1]);
      const a = el("a");
      a.href = m[2];
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      if (m[3]) a.title = m[3];
      a.appendChild(renderInline(m[1]));
      return a;
    },
  },
  // <https://…>
  {
    re: /^<(https?:\/\/[^\s>]+)>/,
    make: (m) => {
      const a = el("a", "", m[1]);
      a.href = m[1];
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      return a;
    },
  },
  { re: /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/, make: (m) => wrapInline("strong", m[2]) },
  { re: /^~~(?=\S)([\s\S]*?\S)~~/, make: (m) => wrapInline("del", m[1]) },
  { re: /^\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)/, make: (m) => wrapInline("em", m[1]) },
  { re: /^_(?=[^\s_])([\s\S]*?[^\s_])_(?![A-Za-z0-9_])/, make: (m) => wrapInline("em", m[1]) },
];

function wrapInline(tag, text) {
  const node = el(tag);
  node.appendChild(renderInline(text));
  return node;
}

/** Inline markdown as DOM nodes. */
function renderInline(text) {
  const out = document.createDocumentFragment();
  let plain = "";
  let i = 0;
  const flush = () => {
    if (plain) out.appendChild(document.createTextNode(plain));
    plain = "";
  };
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\" && /[\\`*_{}\[\]()#+\-.!~<>|]/.test(text[i + 1] || "")) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === "\n") {
      flush();
      out.appendChild(el("br"));
      i++;
      continue;
    }
    if ("`![<*_~".includes(ch)) {
      const rest = text.slice(i);
      const underscoreInWord = ch === "_" && /[A-Za-z0-9]/.test(text[i - 1] || "");
      const rule = underscoreInWord ? undefined : INLINE.find((candidate) => candidate.re.test(rest));
      if (rule) {
        const match = rule.re.exec(rest);
        flush();
        out.appendChild(rule.make(match));
        i += match[0].length;
        continue;
      }
    }
    plain += ch;
    i++;
  }
  flush();
  return out;
}

// ---------------------------------------------------------------------------
// Blocks

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

function tableCells(line) {
  let text = line.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  return text.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function isBlockStart(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line);
}

/** Markdown as a DocumentFragment. */
function renderMarkdown(text) {
  const out = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    let match;
    if ((match = FENCE.exec(line))) {
      const fence = match[1];
      const body = [];
      i++;
      while (i < lines.length && !(lines[i].trim().startsWith(fence[0].repeat(fence.length)) && lines[i].trim().replace(new RegExp(`^\\${fence[0]}+`), "") === "")) {
        body.push(lines[i]);
        i++;
      }
      i++;
      out.appendChild(codeBlock(body.join("\n"), match[2]));
      continue;
    }
    if ((match = HEADING.exec(line))) {
      const heading = el("h" + Math.min(6, match[1].length + 2), "md-heading");
      heading.appendChild(renderInline(match[2]));
      out.appendChild(heading);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.appendChild(el("hr"));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && lines[i].trim() !== "" && (QUOTE.test(lines[i]) || !isBlockStart(lines[i]))) {
        body.push(lines[i].replace(QUOTE, ""));
        i++;
      }
      const quote = el("blockquote");
      quote.appendChild(renderMarkdown(body.join("\n")));
      out.appendChild(quote);
      continue;
    }
    if ((match = LIST_ITEM.exec(line))) {
      i = renderList(lines, i, out);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]) && lines[i + 1].includes("-")) {
      const table = el("table");
      const head = el("tr");
      for (const cell of tableCells(line)) head.appendChild(el("th")).appendChild(renderInline(cell));
      table.appendChild(el("thead")).appendChild(head);
      const body = table.appendChild(el("tbody"));
      i += 2;
      while (i < lines.length && lines[i].includes("|") && lines[i].trim() !== "") {
        const row = el("tr");
        for (const cell of tableCells(lines[i])) row.appendChild(el("td")).appendChild(renderInline(cell));
        body.appendChild(row);
        i++;
      }
      const wrap = el("div", "md-table");
      wrap.appendChild(table);
      out.appendChild(wrap);
      continue;
    }
    const paragraph = [];
    while (i < lines.length && lines[i].trim() !== "" && (paragraph.length === 0 || !isBlockStart(lines[i]))) {
      paragraph.push(lines[i].replace(/^ {0,3}/, ""));
      i++;
    }
    const p = el("p");
    p.appendChild(renderInline(paragraph.join("\n")));
    out.appendChild(p);
  }
  return out;
}

/** A list starting at lines[start]; nested lists are the items' indented lines rendered again. Returns the next line. */
function renderList(lines, start, out) {
  const first = LIST_ITEM.exec(lines[start]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = el(ordered ? "ol" : "ul");
  if (ordered && parseInt(first[2], 10) !== 1) list.start = parseInt(first[2], 10);
  let i = start;
  while (i < lines.length) {
    const match = LIST_ITEM.exec(lines[i]);
    if (!match || match[1].length !== indent || /\d/.test(match[2]) !== ordered) break;
    const body = [match[3]];
    i++;
    while (i < lines.length) {
      const next = lines[i];
      if (next.trim() === "") {
        // A blank line ends the list unless the item goes on, indented, after it.
        if (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1]) && lines[i + 1].search(/\S/) > indent) {
          body.push("");
          i++;
          continue;
        }
        break;
      }
      const item = LIST_ITEM.exec(next);
      if (item && item[1].length <= indent) break;
      if (!item && next.search(/\S/) <= indent && isBlockStart(next)) break;
      body.push(next.slice(Math.min(next.search(/\S/), indent + 2)));
      i++;
    }
    const li = el("li");
    const content = body.join("\n");
    if (body.length === 1) li.appendChild(renderInline(content));
    else li.appendChild(renderMarkdown(content));
    list.appendChild(li);
    if (i < lines.length && lines[i].trim() === "" && !(i + 1 < lines.length && LIST_ITEM.test(lines[i + 1]) && LIST_ITEM.exec(lines[i + 1])[1].length === indent)) break;
    if (i < lines.length && lines[i].trim() === "") i++;
  }
  out.appendChild(list);
  return i;
}

function codeBlock(code, lang) {
  const pre = el("pre", "code-block");
  if (lang) pre.dataset.lang = lang;
  const codeNode = el("code");
  codeNode.appendChild(highlightCode(code, lang));
  pre.appendChild(codeNode);
  return pre;
}
