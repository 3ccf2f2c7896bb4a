/**
 * A command's progress display reaches the model as a terminal leaves it: git clone's
 * "Counting objects: 1% … 100%" redraws one line hundreds of times with carriage
 * returns, and the model is sent the last state of each line, not every frame
 * (docs/costs.md). Seen in the request the built binary sends after the bash call.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeResponse, RecordedRequest } from "../support/fake-llm/server.ts";
import { createRpcFixture, type RpcFixture } from "../support/rpc-harness.ts";

const fixtures: RpcFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.cleanup()));
});

const GIT = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main"];

/** The text of the last tool_result in an Anthropic request. */
function lastToolResult(request: RecordedRequest): string {
  const results = request.body.messages.flatMap((message: any) => (Array.isArray(message.content) ? message.content : [])).filter((part: any) => part.type === "tool_result");
  const content = results.at(-1).content;
  return typeof content === "string" ? content : content.map((part: any) => part.text ?? "").join("");
}

test("git clone --progress reaches the model as its final lines, not every redraw", async () => {
  const fixture = createRpcFixture({ api: "anthropic-messages" });
  fixtures.push(fixture);
  // A repository with enough objects for git to draw its progress in many steps.
  const source = join(fixture.cwd, "source");
  mkdirSync(source);
  for (let i = 0; i < 300; i++) writeFileSync(join(source, `file-${i}.txt`), `file ${i}\n`);
  for (const args of [["init", "-q", "."], ["add", "-A"], ["commit", "-q", "-m", "three hundred files"]]) {
    expect(Bun.spawnSync([...GIT, ...args], { cwd: source }).exitCode).toBe(0);
  }
  const command = "git clone --progress --no-local source mirror 2>&1";
  // What the command prints, as a pipe receives it: every redraw.
  const raw = Bun.spawnSync(["bash", "-c", command.replace("mirror", "raw-mirror")], { cwd: fixture.cwd }).stdout.toString();
  expect(raw.split("\r").length).toBeGreaterThan(50);

  const rpc = fixture.start();
  const steps: FakeResponse[] = [
    { content: [{ type: "toolCall", name: "bash", arguments: { command } }] },
    { content: [{ type: "text", text: "cloned" }] },
  ];
  fixture.server.enqueue(...steps);
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "clone source to mirror" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 30_000, from);

  const sent = lastToolResult(fixture.server.requests.at(-1)!);
  // The model still learns what happened: the clone, and each phase's final count.
  expect(sent).toContain("Cloning into 'mirror'...");
  expect(sent).toMatch(/Counting objects: 100% \(\d+\/\d+\), done\./);
  expect(sent).toMatch(/Receiving objects: 100% \(\d+\/\d+\)/);
  // Not the frames before: no intermediate percentage, one line per phase.
  expect(sent).not.toMatch(/objects: +50%/);
  expect(sent.match(/Counting objects:/g)).toHaveLength(1);
  expect(sent).not.toContain("\r");
  expect(sent.length * 10).toBeLessThan(raw.length);
}, 60_000);

test("a shorter redraw leaves what a terminal leaves, and a plain log is sent unchanged", async () => {
  const fixture = createRpcFixture({ api: "anthropic-messages" });
  fixtures.push(fixture);
  const command = "printf 'step 1\\nbuilding 10%%\\rbuilding 100%%\\n'; printf 'abcdef\\rXY\\n'; printf 'last line'";
  const rpc = fixture.start();
  fixture.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command } }] }, { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "build" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
  expect(lastToolResult(fixture.server.requests.at(-1)!)).toBe("step 1\nbuilding 100%\nXYcdef\nlast line");
}, 60_000);
