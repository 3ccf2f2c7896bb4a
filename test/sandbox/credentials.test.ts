/**
 * Credentials out of reach: the programs xcsh starts — the bash tool's commands, the
 * user's RPC `bash`, an extension's `exec` — get xcsh's environment without the keys
 * xcsh uses for model providers, unless settings.json `shellEnv` says otherwise. What
 * the model sees is checked where it sees it: the tool result the fake server receives.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExtensionFixture, type ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";

const SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-secret",
  OPENAI_API_KEY: "sk-openai-secret",
  GEMINI_API_KEY: "gemini-secret",
  GROQ_API_KEY: "groq-secret",
  OPENROUTER_API_KEY: "or-secret",
  TYPESAFE_API_KEY: "typesafe-secret",
  AWS_BEARER_TOKEN_BEDROCK: "bedrock-secret",
  HF_TOKEN: "hf-secret",
  CORP_LLM_KEY: "corp-secret",
};
/** What the user's own tools rely on: kept. */
const KEPT = { GITHUB_TOKEN: "ghp-kept", AWS_SECRET_ACCESS_KEY: "aws-kept", STRIPE_API_KEY: "stripe-kept", OPENAI_BASE_URL: "http://kept.invalid" };
/** A company network's settings: every inherit level keeps them, or curl, npm and git stop working. */
const NETWORK = { HTTPS_PROXY: "http://proxy.corp.invalid:3128", no_proxy: "localhost", NODE_EXTRA_CA_CERTS: "/etc/corp-ca.pem", SSL_CERT_FILE: "/etc/corp-ca.pem" };

let fixture: ExtensionFixture;

beforeAll(() => {
  fixture = createExtensionFixture();
  Object.assign(fixture.home.env, SECRETS, KEPT, NETWORK);
  // A provider whose key models.json takes from $CORP_LLM_KEY: that variable is a credential too.
  const modelsPath = join(fixture.home.agentDir, "models.json");
  const models = JSON.parse(require("node:fs").readFileSync(modelsPath, "utf8"));
  models.providers.corp = { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "$CORP_LLM_KEY", models: [{ id: "c" }] };
  writeFileSync(modelsPath, JSON.stringify(models));
});
afterEach(() => {
  fixture.server.clearScript();
  fixture.home.writeSettings({});
});
afterAll(() => fixture.cleanup());

function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

/** Has the model run `env` with the bash tool; the variables in the tool result the server received. */
async function envSeenByModel(rpc: RpcProcess, tool = "bash"): Promise<{ env: Record<string, string>; text: string }> {
  fixture.server.enqueue({ content: [{ type: "toolCall", name: tool, arguments: { command: "env" } }] }, { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "show the environment" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 10_000, from);
  const toolResult = fixture.server.requests.at(-1)!.body.messages.findLast((message: { role: string }) => message.role === "tool");
  const text = textOf(toolResult);
  return { env: parseEnv(text), text };
}

describe("the bash tool's commands", () => {
  test("see no provider key — not even by value — but keep the user's other credentials and the agent markers", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model"]);
    const { env, text } = await envSeenByModel(rpc);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(env[name]).toBeUndefined();
      expect(text).not.toContain(value);
    }
    expect(env).toMatchObject(KEPT);
    expect(env.PATH).toBe(fixture.home.env.PATH);
    expect(env.AI_AGENT).toBe("xcsh");
    expect(env.XCSH_SESSION_ID).toEqual(expect.any(String));
    expect(await rpc.close()).toBe(0);
  });

  test("shellEnv.passthrough lets a named key through; exclude hides more; set adds fixed values", async () => {
    fixture.home.writeSettings({ shellEnv: { passthrough: ["OPENAI_API_KEY"], exclude: ["AWS_*", "GITHUB_TOKEN"], set: { BUILD_MODE: "sandboxed" } } });
    const rpc = fixture.start(["--model", "fake/fake-model"]);
    const { env } = await envSeenByModel(rpc);
    expect(env.OPENAI_API_KEY).toBe(SECRETS.OPENAI_API_KEY);
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(env.AWS_BEARER_TOKEN_BEDROCK).toBeUndefined();
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.STRIPE_API_KEY).toBe(KEPT.STRIPE_API_KEY);
    expect(env.BUILD_MODE).toBe("sandboxed");
    expect(await rpc.close()).toBe(0);
  });

  test('inherit "none" starts empty: only the passthrough, the fixed values, the markers and the session', async () => {
    fixture.home.writeSettings({ shellEnv: { inherit: "none", passthrough: ["GITHUB_*"], set: { LANG: "C.UTF-8" } } });
    const rpc = fixture.start(["--model", "fake/fake-model"]);
    const { env } = await envSeenByModel(rpc);
    expect(env.GITHUB_TOKEN).toBe(KEPT.GITHUB_TOKEN);
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.HOME).toBeUndefined();
    expect(env.STRIPE_API_KEY).toBeUndefined();
    expect(env.AI_AGENT).toBe("xcsh");
    expect(env.PI_SESSION_ID).toEqual(expect.any(String));
    expect(await rpc.close()).toBe(0);
  });

  test('inherit "core" keeps what a shell needs and drops the rest', async () => {
    fixture.home.writeSettings({ shellEnv: { inherit: "core" } });
    const rpc = fixture.start(["--model", "fake/fake-model"]);
    const { env } = await envSeenByModel(rpc);
    expect(env.PATH).toBe(fixture.home.env.PATH);
    expect(env.HOME).toBe(fixture.home.home);
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    for (const [name, value] of Object.entries(NETWORK)) expect(env[name]).toBe(value);
    expect(await rpc.close()).toBe(0);
  });

  test("a shellEnv of the wrong shape stops the start with an error naming the field", async () => {
    fixture.home.writeSettings({ shellEnv: { inherit: "everything" } });
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const code = await rpc.exitWithin(10_000).catch(() => -1);
    expect(code).not.toBe(0);
    expect(rpc.stderr).toContain("shellEnv");
    expect(rpc.stderr).toContain("inherit");
  });
});

