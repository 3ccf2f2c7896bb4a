/**
 * auth.json as a user meets it, through the built binary: a stored key reaches the
 * provider, in pi's order (--api-key, auth.json, models.json, environment); a `!command`
 * key runs once per process; the file is written 0600, atomically, keeping what it
 * cannot read; a broken entry is an error naming the provider and the file; no key is
 * ever printed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";

let server: FakeLlmServer;
let home: TestHome;
const running: RpcProcess[] = [];
const GROQ_MODEL = ["--provider", "groq", "--model", "openai/gpt-oss-120b"];

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  home = makeTestHome();
  server.clearScript();
  server.requests.length = 0;
});
afterEach(() => {
  for (const rpc of running.splice(0)) rpc.kill();
  home.cleanup();
});

const authPath = () => join(home.agentDir, "auth.json");
const writeAuth = (content: unknown) => writeFileSync(authPath(), JSON.stringify(content, null, 2), { mode: 0o600 });
const groqAt = (extra: Record<string, unknown> = {}) => ({ groq: { baseUrl: server.baseUrl("openai-completions"), ...extra } });

async function askGroq(args: string[] = [], env: Record<string, string> = {}) {
  const before = server.requests.length;
  server.enqueue({ content: [{ type: "text", text: "ok" }] });
  const result = await runXcsh(["-p", "hi", "--no-session", ...GROQ_MODEL, ...args], { env: { ...home.env, ...env }, timeoutMs: 30_000 });
  return { ...result, authorization: server.requests[before]?.headers.authorization };
}

describe("the key order", () => {
  test("a key stored in auth.json is sent as the provider's key, with nothing else configured", async () => {
    home.writeModelsJson({ providers: groqAt() });
    writeAuth({ groq: { type: "api_key", key: "gsk-stored" } });
    const result = await askGroq();
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("ok\n");
    expect(result.authorization).toBe("Bearer gsk-stored");
  });

  test("--api-key beats auth.json, which beats models.json, which beats the environment", async () => {
    home.writeModelsJson({ providers: groqAt({ apiKey: "gsk-models-json" }) });
    writeAuth({ groq: { type: "api_key", key: "gsk-stored" } });
    const env = { GROQ_API_KEY: "gsk-environment" };

    expect((await askGroq(["--api-key", "gsk-flag"], env)).authorization).toBe("Bearer gsk-flag");
    expect((await askGroq([], env)).authorization).toBe("Bearer gsk-stored");

    const logout = await runXcsh(["auth", "logout", "groq"], { env: home.env });
    expect(logout.exitCode).toBe(0);
    expect(logout.stderr).toContain(`Removed the credential of groq from ${authPath()}`);
    expect((await askGroq([], env)).authorization).toBe("Bearer gsk-models-json");

    home.writeModelsJson({ providers: groqAt() });
    expect((await askGroq([], env)).authorization).toBe("Bearer gsk-environment");
  });

  test("status says which source is used and which are shadowed, without printing any key", async () => {
    home.writeModelsJson({ providers: groqAt({ apiKey: "gsk-models-json" }) });
    writeAuth({ groq: { type: "api_key", key: "gsk-stored-secret" } });
    const result = await runXcsh(["auth", "status", "groq"], { env: { ...home.env, GROQ_API_KEY: "gsk-env-secret" } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`auth.json: ${authPath()} (mode 0600)`);
    expect(result.stdout).toContain('groq: an API key in auth.json; also "apiKey" in models.json, GROQ_API_KEY set in the environment (not used: auth.json comes first)');
    for (const secret of ["gsk-stored-secret", "gsk-env-secret", "gsk-models-json"]) expect(result.stdout + result.stderr).not.toContain(secret);

    const none = await runXcsh(["auth", "status", "mistral"], { env: home.env });
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toContain("mistral: no credential. Run `xcsh auth login mistral` or set MISTRAL_API_KEY.");
  });

  test("status without a provider lists Anthropic when only ANTHROPIC_AUTH_TOKEN is set", async () => {
    const result = await runXcsh(["auth", "status"], { env: { ...home.env, ANTHROPIC_AUTH_TOKEN: "bearer-secret" } });
    expect(result.stdout).toContain("anthropic: ANTHROPIC_AUTH_TOKEN set in the environment");
    expect(result.stdout + result.stderr).not.toContain("bearer-secret");
  });
});

describe("stored key values", () => {
  test("a !command key runs once per process, however many requests use it", async () => {
    const counter = join(home.home, "runs.txt");
    home.writeModelsJson({ providers: groqAt() });
    writeAuth({ groq: { type: "api_key", key: `!echo run >> '${counter}'; printf gsk-from-command` } });
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--no-session", ...GROQ_MODEL] });
    running.push(rpc);
    server.enqueue({ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] });
    for (const message of ["first", "second"]) {
      const mark = rpc.mark();
      expect((await rpc.request({ type: "prompt", message }, 30_000)).success).toBe(true);
      await rpc.waitForEvent("agent_end", undefined, 30_000, mark);
    }
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(["Bearer gsk-from-command", "Bearer gsk-from-command"]);
    expect(readFileSync(counter, "utf8")).toBe("run\n");
  });

  test("a $VAR key is filled from the entry's env object first, then the environment", async () => {
    home.writeModelsJson({ providers: groqAt() });
    writeAuth({ groq: { type: "api_key", key: "${GROQ_SECRET}-${SUFFIX}", env: { GROQ_SECRET: "gsk-from-env-object" } } });
    expect((await askGroq([], { GROQ_SECRET: "gsk-from-process", SUFFIX: "x" })).authorization).toBe("Bearer gsk-from-env-object-x");
  });

  test("a failing !command is an error naming the provider and the file, and sends nothing", async () => {
    home.writeModelsJson({ providers: groqAt() });
    writeAuth({ groq: { type: "api_key", key: "!echo vault locked >&2; exit 7" } });
    const result = await askGroq();
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain(`The key command of provider "groq" in ${authPath()} failed: exit code 7: vault locked.`);
    expect(result.authorization).toBeUndefined();
  });

  test("a malformed entry is an error for its provider only, naming the field and the file", async () => {
    home.writeModelsJson({ providers: { ...groqAt(), deepseek: { baseUrl: server.baseUrl("openai-completions") } } });
    writeAuth({ groq: { type: "api_key", key: 42 }, deepseek: { type: "api_key", key: "sk-deepseek" } });
    const broken = await askGroq([], { GROQ_API_KEY: "gsk-environment" });
    expect(broken.exitCode).toBe(3);
    expect(broken.stderr).toContain(`Cannot use the credential of provider "groq": ${authPath()}: groq.key: expected a string (got 42)`);
    expect(broken.authorization).toBeUndefined();

    server.clearScript();
    server.enqueue({ content: [{ type: "text", text: "fine" }] });
    const other = await runXcsh(["-p", "hi", "--no-session", "--provider", "deepseek"], { env: home.env, timeoutMs: 30_000 });
    expect(other.stdout).toBe("fine\n");
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer sk-deepseek");
  });

  test("auth.json that is not JSON: the run says which file and where", async () => {
    home.writeModelsJson({ providers: groqAt() });
    writeFileSync(authPath(), '{ "groq": { "type": "api_key", "key": "gsk" ', { mode: 0o600 });
    const result = await askGroq([], { GROQ_API_KEY: "gsk-environment" });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain(`${authPath()}: invalid JSON at line 1`);
  });
});

describe("writing auth.json", () => {
  test("login creates it 0600 in a private folder, from a key on stdin", async () => {
    const result = await runXcsh(["auth", "login", "groq"], { env: home.env, stdin: "gsk-piped\n" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toContain("gsk-piped");
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(authPath(), "utf8"))).toEqual({ groq: { type: "api_key", key: "gsk-piped" } });
  });

  test("a rewrite makes a readable file private again and keeps entries it cannot read", async () => {
    const foreign = { type: "oauth", access: "a", refresh: "r", expires: 1, extra: { kept: true } };
    writeFileSync(authPath(), JSON.stringify({ anthropic: foreign, broken: { type: "strange" } }));
    chmodSync(authPath(), 0o644);
    const result = await runXcsh(["auth", "login", "deepseek"], { env: home.env, stdin: "sk-new\n" });
    expect(result.exitCode).toBe(0);
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(authPath(), "utf8"))).toEqual({
      anthropic: foreign,
      broken: { type: "strange" },
      deepseek: { type: "api_key", key: "sk-new" },
    });
    // No temp file or lock left behind.
    expect(readdirSync(home.agentDir).sort()).toEqual(["auth.json"]);
  });

  test("the first login creates the config root, private to the user", async () => {
    const fresh = join(home.home, "new-root", "agent");
    const result = await runXcsh(["auth", "login", "groq"], { env: { ...home.env, XCSH_CODING_AGENT_DIR: fresh }, stdin: "gsk-1\n" });
    expect(result.exitCode).toBe(0);
    expect(statSync(join(fresh, "auth.json")).mode & 0o777).toBe(0o600);
    expect(statSync(fresh).mode & 0o077).toBe(0);
  });

  test("a lock left by a process that died, or one too old, is broken rather than waited on", async () => {
    const lock = `${authPath()}.lock`;
    writeFileSync(lock, `999999999 ${Date.now()} dead-holder`);
    const started = Date.now();
    expect((await runXcsh(["auth", "login", "groq"], { env: home.env, stdin: "gsk-1\n" })).exitCode).toBe(0);
    // Our own pid is alive, but the lock is an hour old: its holder hung or the pid was reused.
    writeFileSync(lock, `${process.pid} ${Date.now() - 3_600_000} hung-holder`);
    expect((await runXcsh(["auth", "login", "deepseek"], { env: home.env, stdin: "sk-2\n" })).exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Object.keys(JSON.parse(readFileSync(authPath(), "utf8")))).toEqual(["groq", "deepseek"]);
    expect(existsSync(lock)).toBe(false);
  });

  test("a Claude subscription sign-in copied from pi is not used: Anthropic takes an API key", async () => {
    writeAuth({ anthropic: { type: "oauth", access: "sk-ant-oat-x", refresh: "r", expires: Date.now() + 3_600_000 } });
    const status = await runXcsh(["auth", "status", "anthropic"], { env: home.env });
    expect(status.stdout).toContain("anthropic: no usable credential; also an OAuth sign-in in auth.json that xcsh cannot use (a Claude subscription sign-in");
    const login = await runXcsh(["auth", "login", "anthropic"], { env: home.env, stdin: "" });
    expect(login.stderr).toContain("xcsh does not sign in with a Claude subscription");
    expect(login.exitCode).toBe(1);
    expect(existsSync(authPath())).toBe(true);
  });

  test("usage errors exit 2 and name the problem", async () => {
    expect((await runXcsh(["auth"], { env: home.env })).exitCode).toBe(2);
    const unknown = await runXcsh(["auth", "frobnicate"], { env: home.env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('Unknown auth command "frobnicate".');
    const nobody = await runXcsh(["auth", "login", "nobody"], { env: home.env, stdin: "k\n" });
    expect(nobody.exitCode).toBe(1);
    expect(nobody.stderr).toContain('Unknown provider "nobody"');
    expect(existsSync(authPath())).toBe(false);
  });
});
