/**
 * The sandbox (`--sandbox`, settings.json `sandbox`) as the model and the user meet it,
 * through the built binary on Linux (bubblewrap): under workspace-write a command writes
 * inside the project but not beside it, reaches no local server, cannot read xcsh's
 * config folder; the write and edit tools obey the same folders; read-only writes
 * nothing; the user's RPC `bash` and extensions' `exec` are held alike. A refusal reaches
 * the model as a tool result it can read. Without bwrap, xcsh refuses to start, saying
 * what to install. Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFixture } from "../support/extensions.ts";
import { bwrapWorks, createSandboxFixture } from "./sandbox-fixture.ts";
import { startRpc, textOf, type RpcProcess } from "../support/rpc-harness.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/sandbox/sandbox.test.ts: bubblewrap cannot run here (install the bubblewrap package); sandbox tests skipped");

let fixture: ExtensionFixture;
/** Outside /tmp, which every sandboxed command may write: the test home's folders must not be. */
let base: string;
let outside: string;
let localServer: ReturnType<typeof Bun.serve>;
let localHits = 0;

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-sandbox-test-"));
  outside = join(fixture.home.home, "outside");
  mkdirSync(outside, { recursive: true });
  localServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      localHits++;
      return new Response("hello from the host");
    },
  });
});
afterEach(() => {
  fixture.server.clearScript();
  fixture.home.writeSettings({});
});
afterAll(async () => {
  localServer?.stop(true);
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

/** The model makes these tool calls one after another; returns each tool result as the server received it. */
async function toolResults(rpc: RpcProcess, calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<Array<{ text: string; isError: boolean }>> {
  fixture.server.enqueue(...calls.map((call) => ({ content: [{ type: "toolCall" as const, ...call }] })), { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 20_000, from);
  const ends = rpc.ofType("tool_execution_end", from);
  const messages = fixture.server.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === "tool");
  return messages.slice(-calls.length).map((message: { content: unknown }, index: number) => ({ text: textOf(message), isError: ends[index]?.isError === true }));
}

const bash = (command: string) => ({ name: "bash", arguments: { command } });
const connect = () => bash(`exec 3<>/dev/tcp/127.0.0.1/${localServer.port} && echo connected || echo refused`);

describe.skipIf(!canSandbox)("--sandbox workspace-write", () => {
  test("a command writes inside the project, not beside it, reaches no local server and cannot read xcsh's config; the model reads each refusal", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "workspace-write"]);
    const hitsBefore = localHits;
    const [inside, beside, tmp, network, config] = await toolResults(rpc, [
      bash("echo made-inside > inside.txt && cat inside.txt"),
      bash(`echo escaped > ${join(outside, "from-bash.txt")}`),
      bash(`echo scratch > ${join(fixture.home.env.TMPDIR!, "scratch.txt")} && echo tmp-ok`),
      connect(),
      bash(`ls -A ${fixture.home.agentDir} | wc -l; cat ${join(fixture.home.agentDir, "models.json")}`),
    ]);
    expect(inside).toEqual({ text: "made-inside", isError: false });
    expect(readFileSync(join(fixture.cwd, "inside.txt"), "utf8")).toBe("made-inside\n");

    expect(beside!.isError).toBe(true);
    expect(beside!.text).toContain("Read-only file system");
    expect(existsSync(join(outside, "from-bash.txt"))).toBe(false);

    expect(tmp!.text).toBe("tmp-ok");
    expect(network!.text).toContain("refused");
    expect(network!.text).not.toContain("connected");
    expect(localHits).toBe(hitsBefore);

    // The config folder (models.json keys, auth, sessions) shows as empty.
    expect(config!.text.split("\n")[0]).toBe("0");
    expect(config!.text).not.toContain("test-key");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("the write and edit tools obey the same folders, also through a symlink that leads out", async () => {
    symlinkSync(outside, join(fixture.cwd, "link-out"));
    writeFileSync(join(outside, "victim.txt"), "original\n");
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "workspace-write"]);
    const [inside, beside, viaLink, edit] = await toolResults(rpc, [
      { name: "write", arguments: { path: "notes/inside.md", content: "ok" } },
      { name: "write", arguments: { path: "../outside/from-write.txt", content: "escaped" } },
      { name: "write", arguments: { path: "link-out/from-link.txt", content: "escaped" } },
      { name: "edit", arguments: { path: join(outside, "victim.txt"), edits: [{ oldText: "original", newText: "changed" }] } },
    ]);
    expect(inside!.isError).toBe(false);
    expect(readFileSync(join(fixture.cwd, "notes/inside.md"), "utf8")).toBe("ok");
    for (const refused of [beside!, viaLink!, edit!]) {
      expect(refused.isError).toBe(true);
      expect(refused.text).toStartWith("Sandbox (workspace-write):");
      expect(refused.text).toContain("outside the writable folders");
    }
    expect(existsSync(join(outside, "from-write.txt"))).toBe(false);
    expect(existsSync(join(outside, "from-link.txt"))).toBe(false);
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original\n");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("git's hooks and config and xcsh's project folder stay read-only, also where they did not exist yet", async () => {
    const project = join(fixture.home.home, "fresh-project");
    mkdirSync(join(project, ".git"), { recursive: true });
    writeFileSync(join(project, ".git", "config"), "[core]\n");
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: ["--model", "fake/fake-model", "--sandbox", "workspace-write"] });
    try {
      const [hook, config, settings, tool] = await toolResults(rpc, [
        bash("mkdir -p .git/hooks; echo 'curl evil' > .git/hooks/pre-commit"),
        bash("echo '[core]\n\thooksPath = /tmp/evil' >> .git/config"),
        bash(`mkdir -p .xcsh; echo '{"sandbox":{"mode":"off"}}' > .xcsh/settings.json`),
        { name: "write", arguments: { path: ".xcsh/extensions/evil.ts", content: "export default () => {}" } },
      ]);
      for (const refused of [hook!, config!, settings!]) expect(refused.text).toContain("Read-only file system");
      expect(tool!.isError).toBe(true);
      expect(tool!.text).toContain("is read-only");
      expect(existsSync(join(project, ".git", "hooks", "pre-commit"))).toBe(false);
      expect(readFileSync(join(project, ".git", "config"), "utf8")).toBe("[core]\n");
      expect(await rpc.close()).toBe(0);
      // What was made to keep them read-only is gone with xcsh.
      expect(readdirSync(project)).toEqual([".git"]);
    } finally {
      rpc.kill();
    }
  }, 40_000);

  test("the user's RPC bash and an extension's exec are held by the same walls", async () => {
    const extension = fixture.writeExtension(
      "escape.ts",
      `export default function (pi) {
        pi.registerCommand("escape", {
          handler: async (_args, ctx) => {
            const result = await pi.exec("sh", ["-c", "echo x > ${join(outside, "from-exec.txt")}; echo code=$?"]);
            ctx.ui.notify("exec " + result.stdout + result.stderr);
          },
        });
        // Running in another folder does not make that folder writable.
        pi.registerCommand("escape-cwd", {
          handler: async (_args, ctx) => {
            const result = await pi.exec("sh", ["-c", "echo x > from-exec-cwd.txt; pwd"], { cwd: ${JSON.stringify(outside)} });
            ctx.ui.notify("cwd " + result.stdout + result.stderr);
          },
        });
      }`,
    );
    const rpc = fixture.start(["-e", extension, "--model", "fake/fake-model", "--sandbox", "workspace-write"]);
    const user = await rpc.request({ type: "bash", command: `echo x > ${join(outside, "from-user.txt")}` });
    expect(user.data.output).toContain("Read-only file system");
    expect(existsSync(join(outside, "from-user.txt"))).toBe(false);

    const from = rpc.mark();
    rpc.send({ type: "prompt", message: "/escape" });
    const notice = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000, "the exec notice", from);
    expect(notice.message).toContain("Read-only file system");
    expect(existsSync(join(outside, "from-exec.txt"))).toBe(false);

    const next = rpc.mark();
    rpc.send({ type: "prompt", message: "/escape-cwd" });
    const cwdNotice = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000, "the cwd notice", next);
    expect(cwdNotice.message).toContain("Read-only file system");
    expect(cwdNotice.message).toContain(outside);
    expect(existsSync(join(outside, "from-exec-cwd.txt"))).toBe(false);
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test('settings sandbox.network "allow" lets commands reach the local server; writableRoots open more folders', async () => {
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: "allow", writableRoots: [outside] } });
    const rpc = fixture.start(["--model", "fake/fake-model"]);
    const [network, write] = await toolResults(rpc, [connect(), bash(`echo fine > ${join(outside, "allowed.txt")} && echo wrote`)]);
    expect(network!.text).toBe("connected");
    expect(write!.text).toBe("wrote");
    expect(readFileSync(join(outside, "allowed.txt"), "utf8")).toBe("fine\n");
    // Every writable folder's .xcsh/ is held read-only (a placeholder while xcsh runs), and nothing is left of it after.
    const [xcsh] = await toolResults(rpc, [bash(`echo '{}' > ${join(outside, ".xcsh", "settings.json")}`)]);
    expect(xcsh!.text).toContain("Read-only file system");
    expect(await rpc.close()).toBe(0);
    expect(existsSync(join(outside, ".xcsh"))).toBe(false);
  }, 40_000);
});

