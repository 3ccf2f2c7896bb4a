/**
 * xcsh's own RpcClient and pi 0.87.1's additions: promptAndWait until agent_settled,
 * and the methods for clear_queue, get_available_thinking_levels, get_entries and get_tree.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RpcClient, type AgentSessionEvent } from "../../../src/modes/rpc/rpc-client.ts";
import { ensureBinary, makeTestHome, type TestHome } from "../../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../../support/fake-llm/server.ts";

let server: FakeLlmServer;
let home: TestHome;
let client: RpcClient;

beforeAll(async () => {
  server = startFakeLlm();
  home = makeTestHome();
  home.writeModelsJson({
    providers: { fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "r", reasoning: true }] } },
  });
  home.writeSettings({ retry: { enabled: true, maxRetries: 2, baseDelayMs: 10 } });
  // An input handler that consumes "swallow": a prompt that starts no run.
  mkdirSync(join(home.agentDir, "extensions"), { recursive: true });
  writeFileSync(
    join(home.agentDir, "extensions", "swallow.ts"),
    `export default (pi) => pi.on("input", (event) => (event.text === "swallow" ? { action: "handled" } : { action: "continue" }));\n`,
  );
  client = new RpcClient({ command: [ensureBinary()], args: ["--no-session", "--model", "fake/r"], cwd: home.home, env: home.env });
  await client.start();
}, 120_000);

afterAll(async () => {
  await client?.stop(2_000);
  await server.close();
  home.cleanup();
});

test("promptAndWait until agent_settled waits out a retry; the default stops at the first agent_end", async () => {
  server.enqueue({ type: "error", status: 529, message: "Overloaded" }, { content: [{ type: "text", text: "second try" }] });
  const settled = await client.promptAndWait("go", { until: "agent_settled", timeoutMs: 10_000 });
  expect(settled.at(-1)?.type).toBe("agent_settled");
  expect(settled.filter((event) => event.type === "agent_end").map((event) => (event as { willRetry: boolean }).willRetry)).toEqual([true, false]);

  server.enqueue({ type: "error", status: 529, message: "Overloaded" }, { content: [{ type: "text", text: "again" }] });
  const first = await client.promptAndWait("go again", { timeoutMs: 10_000 });
  expect(first.at(-1)).toMatchObject({ type: "agent_end", willRetry: true });
  await client.waitForEvent((event) => event.type === "agent_settled", 10_000);
});

test("clearQueue, getAvailableThinkingLevels, getEntries and getTree", async () => {
  expect(await client.getAvailableThinkingLevels()).toEqual({ levels: ["off", "minimal", "low", "medium", "high"] });
  await client.setThinkingLevel("max");
  expect((await client.getState()).thinkingLevel).toBe("high");

  server.enqueue({ content: [{ type: "text", text: "slow" }], delayMs: 500 });
  const settled = client.waitForEvent((event) => event.type === "agent_settled", 10_000);
  await client.prompt("slowly");
  await client.followUp("later");
  expect(await client.clearQueue()).toEqual({ steering: [], followUp: ["later"] });
  await settled;

  const { entries, leafId } = await client.getEntries();
  expect(entries.length).toBeGreaterThan(4);
  expect(leafId).toBe(entries.at(-1)!.id);
  expect((await client.getEntries(entries.at(-2)!.id)).entries).toEqual([entries.at(-1)!]);
  const { tree } = await client.getTree();
  expect(tree[0].entry).toEqual(entries[0]);

  const updates: AgentSessionEvent[] = [];
  const stop = client.onEvent((event) => event.type === "bash_execution_update" && updates.push(event));
  await client.bash("echo streamed");
  stop();
  expect(updates).toEqual([{ type: "bash_execution_update", id: expect.stringMatching(/^req_/), delta: "streamed\n" }]);
});

test("prompt, steer and followUp resolve with pi 1.6.0's disposition; promptAndWait of a handled prompt returns no events at once", async () => {
  expect(await client.promptAndWait("swallow", { until: "agent_settled", timeoutMs: 5_000 })).toEqual([]);
  server.enqueue({ content: [{ type: "text", text: "slow" }], delayMs: 500 });
  const settled = client.waitForEvent((event) => event.type === "agent_settled", 10_000);
  expect(await client.prompt("slowly")).toEqual({ disposition: "started" });
  expect(await client.steer("this")).toEqual({ disposition: "queued" });
  expect(await client.followUp("swallow")).toEqual({ disposition: "handled" });
  await client.clearQueue();
  await settled;
});
