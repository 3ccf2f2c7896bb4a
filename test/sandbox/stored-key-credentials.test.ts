/**
 * More credentials out of the commands' reach: Anthropic's token variables (pi 0.87.1
 * reads ANTHROPIC_AUTH_TOKEN and ANTHROPIC_OAUTH_TOKEN), and any variable an auth.json
 * entry takes its key from (`"key": "$MY_GROQ_SECRET"`), whatever its name. What the
 * model sees is checked where it sees it: the `env` tool result the fake server receives.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, textOf, type RpcFixture } from "../support/rpc-harness.ts";

const HIDDEN = {
  ANTHROPIC_AUTH_TOKEN: "anthropic-bearer-secret",
  ANTHROPIC_OAUTH_TOKEN: "anthropic-oauth-secret",
  MY_GROQ_SECRET: "groq-stored-secret",
  MY_BRACED_SECRET: "braced-stored-secret",
};
/** Named in auth.json, but not as a variable: a literal key, a command, an `env` value. */
const KEPT = { PLAIN_NAME: "plain-kept", CMD_VAR: "cmd-kept", CLOUDFLARE_ACCOUNT_ID: "account-kept" };

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
  Object.assign(fixture.home.env, HIDDEN, KEPT);
  const auth = {
    groq: { type: "api_key", key: "$MY_GROQ_SECRET" },
    mistral: { type: "api_key", key: "prefix-${MY_BRACED_SECRET}" },
    cerebras: { type: "api_key", key: "PLAIN_NAME" },
    xai: { type: "api_key", key: "!echo $CMD_VAR" },
    "cloudflare-workers-ai": { type: "api_key", key: "literal", env: { CLOUDFLARE_ACCOUNT_ID: "from-auth" } },
    broken: "not an entry",
  };
  writeFileSync(join(fixture.home.agentDir, "auth.json"), JSON.stringify(auth), { mode: 0o600 });
});
afterAll(() => fixture.cleanup());

test("the bash tool's `env` shows neither Anthropic's tokens nor the variables auth.json keys come from", async () => {
  const rpc = fixture.start(["--model", "fake/fake-model"]);
  fixture.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "env" } }] }, { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "show the environment" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 10_000, from);
  const toolResult = fixture.server.requests.at(-1)!.body.messages.findLast((message: { role: string }) => message.role === "tool");
  const text = textOf(toolResult);
  for (const [name, value] of Object.entries(HIDDEN)) {
    expect(text).not.toContain(`${name}=`);
    expect(text).not.toContain(value);
  }
  for (const [name, value] of Object.entries(KEPT)) expect(text).toContain(`${name}=${value}`);
  expect(await rpc.close()).toBe(0);
});
