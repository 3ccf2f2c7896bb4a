/**
 * A model of an API-key provider without a key, where no person can be asked (RPC,
 * ACP, print): the error names both ways to give it one — the variable to set and the
 * command that stores a key (`xcsh auth login <provider>`). Sign-in providers have the
 * same rule, tested in github-copilot.test.ts.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { AcpClient } from "../modes/acp/support/acp-harness.ts";

const GROQ_MODEL = "groq/llama-3.3-70b-versatile";
const ADVICE = "set GROQ_API_KEY, run `xcsh auth login groq`";

let home: TestHome;
const running: RpcProcess[] = [];

beforeAll(() => {
  ensureBinary();
});
beforeEach(() => {
  home = makeTestHome();
});
afterEach(() => {
  for (const rpc of running.splice(0)) rpc.kill();
  home.cleanup();
});

describe("a missing API key names the variable and the command that stores one", () => {
  test("print mode: starting on a Groq model without a key", async () => {
    const result = await runXcsh(["-p", "hi", "--no-session", "--model", GROQ_MODEL], { env: home.env });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(ADVICE);
  });

  test("RPC: set_model to a provider whose stored key was removed meanwhile", async () => {
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ groq: { type: "api_key", key: "gsk-stored" } }), { mode: 0o600 });
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--no-session", "--model", GROQ_MODEL] });
    running.push(rpc);
    expect((await rpc.request({ type: "get_state" }, 30_000)).success).toBe(true);
    expect((await runXcsh(["auth", "logout", "groq"], { env: home.env })).exitCode).toBe(0);
    const refused = await rpc.request({ type: "set_model", provider: "groq", modelId: "llama-3.1-8b-instant" }, 30_000);
    expect(refused.success).toBe(false);
    expect(refused.error).toContain(`No API key for groq/llama-3.1-8b-instant: set GROQ_API_KEY, or run \`xcsh auth login groq\`.`);
  });

  test("ACP: session/new on a Groq model without a key is an auth error with the same advice", async () => {
    const client = new AcpClient(home.env, home.home, { args: ["--no-session", "--model", GROQ_MODEL] });
    try {
      await client.initialize();
      const error = await client.agent.request("session/new", { cwd: home.home, mcpServers: [] }).catch((failure) => failure);
      expect(error.message).toContain(ADVICE);
    } finally {
      await client.close();
    }
  });
});
