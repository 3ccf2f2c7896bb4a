/**
 * Secret-named variables under the sandbox, through the built binary with bubblewrap: with
 * `--sandbox workspace-write` the programs xcsh starts — the bash tool's commands (in a fresh
 * sandbox and in one started ahead of them), the user's RPC `bash`, an extension's `pi.exec`,
 * a sandboxed local MCP server — no longer see variables whose name has a word KEY, SECRET,
 * TOKEN or PASSWORD, unless settings' shellEnv.passthrough names them; names that only
 * contain such letters (KEYBOARD_LAYOUT, MONKEY) stay. With `--sandbox off` they all stay,
 * as before. Sandboxed cases are skipped, saying why, where bwrap cannot run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";
import { TEST_SERVER, writeMcpJson } from "../mcp/support/mcp-fixture.ts";
import { bwrapWorks, createSandboxFixture } from "./sandbox-fixture.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/sandbox/secret-variables.test.ts: bubblewrap cannot run here (install the bubblewrap package); sandboxed tests skipped");

/** What a sandboxed command must not see. */
const SECRETS = {
  DATABASE_PASSWORD: "db-pass-value",
  STRIPE_SECRET_KEY: "sk_live_stripe_value",
  GITHUB_TOKEN: "ghp_github_value",
  NPM_TOKEN: "npm_token_value",
  PGPASSWORD: "pg-pass-value",
  api_key: "lowercase-key-value",
};
/** Names that merely contain the letters: harmless, kept. */
const HARMLESS = { KEYBOARD_LAYOUT: "dvorak", MONKEY: "banana", TOKENIZERS_PARALLELISM: "false", SSH_AUTH_SOCK: "/run/agent.sock" };

