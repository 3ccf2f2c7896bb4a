/**
 * pi 1.6.0's ReadonlySessionManager readers an extension calls on `ctx.sessionManager`:
 * `buildContextEntries()`, `buildSessionProjection()` and `getEntryCount()`, at the
 * session's leaf, in the built binary (RPC mode, fake LLM). After a compaction the
 * context starts at the compaction entry and leaves the summarized turns out, while the
 * entry count still counts every entry in the file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterAll(() => fixture.cleanup());

const EXTENSION = `export default function (pi) {
  pi.registerCommand("report", {
    handler: async (_args, ctx) => {
      const manager = ctx.sessionManager;
      const projection = manager.buildSessionProjection();
      ctx.ui.notify(JSON.stringify({
        contextTypes: manager.buildContextEntries().map((entry) => entry.type),
        count: manager.getEntryCount(),
        allEntries: manager.getEntries().length,
        projectionRoles: projection.messages.map((message) => message.role),
        projectionSources: projection.entries.map((item) => item.sourceEntry.type),
        projectionModel: projection.model,
      }), "info");
    },
  });
}`;

describe("ctx.sessionManager readers of pi 1.6.0", () => {
  test("buildContextEntries, buildSessionProjection and getEntryCount follow the leaf, compaction included", async () => {
    const ext = fixture.writeExtension("readers.ts", EXTENSION);
    const rpc = fixture.start(withExtensions(ext));
    for (const message of ["one", "two", "three"]) {
      fixture.server.enqueue({ content: [{ type: "text", text: "answer ".repeat(400) }] });
      const mark = rpc.mark();
      await rpc.request({ type: "prompt", message });
      await rpc.waitForEvent("agent_end", undefined, undefined, mark);
    }

    const report = async () => {
      const mark = rpc.mark();
      await rpc.request({ type: "prompt", message: "/report" });
      await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000, "the report", mark);
      return JSON.parse(notices(rpc).at(-1)!);
    };

    const before = await report();
    expect(before.count).toBe(before.allEntries);
    expect(before.contextTypes.filter((type: string) => type === "message")).toHaveLength(6);
    expect(before.projectionRoles).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(before.projectionSources).toEqual(["message", "message", "message", "message", "message", "message"]);
    expect(before.projectionModel).toEqual({ provider: "fake", modelId: "fake-model" });

    fixture.server.enqueue({ content: [{ type: "text", text: "SUMMARY of the first turns" }] });
    const compacted = await rpc.request({ type: "compact", keepRecentTokens: 100 });
    expect(compacted.success).toBe(true);

    const after = await report();
    expect(after.count).toBe(after.allEntries);
    expect(after.count).toBe(before.count + 1);
    expect(after.contextTypes[0]).toBe("compaction");
    expect(after.contextTypes.length).toBeLessThan(before.contextTypes.length);
    expect(after.projectionRoles[0]).toBe("compactionSummary");
    expect(after.projectionSources[0]).toBe("compaction");
    expect(await rpc.close()).toBe(0);
  }, 60_000);
});
