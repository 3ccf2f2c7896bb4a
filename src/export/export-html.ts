/**
 * Writes a session as one self-contained HTML page that opens offline. The page
 * is a template (page/template.html) with the stylesheet, the session as JSON and
 * the viewer script put in; all three are embedded in the binary as text and
 * loaded only when this module is (it is imported lazily, on export).
 *
 * Nothing from the session becomes markup here: the session is JSON inside a
 * `<script type="application/json">` with every `<` written `\u003c`, so no
 * message can close the element, and the viewer builds the page with DOM calls
 * and textContent. The Content-Security-Policy lets only this page's own style
 * and script (by hash) run, images only from data: URLs, and nothing load from
 * the network.
 *
 * The page is made as a sequence of pieces (`sessionHtmlPieces`), the session's
 * entries one at a time, so that exporting a 100 MB session writes it out in
 * pieces instead of building the page, and the JSON inside it, as whole strings.
 */
import { PAGE_TEMPLATE as template } from "./page/template.ts";
import css from "./page/page.css" with { type: "text" };
import markdownJs from "./page/markdown.js" with { type: "text" };
import viewerJs from "./page/viewer.js" with { type: "text" };
import type { SessionPageData } from "./session-tree-view.ts";

const sha256 = (text: string): string => new Bun.CryptoHasher("sha256").update(text).digest("base64");

/** JSON that can sit inside a <script> element: no "<" can end it or open a comment. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page's title: the session's name, else the start of its first user message. */
function titleOf(data: SessionPageData): string {
  if (data.name) return data.name;
  for (const entry of data.entries) {
    if (entry.type !== "message" || entry.message.role !== "user") continue;
    const content = entry.message.content;
    const text = typeof content === "string" ? content : content.find((part) => part.type === "text")?.text ?? "";
    const line = text.trim().split("\n")[0];
    if (line) return line.length > 80 ? `${line.slice(0, 79)}…` : line;
  }
  return `Session ${data.header.id}`;
}

/** The page's text, piece by piece; joined, the pieces are the whole page. */
export function* sessionHtmlPieces(data: SessionPageData): Generator<string> {
  const script = `"use strict";\n${markdownJs}\n${viewerJs}`;
  const policy = [
    "default-src 'none'",
    `script-src 'sha256-${sha256(script)}'`,
    `style-src 'sha256-${sha256(css)}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const parts: Record<string, () => Iterable<string>> = {
    CSP: () => [policy],
    TITLE: () => [escapeHtml(titleOf(data))],
    STYLE: () => [css],
    DATA: () => scriptSafeJsonPieces(data),
    SCRIPT: () => [script],
  };
  // Placeholders are found in the template only, so text put in cannot itself be taken for one.
  let from = 0;
  for (const match of template.matchAll(/\{\{(CSP|TITLE|STYLE|DATA|SCRIPT)\}\}/g)) {
    yield template.slice(from, match.index);
    yield* parts[match[1]]();
    from = match.index + match[0].length;
  }
  yield template.slice(from);
}

/** scriptSafeJson(data), with the entries written one at a time. */
function* scriptSafeJsonPieces(data: SessionPageData): Generator<string> {
  // Random, so that no text of the session can be taken for it.
  const marker = `\u0000entries:${crypto.randomUUID()}`;
  const outline = scriptSafeJson({ ...data, entries: marker });
  const quoted = scriptSafeJson(marker);
  const at = outline.indexOf(quoted);
  yield `${outline.slice(0, at)}[`;
  const entries = data.entries;
  for (let index = 0; index < entries.length; index++) yield index === 0 ? scriptSafeJson(entries[index]) : `,${scriptSafeJson(entries[index])}`;
  yield `]${outline.slice(at + quoted.length)}`;
}

export function renderSessionHtml(data: SessionPageData): string {
  return [...sessionHtmlPieces(data)].join("");
}