let fixture: ExtensionFixture;
let base: string;

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-secret-variables-test-"));
  Object.assign(fixture.home.env, SECRETS, HARMLESS);
});
afterEach(() => {
  fixture.server.clearScript();
  fixture.home.writeSettings({});
});
afterAll(async () => {
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

const bash = (command: string) => ({ type: "toolCall" as const, name: "bash", arguments: { command } });

/** Runs one prompt; the text of every tool result, in order. */
async function toolResults(rpc: RpcProcess): Promise<string[]> {
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
  return rpc.ofType("tool_execution_end", from).map((end) => textOf(end.result));
}

/** The environment the model sees from a bash tool `env`. */
async function envSeenByModel(rpc: RpcProcess): Promise<{ env: Record<string, string>; text: string }> {
  fixture.server.enqueue({ content: [bash("env")] }, { content: [{ type: "text", text: "done" }] });
  const [text] = await toolResults(rpc);
  return { env: parseEnv(text ?? ""), text: text ?? "" };
}

function expectHidden(env: Record<string, string>, text: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    expect(env[name]).toBeUndefined();
    expect(text).not.toContain(value);
  }
}

const sandboxed = (...more: string[]) => fixture.start(["--model", "fake/fake-model", "--sandbox", "workspace-write", "--no-session", ...more]);

describe.skipIf(!canSandbox)("under a sandbox (workspace-write unless the test says)", () => {
  test("a bash tool command sees no secret-named variable, but the harmless names, PATH, HOME, the markers and the session", async () => {
    const rpc = sandboxed();
    const { env, text } = await envSeenByModel(rpc);
    expectHidden(env, text);
    expect(env).toMatchObject(HARMLESS);
    expect(env.PATH).toBe(fixture.home.env.PATH);
    expect(env.HOME).toBe(fixture.home.home);
    expect(env.AI_AGENT).toBe("xcsh");
    expect(env.PI_SESSION_ID).toEqual(expect.any(String));
    expect(env.XCSH_PROCESS_TAG).toEqual(expect.any(String));
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("--sandbox read-only hides them too", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "read-only", "--no-session"]);
    const { env, text } = await envSeenByModel(rpc);
    expectHidden(env, text);
    expect(env.KEYBOARD_LAYOUT).toBe("dvorak");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("shellEnv.passthrough gives a command the secrets it names, and only those", async () => {
    fixture.home.writeSettings({ shellEnv: { passthrough: ["GITHUB_TOKEN", "NPM_*"] } });
    const rpc = sandboxed();
    const { env } = await envSeenByModel(rpc);
    expect(env.GITHUB_TOKEN).toBe(SECRETS.GITHUB_TOKEN);
    expect(env.NPM_TOKEN).toBe(SECRETS.NPM_TOKEN);
    expect(env.DATABASE_PASSWORD).toBeUndefined();
    expect(env.STRIPE_SECRET_KEY).toBeUndefined();
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("a command in a sandbox started ahead of it sees what one in a fresh sandbox sees, and the waiting sandbox holds no secret", async () => {
    const rpc = sandboxed();
    // Its environment, and how long ago its process started (seconds): a waiting sandbox's started well before its call.
    const report = [
      'env | grep -v -e "^XCSH_PROCESS_TAG=" -e "^_=" | sort',
      "read -r up _ < /proc/uptime",
      "start=$(cut -d' ' -f22 /proc/$$/stat)",
      'echo "age:$(awk -v up="$up" -v st="$start" -v hz="$(getconf CLK_TCK)" \'BEGIN { printf "%.3f", up - st / hz }\')"',
    ].join("\n");
    // The first command is too long for a waiting sandbox's pipe (a fresh one runs it); the model asks for the second two seconds later (a loaded machine starts the waiting sandbox slowly).
    fixture.server.enqueue({ content: [bash(`${report}\n: ${"x".repeat(5000)}`)] }, { content: [bash(report)], delayMs: 2000 }, { content: [{ type: "text", text: "done" }] });
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
    await rpc.waitForEvent("tool_execution_end", () => true, 20_000, from);
    // While the model takes its second, the sandbox started for the next command waits: neither bubblewrap nor the shell in it holds a secret.
    const waiting = await waitingSandboxes(rpc.proc.pid);
    expect(waiting.length).toBeGreaterThan(0);
    for (const pid of waiting) {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      expect(environ).toContain("KEYBOARD_LAYOUT=dvorak");
      for (const value of Object.values(SECRETS)) expect(environ).not.toContain(value);
    }
    await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
    const [fresh, warm] = rpc.ofType("tool_execution_end", from).map((end) => textOf(end.result));
    const age = (text: string) => Number(text.split("\n").find((line) => line.startsWith("age:"))?.slice(4));
    expect(age(warm!)).toBeGreaterThan(0.5);
    expect(age(fresh!)).toBeLessThan(age(warm!));
    const envOf = (text: string) => text.split("\n").filter((line) => !line.startsWith("age:")).join("\n");
    expect(envOf(warm!)).toBe(envOf(fresh!));
    expectHidden(parseEnv(warm!), warm!);
    expect(warm).toContain("KEYBOARD_LAYOUT=dvorak");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("the user's RPC bash and an extension's pi.exec see no secret-named variable either", async () => {
    const extension = fixture.writeExtension(
      "show-env.ts",
      `export default function (pi) {
        pi.registerCommand("show-env", {
          handler: async (_args, ctx) => {
            const result = await pi.exec("env", []);
            ctx.ui.notify("env " + result.stdout);
          },
        });
      }`,
    );
    const rpc = sandboxed("-e", extension);
    const bashResponse = await rpc.request({ type: "bash", command: "env" });
    expect(bashResponse.success).toBe(true);
    expectHidden(parseEnv(bashResponse.data.output), bashResponse.data.output);
    expect(parseEnv(bashResponse.data.output).MONKEY).toBe("banana");

    const from = rpc.mark();
    rpc.send({ type: "prompt", message: "/show-env" });
    const notice = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000, "the env notice", from);
    const execText = String(notice.message);
    expectHidden(parseEnv(execText.slice("env ".length)), execText);
    expect(parseEnv(execText.slice("env ".length)).MONKEY).toBe("banana");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("a sandboxed MCP server gets its own env entries and the passthrough, but no other secret; one let out of the sandbox keeps them all", async () => {
    writeMcpJson(join(fixture.home.agentDir, "mcp.json"), {
      held: { command: process.execPath, args: [TEST_SERVER], env: { MCP_NAME: "held", GIVEN_TOKEN: "given-on-purpose" }, exposure: "direct" },
      free: { command: process.execPath, args: [TEST_SERVER], env: { MCP_NAME: "free" }, sandbox: false, exposure: "direct" },
    });
    const getenv = (server: string, name: string) => ({ type: "toolCall" as const, name: `mcp__${server}__getenv`, arguments: { name } });
    try {
      const rpc = sandboxed();
      fixture.server.enqueue(
        { content: [getenv("held", "DATABASE_PASSWORD")] },
        { content: [getenv("held", "GIVEN_TOKEN")] },
        { content: [getenv("held", "KEYBOARD_LAYOUT")] },
        { content: [getenv("free", "DATABASE_PASSWORD")] },
        { content: [{ type: "text", text: "done" }] },
      );
      expect(await toolResults(rpc)).toEqual(["DATABASE_PASSWORD=(unset)", "GIVEN_TOKEN=given-on-purpose", "KEYBOARD_LAYOUT=dvorak", `DATABASE_PASSWORD=${SECRETS.DATABASE_PASSWORD}`]);
      expect(await rpc.close()).toBe(0);

      // shellEnv.passthrough reaches a sandboxed server as it reaches commands.
      fixture.home.writeSettings({ shellEnv: { passthrough: ["DATABASE_PASSWORD"] } });
      const passing = sandboxed();
      fixture.server.enqueue({ content: [getenv("held", "DATABASE_PASSWORD")] }, { content: [getenv("held", "NPM_TOKEN")] }, { content: [{ type: "text", text: "done" }] });
      expect(await toolResults(passing)).toEqual([`DATABASE_PASSWORD=${SECRETS.DATABASE_PASSWORD}`, "NPM_TOKEN=(unset)"]);
      expect(await passing.close()).toBe(0);
    } finally {
      rmSync(join(fixture.home.agentDir, "mcp.json"), { force: true });
    }
  }, 60_000);
});

describe("with --sandbox off", () => {
  test("commands keep every secret-named variable, as before", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "off", "--no-session"]);
    const { env } = await envSeenByModel(rpc);
    expect(env).toMatchObject({ ...SECRETS, ...HARMLESS });
    expect(await rpc.close()).toBe(0);
  }, 40_000);
});

/** Host pids below `pid` of a sandbox waiting for its command (bubblewrap and the shim in it). */
async function waitingSandboxes(pid: number): Promise<number[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = descendants(pid).filter((child) => cmdline(child).includes("xcsh-sandbox"));
    if (found.length > 0 || Date.now() > deadline) return found;
    await Bun.sleep(50);
  }
}

function descendants(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) children.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}
