/**
 * `xcsh --export <session|id> [out]` as a user runs it: the HTML page holds the
 * whole session (escaped, under a strict policy), `.jsonl` gives the active
 * branch as a linear session that xcsh opens again, and every mistake — no such
 * file, an id that matches none or several sessions, an output that cannot be
 * written — is one line on stderr and exit code 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { createRpcFixture } from "../support/rpc-harness.ts";
import { PIXEL_PNG, SESSION_ID, writeSessionFixture, XSS, type SessionFixture } from "./fixture.ts";
import { pageData } from "./page-data.ts";

let home: TestHome;
let sessionFile: string;
let fixture: SessionFixture;

beforeAll(() => {
  home = makeTestHome();
  sessionFile = join(home.home, "session.jsonl");
  fixture = writeSessionFixture(sessionFile);
});
afterAll(() => home.cleanup());

const run = (args: string[]) => runXcsh(args, { env: home.env, cwd: home.home });

describe("HTML", () => {
  test("the page holds every entry of the tree, marks the active leaf and totals tokens and cost", async () => {
    const out = join(home.home, "page.html");
    const result = await run(["--export", sessionFile, out]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`Exported to ${out}\n`);
    const html = readFileSync(out, "utf8");
    const data = pageData(html);
    expect(data.header.id).toBe(SESSION_ID);
    expect(data.entries.map((entry: { id: string }) => entry.id)).toEqual(Object.values(fixture.ids));
    expect(data.leafId).toBe(fixture.ids.imageAnswer);
    // Six assistant messages in the tree, five on the active branch; the last cost 0.02, the others 0.01.
    expect(data.totals.all).toMatchObject({ responses: 6, input: 6000, output: 1200 });
    expect(data.totals.all.cost).toBeCloseTo(0.07);
    expect(data.totals.activeBranch).toMatchObject({ responses: 5, input: 5000 });
    expect(data.totals.activeBranch.cost).toBeCloseTo(0.06);
    expect(data.models).toEqual(["anthropic/claude-sonnet-4-5", "openai/gpt-5"]);
    // The parts a reader looks for are all there.
    for (const part of ["SECRET-THOUGHT", "call_read", "call_edit", '"diff":', "Command exited with code 1", "ls -la", PIXEL_PNG, "COMPACTION-SUMMARY", "BRANCH-SUMMARY", "OLD-BRANCH", "gpt-5", '"thinkingLevel":"low"', "checkpoint-1"]) {
      expect(html).toContain(part);
    }
  });

  test("message text never becomes markup, and the policy lets nothing load from the network", async () => {
    const out = join(home.home, "escaped.html");
    expect((await run(["--export", sessionFile, out])).exitCode).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).not.toContain(XSS);
    expect(html).not.toContain("<img src=x");
    // Exactly the page's own elements: the data block and the viewer script, one </html>.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html.match(/<\/html>/g)).toHaveLength(1);
    expect(html.trimEnd().endsWith("</html>")).toBe(true);
    // In the title it is escaped as HTML; in the data as JSON.
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(html).toContain("\\u003cscript>alert(1)\\u003c/script>");
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(policy).toContain("img-src data:");
    expect(policy).not.toContain("unsafe-inline");
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  test("without an output path the page is xcsh-session-<id>.html in the working directory", async () => {
    const cwd = join(home.home, "here");
    mkdirSync(cwd, { recursive: true });
    const result = await runXcsh(["--export", sessionFile], { env: home.env, cwd });
    expect(result.exitCode).toBe(0);
    const expected = join(cwd, `xcsh-session-${SESSION_ID}.html`);
    expect(result.stdout).toBe(`Exported to ${expected}\n`);
    expect(existsSync(expected)).toBe(true);
  });

  test("a session id prefix finds the stored session", async () => {
    const dir = join(home.agentDir, "sessions", "--home-dev-project--");
    mkdirSync(dir, { recursive: true });
    copyFileSync(sessionFile, join(dir, `2026-01-01T10-00-00-000Z_${SESSION_ID}.jsonl`));
    const out = join(home.home, "by-id.html");
    const result = await run(["--export", SESSION_ID.slice(0, 8), out]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(pageData(readFileSync(out, "utf8")).header.id).toBe(SESSION_ID);
  });

  test("reading an old session to export it leaves the file as it was", async () => {
    const v1 = join(home.home, "v1.jsonl");
    const before = readFileSync(join(import.meta.dir, "..", "session", "fixtures", "v1-session.jsonl"), "utf8");
    writeFileSync(v1, before);
    const out = join(home.home, "v1.html");
    expect((await run(["--export", v1, out])).exitCode).toBe(0);
    expect(readFileSync(v1, "utf8")).toBe(before);
    expect(pageData(readFileSync(out, "utf8")).entries.length).toBeGreaterThan(0);
  });
});

describe("mistakes are exit code 2 with one clear line", () => {
  test("a missing session file", async () => {
    const result = await run(["--export", join(home.home, "missing.jsonl")]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`xcsh: Session file not found: ${join(home.home, "missing.jsonl")}\n`);
  });

  test("an id that matches no session", async () => {
    const result = await run(["--export", "ffffffff"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('No session file or id matches "ffffffff"');
  });

  test("an id that matches several sessions", async () => {
    const dir = join(home.agentDir, "sessions", "--elsewhere--");
    mkdirSync(dir, { recursive: true });
    for (const suffix of ["1", "2"]) {
      const id = `dddd0000-0000-7000-8000-00000000000${suffix}`;
      writeFileSync(join(dir, `2026-01-0${suffix}T00-00-00-000Z_${id}.jsonl`), readFileSync(sessionFile, "utf8").replace(SESSION_ID, id));
    }
    const result = await run(["--export", "dddd"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Session id "dddd" is ambiguous (2 sessions start with it)');
  });

  test("an output path that cannot be written", async () => {
    const out = join(sessionFile, "inside-a-file.html");
    const result = await run(["--export", sessionFile, out]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`xcsh: Cannot write ${out}: a part of its path is not a directory\n`);
  });

  test("a file that is not a session", async () => {
    const notSession = join(home.home, "notes.jsonl");
    writeFileSync(notSession, "hello\n");
    const result = await run(["--export", notSession]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`Cannot load session file ${notSession}`);
  });
});

describe("JSONL", () => {
  test("the active branch becomes a linear session file", async () => {
    const out = join(home.home, "linear.jsonl");
    const result = await run(["--export", sessionFile, out]);
    expect(result.exitCode).toBe(0);
    const lines = readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: "session", version: 3, id: SESSION_ID, cwd: "/home/dev/project" });
    expect(lines[0].parentSession).toBeUndefined();
    const entries = lines.slice(1);
    expect(entries.map((entry) => entry.id)).toEqual(fixture.activePath);
    entries.forEach((entry, index) => expect(entry.parentId).toBe(index === 0 ? null : entries[index - 1].id));
    expect(JSON.stringify(entries)).not.toContain("OLD-BRANCH");
  });

  test("xcsh opens the linear file again and sees the active branch", async () => {
    const out = join(home.home, "reopen.jsonl");
    expect((await run(["--export", sessionFile, out])).exitCode).toBe(0);
    const rpcFixture = createRpcFixture();
    try {
      // The session runs in its recorded working directory (pi 1.6.0), which must exist here.
      const [header, ...rest] = readFileSync(out, "utf8").split("\n");
      writeFileSync(out, [JSON.stringify({ ...JSON.parse(header!), cwd: rpcFixture.cwd }), ...rest].join("\n"));
      const rpc = rpcFixture.start(["--model", "fake/fake-model", "--session", out]);
      const response = await rpc.request({ type: "get_messages" });
      expect(response.success).toBe(true);
      const messages = response.data.messages as Array<{ role: string; content?: unknown; summary?: string }>;
      // Compaction on the path: its summary first, then what it kept (from the "answer" entry on).
      expect(messages.map((message) => message.role)).toEqual(["compactionSummary", "assistant", "branchSummary", "bashExecution", "user", "assistant"]);
      expect(JSON.stringify(messages)).toContain("ACTIVE-END");
      expect(JSON.stringify(messages)).not.toContain("OLD-BRANCH");
      expect(await rpc.close()).toBe(0);
    } finally {
      await rpcFixture.cleanup();
    }
  });
});
