/**
 * Renders a terminal screen to a PNG, to look at the interactive mode as a
 * person would:
 *   tmux capture-pane -e -p -t <pane> > screen.ans
 *   bun scripts/pane-to-png.ts screen.ans screen.png [--light]
 * The ANSI colours (16, 256 and truecolor SGR) become an HTML page, which
 * headless Chromium photographs (CHROMIUM=/path overrides /usr/bin/chromium).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BASE16 = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5", "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"];

function color256(n: number): string {
  if (n < 16) return BASE16[n]!;
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  const step = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return `rgb(${step(Math.floor(i / 36))},${step(Math.floor(i / 6) % 6)},${step(i % 6)})`;
}

interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

function applySgr(style: Style, params: number[]): Style {
  const next = { ...style };
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p === 0) Object.keys(next).forEach((key) => delete next[key as keyof Style]);
    else if (p === 1) next.bold = true;
    else if (p === 2) next.dim = true;
    else if (p === 3) next.italic = true;
    else if (p === 4) next.underline = true;
    else if (p === 7) next.inverse = true;
    else if (p === 22) next.bold = next.dim = false;
    else if (p === 23) next.italic = false;
    else if (p === 24) next.underline = false;
    else if (p === 27) next.inverse = false;
    else if (p >= 30 && p <= 37) next.fg = BASE16[p - 30];
    else if (p >= 90 && p <= 97) next.fg = BASE16[p - 90 + 8];
    else if (p >= 40 && p <= 47) next.bg = BASE16[p - 40];
    else if (p >= 100 && p <= 107) next.bg = BASE16[p - 100 + 8];
    else if (p === 39) delete next.fg;
    else if (p === 49) delete next.bg;
    else if ((p === 38 || p === 48) && params[i + 1] === 5) {
      next[p === 38 ? "fg" : "bg"] = color256(params[i + 2] ?? 0);
      i += 2;
    } else if ((p === 38 || p === 48) && params[i + 1] === 2) {
      next[p === 38 ? "fg" : "bg"] = `rgb(${params[i + 2]},${params[i + 3]},${params[i + 4]})`;
      i += 4;
    }
  }
  return next;
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function toHtml(ansi: string, light: boolean): string {
  const defaultFg = light ? "#1e1e1e" : "#d4d4d4";
  const defaultBg = light ? "#ffffff" : "#1e1e1e";
  let style: Style = {};
  let html = "";
  // OSC and other non-SGR sequences are dropped.
  const tokens = ansi.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "").split(/(\x1b\[[0-9;]*[A-Za-z])/);
  for (const token of tokens) {
    const sgr = /^\x1b\[([0-9;]*)m$/.exec(token);
    if (sgr) {
      style = applySgr(style, sgr[1] ? sgr[1].split(";").map(Number) : [0]);
      continue;
    }
    if (token.startsWith("\x1b[")) continue;
    if (!token) continue;
    let fg = style.fg ?? defaultFg;
    let bg = style.bg;
    if (style.inverse) [fg, bg] = [bg ?? defaultBg, fg];
    const css = [`color:${fg}`, bg ? `background:${bg}` : "", style.bold ? "font-weight:bold" : "", style.dim ? "opacity:0.6" : "", style.italic ? "font-style:italic" : "", style.underline ? "text-decoration:underline" : ""].filter(Boolean).join(";");
    html += `<span style="${css}">${escapeHtml(token)}</span>`;
  }
  return `<!doctype html><meta charset="utf-8"><body style="margin:0;background:${defaultBg}"><pre style="margin:8px;font:14px/1.2 'DejaVu Sans Mono','Noto Sans Mono',monospace;color:${defaultFg}">${html}</pre></body>`;
}

const [input, output, ...flags] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: bun scripts/pane-to-png.ts screen.ans screen.png [--light]");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "pane-png-"));
try {
  const page = join(dir, "screen.html");
  writeFileSync(page, toHtml(readFileSync(input, "utf8"), flags.includes("--light")));
  const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
  const result = Bun.spawnSync(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", `--user-data-dir=${join(dir, "profile")}`, `--screenshot=${resolve(output)}`, "--window-size=1200,900", `file://${page}`],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (result.exitCode !== 0) {
    console.error(result.stderr.toString());
    process.exit(1);
  }
  console.log(`wrote ${output}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
