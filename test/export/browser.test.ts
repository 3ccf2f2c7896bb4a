/**
 * The exported page as a reader sees it: opened from disk in headless Chromium
 * with networking off, it must load without a console message (a blocked
 * script or style, a thrown error, a refused load all log one) and render the
 * active branch — escaped text, tool cards, image, summaries, changes — with
 * the other branch one click (here: one #entry link) away.
 *
 * Skipped, with a note, where /usr/bin/chromium is not installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { writeSessionFixture, type SessionFixture } from "./fixture.ts";

const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`test/export/browser.test.ts: skipped, ${CHROMIUM} is not installed (Debian: apt-get install chromium)`);

let home: TestHome;
let page: string;
let fixture: SessionFixture;

beforeAll(async () => {
  if (!haveChromium) return;
  home = makeTestHome();
  const session = join(home.home, "session.jsonl");
  fixture = writeSessionFixture(session);
  page = join(home.home, "page.html");
  const result = await runXcsh(["--export", session, page], { env: home.env });
  if (result.exitCode !== 0) throw new Error(result.stderr);
});
afterAll(() => home?.cleanup());

/** Loads `url` headless, offline, in a fresh profile; the DOM after scripts ran, and what the page logged. */
async function load(url: string): Promise<{ dom: string; root: string; scripts: number; console: string[] }> {
  const profile = mkdtempSync(join(tmpdir(), "xcsh-chromium-"));
  try {
    const proc = Bun.spawn(
      [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        `--user-data-dir=${profile}`,
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",
        "--dump-dom",
        url,
      ],
      { stdout: "pipe", stderr: "pipe", env: { ...process.env, HOME: profile } },
    );
    const timer = setTimeout(() => proc.kill("SIGKILL"), 50_000);
    const [dom, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    // What the viewer built: the app's elements, without the stylesheet, the data and the script.
    const app = dom.slice(dom.indexOf("<body"), dom.indexOf('<script type="application/json"'));
    return { dom: app, root: /<html[^>]*>/.exec(dom)?.[0] ?? "", scripts: count(dom, /<script/g), console: stderr.split("\n").filter((line) => line.includes(":CONSOLE")) };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

describe.skipIf(!haveChromium)("the page in a browser", () => {
  test("loads without console messages and renders the active branch", async () => {
    const { dom, scripts, console } = await load(`file://${page}`);
    expect(console).toEqual([]);
    expect(dom).toStartWith('<body data-rendered="true">');
    // Escaped text, and no element but the page's own two scripts.
    expect(dom).toContain("It prints &lt;script&gt;alert(1)&lt;/script&gt; and &lt;/html&gt; raw.");
    expect(dom).toContain("HTML stays text: &lt;img src=x onerror=alert(2)&gt;");
    expect(scripts).toBe(2);
    expect(count(dom, /<script/g)).toBe(0);
    expect(count(dom, /<img /g)).toBe(1);
    // Every message of the active branch, and the tool calls with their parts.
    for (const id of fixture.activePath) {
      if (["readResult", "editResult", "bashResult", "label"].some((name) => fixture.ids[name] === id)) continue;
      expect(dom).toContain(`id="entry-${id}"`);
    }
    expect(dom).toContain('data-tool="read"');
    expect(dom).toContain('<span class="diff-line diff-del">-1 export const greet = () =&gt; "&lt;b&gt;hi&lt;/b&gt;";');
    expect(dom).toContain('<span class="diff-line diff-add">+1 export const greet = () =&gt; "hello";');
    expect(dom).toMatch(/data-tool="bash"[\s\S]*?exit 1/);
    expect(dom).toContain('<img class="inline-image" alt="image (image/png)" loading="lazy" src="data:image/png;base64,');
    // Thinking is there but folded; long output folded too.
    expect(dom).toMatch(/<details class="thinking"><summary>Thinking/);
    expect(dom).not.toContain("thinking-text");
    expect(dom).toContain("Output — 63 lines");
    expect(dom).toContain("COMPACTION-SUMMARY: the greeting was fixed.");
    expect(dom).toContain("12,345 tokens summarised");
    expect(dom).toContain("BRANCH-SUMMARY: approach A was tried and dropped.");
    expect(dom).toContain("Model → openai/gpt-5");
    expect(dom).toContain("Thinking level → low");
    expect(dom).toContain("<code>src/app.ts</code>");
    expect(dom).toContain('<span class="tok-keyword">export</span>');
    // Totals, and the tree with both branches, the active leaf marked.
    expect(dom).toContain("5,000 in · 1,000 out · 0 cache read · 0 cache write · $0.0600");
    expect(dom).toContain("20 entries · 2 branches");
    expect(dom).toMatch(/OLD-BRANCH: try approach A/);
    expect(dom).toMatch(/ACTIVE-END: the pixel is red\.<\/span><span class="badge active">active<\/span>/);
    expect(dom).toContain("Showing the active branch.");
    expect(dom).not.toContain('class="entry user" id="entry-' + fixture.ids.oldAsk);
  }, 60_000);

  test("the other branch is reachable and shown when asked for", async () => {
    const { dom, root, console } = await load(`file://${page}?theme=dark#entry-${fixture.ids.oldAsk}`);
    expect(console).toEqual([]);
    expect(root).toContain('data-theme="dark"');
    expect(dom).toContain("Showing another branch (not the active one).");
    expect(dom).toContain(`id="entry-${fixture.ids.oldAsk}"`);
    expect(dom).toContain("Approach A applied.");
    expect(dom).not.toContain(`id="entry-${fixture.ids.imageAsk}"`);
  }, 60_000);
});
