/**
 * What xcsh writes is readable by its user only: sessions, exports, prompt history and the
 * config files it edits are 0600, the folders it makes for them 0700, and folders of its own
 * that an earlier version left 0755 are tightened — while a folder the user chose keeps its
 * mode. Checked on the files a user finds after real runs of the binary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeFakeModelHome, runXcsh, type FakeModelHome } from "../support/cli.ts";
import { createRpcFixture, FAKE_MODEL, type RpcFixture } from "../support/rpc-harness.ts";
import { send, withPane } from "../modes/interactive/fixture.ts";

const posix = process.platform !== "win32";
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every session file under `folder`, at any depth. */
function sessionFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(folder, name));
}

describe.if(posix)("a -p run", () => {
  let fake: FakeModelHome;
  let project: string;
  beforeAll(async () => {
    fake = await makeFakeModelHome();
    project = join(fake.home.home, "project");
    mkdirSync(project);
  });
  afterAll(() => fake.cleanup());
  const run = (args: string[]) => {
    fake.server.enqueue({ content: [{ type: "text", text: "ok" }] });
    return runXcsh(["--model", "fake/m", ...args], { env: fake.home.env, cwd: project });
  };

  test("writes its session 0600 in 0700 folders, tightening the agent dir and sessions/ an earlier version left 0755", async () => {
    const sessions = join(fake.home.agentDir, "sessions");
    mkdirSync(sessions, { mode: 0o755 });
    chmodSync(sessions, 0o755);
    chmodSync(fake.home.agentDir, 0o755);
    const result = await run(["-p", "hello"]);
    expect(result.exitCode).toBe(0);
    const [file] = sessionFiles(sessions);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(dirname(file))).toBe(0o700);
    expect(modeOf(sessions)).toBe(0o700);
    expect(modeOf(fake.home.agentDir)).toBe(0o700);
  });

  test("a session file from before (0644 in a 0755 folder) is private after its next entry", async () => {
    const [file] = sessionFiles(join(fake.home.agentDir, "sessions"));
    chmodSync(file, 0o644);
    chmodSync(dirname(file), 0o755);
    const result = await run(["-c", "-p", "again"]);
    expect(result.exitCode).toBe(0);
    expect(sessionFiles(join(fake.home.agentDir, "sessions"))).toEqual([file]);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(dirname(file))).toBe(0o700);
  });

  test("a --session-dir the user chose keeps its mode; the session in it is 0600", async () => {
    const chosen = join(fake.home.home, "shared-sessions");
    mkdirSync(chosen, { mode: 0o755 });
    chmodSync(chosen, 0o755);
    expect((await run(["--session-dir", chosen, "-p", "hello"])).exitCode).toBe(0);
    const [file] = sessionFiles(chosen);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(chosen)).toBe(0o755);
  });

  test("--export writes the page 0600, at a path the user chose too", async () => {
    const [file] = sessionFiles(join(fake.home.agentDir, "sessions"));
    const out = join(project, "exports", "page.html");
    const result = await runXcsh(["--export", file, out], { env: fake.home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    expect(modeOf(out)).toBe(0o600);
    expect(modeOf(dirname(out))).toBe(0o700);
  });
});

describe.if(posix)("an rpc run", () => {
  let fixture: RpcFixture;
  beforeAll(() => {
    fixture = createRpcFixture();
  });
  afterAll(() => fixture.cleanup());

  test("its session file is 0600; export_html writes HTML and JSONL 0600, over an existing 0644 file too", async () => {
    const rpc = fixture.start(["--model", FAKE_MODEL]);
    fixture.server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "hello" })).success).toBe(true);
    await rpc.waitForEvent("agent_settled", () => true, 10_000, from);
    const state = await rpc.request({ type: "get_state" });
    const sessionFile: string = state.data.sessionFile;
    expect(modeOf(sessionFile)).toBe(0o600);
    expect(modeOf(dirname(sessionFile))).toBe(0o700);
    expect(modeOf(join(fixture.home.agentDir, "sessions"))).toBe(0o700);

    const existing = join(fixture.cwd, "old.html");
    writeFileSync(existing, "old page", { mode: 0o644 });
    chmodSync(existing, 0o644);
    for (const out of [join(fixture.cwd, "page.html"), join(fixture.cwd, "branch.jsonl"), existing]) {
      expect((await rpc.request({ type: "export_html", outputPath: out })).success).toBe(true);
      expect(modeOf(out)).toBe(0o600);
    }
    expect(await rpc.close()).toBe(0);
  });
});

describe.if(posix)("config files xcsh edits", () => {
  let fake: FakeModelHome;
  let project: string;
  beforeAll(async () => {
    fake = await makeFakeModelHome();
    project = join(fake.home.home, "project");
    mkdirSync(project);
  });
  afterAll(() => fake.cleanup());

  test("xcsh mcp add writes mcp.json 0600, the global one and the project's (in a new 0700 .xcsh/)", async () => {
    const global = await runXcsh(["mcp", "add", "tools", "node", "server.js"], { env: fake.home.env, cwd: project });
    expect(global.exitCode).toBe(0);
    expect(modeOf(join(fake.home.agentDir, "mcp.json"))).toBe(0o600);
    const local = await runXcsh(["mcp", "add", "-l", "tools", "node", "server.js"], { env: fake.home.env, cwd: project });
    expect(local.exitCode).toBe(0);
    expect(modeOf(join(project, ".xcsh", "mcp.json"))).toBe(0o600);
    expect(modeOf(join(project, ".xcsh"))).toBe(0o700);
  });

  test("xcsh install rewrites a 0644 settings.json as 0600", async () => {
    fake.home.writeSettings({ quietStartup: true });
    const settings = join(fake.home.agentDir, "settings.json");
    chmodSync(settings, 0o644);
    const pkg = join(fake.home.home, "pkg");
    mkdirSync(join(pkg, "extensions"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "pkg", version: "1.0.0" }));
    writeFileSync(join(pkg, "extensions", "a.ts"), "export default function () {}\n");
    const result = await runXcsh(["install", pkg], { env: fake.home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    expect(modeOf(settings)).toBe(0o600);
  });
});

describe.if(posix && Bun.which("tmux") !== null)("the terminal UI", () => {
  test("prompt history and a setting changed with /settings are written 0600 in 0700 folders", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "An answer." }] });
        send(pane, "a prompt to remember");
        await pane.waitFor("An answer.");
        const history = join(fake.home.agentDir, "history");
        const [file] = readdirSync(history).map((name) => join(history, name));
        expect(modeOf(file)).toBe(0o600);
        expect(modeOf(history)).toBe(0o700);
        send(pane, "/settings");
        await pane.waitFor(/→ doubleEscapeAction\s+tree/);
        pane.keys("Enter");
        await pane.waitFor(/→ doubleEscapeAction\s+fork/);
        expect(modeOf(join(fake.home.agentDir, "settings.json"))).toBe(0o600);
        pane.keys("Escape");
      },
      {
        before: (fake) => {
          fake.home.writeSettings({ quietStartup: true });
          chmodSync(join(fake.home.agentDir, "settings.json"), 0o644);
        },
      },
    );
  });
});