describe("the user's own commands and extensions' exec", () => {
  test("RPC bash and pi.exec see no provider key either", async () => {
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
    const rpc = fixture.start(["-e", extension, "--model", "fake/fake-model"]);
    const bash = await rpc.request({ type: "bash", command: "env" });
    expect(bash.success).toBe(true);
    const fromBash = parseEnv(bash.data.output);
    expect(fromBash.GITHUB_TOKEN).toBe(KEPT.GITHUB_TOKEN);
    for (const name of Object.keys(SECRETS)) expect(fromBash[name]).toBeUndefined();

    const from = rpc.mark();
    rpc.send({ type: "prompt", message: "/show-env" });
    const notice = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000, "the env notice", from);
    const fromExec = parseEnv(String(notice.message).slice("env ".length));
    expect(fromExec.GITHUB_TOKEN).toBe(KEPT.GITHUB_TOKEN);
    for (const name of Object.keys(SECRETS)) expect(fromExec[name]).toBeUndefined();
    expect(await rpc.close()).toBe(0);
  });
});

describe.skipIf(process.platform !== "linux")("xcsh's own environment", () => {
  /**
   * Filtering the child's environment is not enough if the child can read its parent's:
   * /proc/<xcsh>/environ holds every key xcsh started with. xcsh marks itself not
   * dumpable, so no process of the user's can read it. Root can (as it can read anything),
   * so under root the test runs xcsh as nobody.
   */
  test("cannot be read through /proc by the commands it runs: no process they can read holds a key", async () => {
    const asRoot = process.getuid?.() === 0;
    if (asRoot && !Bun.which("setpriv")) {
      console.warn("skipped: running as root and setpriv is missing, so xcsh cannot be run as another user");
      return;
    }
    const { chownSync, readdirSync, statSync } = await import("node:fs");
    const chownTree = (path: string) => {
      chownSync(path, 65534, 65534);
      if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry));
    };
    if (asRoot) chownTree(fixture.home.home);
    const scan = `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -e sk-ant-secret -e corp-secret; cat /proc/$PPID/environ > /dev/null 2>&1 && echo parent-readable || echo parent-unreadable`;
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: scan } }] }, { content: [{ type: "text", text: "done" }] });
    const { BINARY } = await import("../support/cli.ts");
    const argv = [BINARY, "-p", "--model", "fake/fake-model", "--no-session", "look around"];
    const proc = Bun.spawn(asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv] : argv, {
      env: fixture.home.env,
      cwd: fixture.cwd,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const toolResult = fixture.server.requests.at(-1)!.body.messages.findLast((message: { role: string }) => message.role === "tool");
    expect(textOf(toolResult).trim().split("\n")).toEqual(["0", "parent-unreadable"]);
  }, 30_000);
});