describe.skipIf(!canSandbox)("--sandbox read-only", () => {
  test("nothing is written, not even in the project; reading still works", async () => {
    writeFileSync(join(fixture.cwd, "readme.txt"), "readable\n");
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "read-only"]);
    const [read, write, tool] = await toolResults(rpc, [
      bash("cat readme.txt"),
      bash("echo x > made-in-read-only.txt"),
      { name: "write", arguments: { path: "made-by-tool.txt", content: "x" } },
    ]);
    expect(read!.text).toBe("readable");
    expect(write!.isError).toBe(true);
    expect(write!.text).toContain("Read-only file system");
    expect(tool!.isError).toBe(true);
    expect(tool!.text).toStartWith("Sandbox (read-only): writing files is not allowed");
    expect(existsSync(join(fixture.cwd, "made-in-read-only.txt"))).toBe(false);
    expect(existsSync(join(fixture.cwd, "made-by-tool.txt"))).toBe(false);
    expect(await rpc.close()).toBe(0);
  }, 40_000);
});

describe("when the sandbox cannot be had", () => {
  test.skipIf(process.platform !== "linux")("without bwrap on PATH, xcsh does not start, and says what to install", async () => {
    const bin = join(fixture.home.home, "bin-without-bwrap");
    mkdirSync(bin, { recursive: true });
    const requestsBefore = fixture.server.requests.length;
    const proc = Bun.spawn([require("../support/cli.ts").ensureBinary(), "-p", "--model", "fake/fake-model", "--sandbox", "workspace-write", "hi"], {
      env: { ...fixture.home.env, PATH: bin },
      cwd: fixture.cwd,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(2);
    expect(fixture.server.requests.length).toBe(requestsBefore);
    expect(stderr).toContain("needs bubblewrap");
    expect(stderr).toContain("apt install bubblewrap");
  });

  test("a sandbox.network entry that is not a host stops xcsh at start, naming the entry, not taken for allow or deny", async () => {
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: ["registry.npmjs.org", "https://example.com/"] } });
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    expect(await rpc.exitWithin(10_000)).toBe(2);
    expect(rpc.stderr).toContain('sandbox.network: "https://example.com/" is not a host');
  });

  test("an unknown mode is a usage error", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "strict"]);
    expect(await rpc.exitWithin(10_000)).toBe(2);
    expect(rpc.stderr).toContain('Unknown sandbox mode "strict"');
  });
});
