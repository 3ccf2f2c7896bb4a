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

export function renderSessionHtml(data: SessionPageData): string {
  const script = `"use strict";\n${markdownJs}\n${viewerJs}`;
  const policy = [
    "default-src 'none'",
    `script-src 'sha256-${sha256(script)}'`,
    `style-src 'sha256-${sha256(css)}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  // Replaced in one pass so text put in cannot itself be taken for a placeholder.
  const parts: Record<string, string> = {
    CSP: policy,
    TITLE: escapeHtml(titleOf(data)),
    STYLE: css,
    DATA: scriptSafeJson(data),
    SCRIPT: script,
  };
  return template.replace(/\{\{(CSP|TITLE|STYLE|DATA|SCRIPT)\}\}/g, (_match, key: string) => parts[key]);
}
