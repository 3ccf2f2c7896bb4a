/**
 * `xcsh auth check|print-api-key|print-bearer-token` (pi 1.6.0) through the built binary:
 * the status words and exit codes scripts read, the JSON form, and where secrets go —
 * to stdout from the printing commands, never to stderr.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";

const home = makeTestHome();
afterAll(() => home.cleanup());
const authFile = join(home.agentDir, "auth.json");
beforeEach(() => {
  rmSync(authFile, { force: true });
  rmSync(join(home.agentDir, "models.json"), { force: true });
});

const auth = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
  runXcsh(["auth", ...args], { env: { ...home.env, ...env }, ...(stdin !== undefined ? { stdin } : {}) });
const writeAuth = (content: unknown) => writeFileSync(authFile, JSON.stringify(content), { mode: 0o600 });
const inTwoHours = () => Date.now() + 2 * 3_600_000;

describe("xcsh auth check", () => {
  test("ready (0) with a key, not_ready (1) without; --json and --credentials", async () => {
    const without = await auth(["check", "--provider", "openai"]);
    expect([without.stdout, without.exitCode]).toEqual(["not_ready\n", 1]);
    const json = await auth(["check", "--provider", "openai", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ status: "not_ready", provider: "openai", reason: "credentials_not_configured" });

    const key = { OPENAI_API_KEY: "sk-check-123" };
    const ready = await auth(["check", "--provider", "openai"], key);
    expect([ready.stdout, ready.exitCode]).toEqual(["ready\n", 0]);
    const readyJson = await auth(["check", "--model", "openai/gpt-4o", "--json"], key);
    expect(JSON.parse(readyJson.stdout)).toEqual({ status: "ready", provider: "openai", authType: "api_key" });
    const withKey = await auth(["check", "--provider", "openai", "--json", "--credentials"], key);
    expect(JSON.parse(withKey.stdout).credentials).toBe("sk-check-123");
    expect((await auth(["check", "--provider", "openai", "--credentials"], key)).stdout).toBe("sk-check-123\n");
  });

  test("an unknown provider is not_ready; a key command that fails is invalid (2) without the key on stderr", async () => {
    const unknown = await auth(["check", "--provider", "nope", "--json"]);
    expect(unknown.exitCode).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({ status: "not_ready", provider: "nope", reason: "provider_not_found" });
    writeAuth({ openai: { type: "api_key", key: "!exit 3" } });
    const invalid = await auth(["check", "--provider", "openai"]);
    expect(invalid.stdout).toBe("invalid\n");
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain("openai");
  });

  test("without --provider or --model it is a usage error (2)", async () => {
    const result = await auth(["check"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("--provider");
    expect((await auth(["check", "--provider", "openai", "--min-expiry", "1h"])).exitCode).toBe(2);
  });
});

describe("xcsh auth print-api-key", () => {
  test("prints the key a request would use (auth.json before models.json before the environment) on stdout only", async () => {
    const fromEnv = await auth(["print-api-key", "--provider", "openai"], { OPENAI_API_KEY: "sk-env-1" });
    expect([fromEnv.stdout, fromEnv.stderr, fromEnv.exitCode]).toEqual(["sk-env-1\n", "", 0]);
    home.writeModelsJson({ providers: { openai: { apiKey: "sk-models-json" } } });
    expect((await auth(["print-api-key", "--provider", "openai"], { OPENAI_API_KEY: "sk-env-1" })).stdout).toBe("sk-models-json\n");
    writeAuth({ openai: { type: "api_key", key: "sk-stored-2" } });
    const stored = await auth(["print-api-key", "--model", "openai/gpt-4o"]);
    expect([stored.stdout, stored.stderr, stored.exitCode]).toEqual(["sk-stored-2\n", "", 0]);
  });

  test("no key, or a sign-in instead of a key: exit 1 with a reason on stderr and nothing on stdout", async () => {
    const none = await auth(["print-api-key", "--provider", "openai"]);
    expect([none.stdout, none.exitCode]).toEqual(["", 1]);
    expect(none.stderr).toContain("no API key is configured");
    writeAuth({ anthropic: { type: "oauth", access: "at-secret-9", refresh: "rt", expires: inTwoHours() } });
    const oauth = await auth(["print-api-key", "--provider", "anthropic"]);
    expect(oauth.exitCode).toBe(1);
    expect(oauth.stdout).toBe("");
    expect(oauth.stderr).toContain("not an API key");
    expect(oauth.stderr).not.toContain("at-secret-9");
  });
});

describe("xcsh auth print-bearer-token", () => {
  test("prints a stored sign-in's token; --min-expiry longer than it lives fails without printing it", async () => {
    writeAuth({ anthropic: { type: "oauth", access: "at-secret-9", refresh: "rt", expires: inTwoHours() } });
    const token = await auth(["print-bearer-token", "--provider", "anthropic"]);
    expect([token.stdout, token.stderr, token.exitCode]).toEqual(["at-secret-9\n", "", 0]);
    expect((await auth(["print-bearer-token", "--provider", "anthropic", "--min-expiry", "90m"])).stdout).toBe("at-secret-9\n");
    const tooShort = await auth(["print-bearer-token", "--provider", "anthropic", "--min-expiry", "3h"]);
    expect(tooShort.exitCode).toBe(1);
    expect(tooShort.stdout).toBe("");
    expect(tooShort.stderr).not.toContain("at-secret-9");
  });

  test("an API key is no bearer token", async () => {
    const result = await auth(["print-bearer-token", "--provider", "openai"], { OPENAI_API_KEY: "sk-env-1" });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toContain("sk-env-1");
  });
});

describe("xcsh auth login and logout switches (pi 1.6.0)", () => {
  const stored = () => JSON.parse(readFileSync(authFile, "utf8"));

  test("--api-key stores the key read from input; --no-browser is accepted", async () => {
    const login = await auth(["login", "openai", "--api-key"], {}, "sk-from-input\n");
    expect(login.exitCode).toBe(0);
    expect(stored().openai).toEqual({ type: "api_key", key: "sk-from-input" });
    expect(login.stderr).not.toContain("sk-from-input");
    const quiet = await auth(["login", "groq", "--no-browser"], {}, "gsk-from-input\n");
    expect(quiet.exitCode).toBe(0);
    expect(stored().groq).toEqual({ type: "api_key", key: "gsk-from-input" });
  });

  test("--api-key is refused for a provider that only signs in, and beside --no-browser", async () => {
    const copilot = await auth(["login", "github-copilot", "--api-key"], {}, "x\n");
    expect(copilot.exitCode).toBe(2);
    expect(copilot.stderr).toContain("github-copilot signs in with an account; it takes no API key.");
    const both = await auth(["login", "openai", "--api-key", "--no-browser"], {}, "x\n");
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("--api-key cannot go with --no-browser");
    const inline = await auth(["login", "openai", "--api-key=sk-on-the-line"]);
    expect(inline.exitCode).toBe(2);
    expect(inline.stderr).toContain("the key is read from input");
    expect(inline.stderr).not.toContain("sk-on-the-line");
  });

  test("logout with nothing stored exits 0, so it is safe to repeat", async () => {
    writeAuth({ groq: { type: "api_key", key: "gsk-1" } });
    const first = await auth(["logout", "groq"]);
    expect(first.exitCode).toBe(0);
    const again = await auth(["logout", "groq"]);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain("No credential of groq is stored");
  });
});
