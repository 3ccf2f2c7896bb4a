/**
 * `ctx.sessionManager.appendContextEdit(targetId, replacement)` (pi 0.87.1's
 * SessionManager API) from an extension, through the built binary: the edit is
 * checked, written to the session file, and applies from the next request of
 * the running session; the model never sees what it left out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterAll(() => fixture.cleanup());

const EXTENSION = `export default function (pi) {
  pi.registerCommand("hide", { handler: async (_args, ctx) => {
    const manager = ctx.sessionManager;
    const branch = manager.getBranch();
    const result = branch.findLast((e) => e.type === "message" && e.message.role === "toolResult");
    const answer = branch.findLast((e) => e.type === "message" && e.message.role === "assistant");
    const replaced = manager.appendContextEdit(result.id, { content: "output hidden by the extension" });
    const omitted = manager.appendContextEdit(answer.id, null);
    const state = manager.appendCustomEntry("state", {});
    const outcomes = [];
    for (const [target, replacement] of [["nope", null], [state, null], [result.id, { content: 42 }], [result.id, "bare string"]]) {
      try { outcomes.push("accepted " + manager.appendContextEdit(target, replacement)); } catch (error) { outcomes.push(error.message); }
    }
    ctx.ui.notify(JSON.stringify({ replaced, omitted, outcomes, leaf: manager.getLeafId() }));
  } });
}`;

test("an extension's context edits apply from the next request; bad ones are refused with a reason", async () => {
  const ext = fixture.writeExtension("hide.ts", EXTENSION);
  fixture.server.enqueue(
    { content: [{ type: "toolCall", name: "bash", arguments: { command: "echo visible-$((40+2))" } }] },
    { content: [{ type: "text", text: "the answer to hide" }] },
    { content: [{ type: "text", text: "next answer" }] },
  );
  const rpc = fixture.start(withExtensions(ext));
  await rpc.request({ type: "prompt", message: "run it" });
  await rpc.waitForEvent("agent_end", undefined, 10_000);
  expect(JSON.stringify(fixture.server.requests.at(-1)!.body.messages)).toContain("visible-42");

  await rpc.request({ type: "prompt", message: "/hide" });
  const report = JSON.parse((await rpc.waitFor((frame) => frame.method === "notify")).message);
  expect(report.outcomes).toEqual([
    "appendContextEdit(): entry nope not found in this session",
    expect.stringContaining("has no content the model sees that can be edited"),
    expect.stringContaining('"replacement.content" must be a string or an array'),
    expect.stringContaining('"replacement" must be null or { content }'),
  ]);

  const from = rpc.mark();
  await rpc.request({ type: "prompt", message: "what now?" });
  await rpc.waitForEvent("agent_end", undefined, 10_000, from);
  const sent = JSON.stringify(fixture.server.requests.at(-1)!.body.messages);
  expect(sent).toContain("output hidden by the extension");
  expect(sent).not.toContain("visible-42");
  expect(sent).not.toContain("the answer to hide");
  expect(sent).toContain("what now?");

  // The running transcript follows the edits too, as after a reload.
  const messages = (await rpc.request({ type: "get_messages" })).data.messages;
  expect(messages.find((message: any) => message.role === "toolResult").content).toEqual([{ type: "text", text: "output hidden by the extension" }]);
  const file = (await rpc.request({ type: "get_state" })).data.sessionFile;
  expect(await rpc.close()).toBe(0);

  // On disk: two context_edit entries with the ids the calls returned; the string became one text block.
  const entries = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  const edits = entries.filter((entry) => entry.type === "context_edit");
  expect(edits.map((entry) => entry.id)).toEqual([report.replaced, report.omitted]);
  expect(edits[0].replacement).toEqual({ content: [{ type: "text", text: "output hidden by the extension" }] });
  expect(edits[1].replacement).toBeNull();
  // The targets themselves are unchanged.
  const target = entries.find((entry) => entry.id === edits[0].targetId);
  expect(target.message.content[0].text).toBe("visible-42");
  expect(notices(rpc)).toHaveLength(1);
});
