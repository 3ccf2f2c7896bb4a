/**
 * The event families of seed 003 as a host sees them through the built binary:
 * every agent/turn/message/tool event reaches handlers in order, input can be
 * transformed or handled, before_agent_start chains the system prompt and
 * injects a message, context reshapes the request only, message_end replaces a
 * message, provider request/response hooks see the payload, model and
 * thinking changes are announced, and session moves can be cancelled.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture({ otherModels: [{ id: "other-model", reasoning: true }] });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const lastRequest = () => fixture.server.requests.at(-1)!.body;

/** An extension that reports every event it sees as a notify request, so the test reads the order from stdout. */
const RECORDER = `export default function (pi) {
  const names = ["session_start","resources_discover","agent_start","agent_end","turn_start","turn_end","message_start","message_end","tool_execution_start","tool_execution_update","tool_execution_end","tool_call","tool_result","before_agent_start","context","before_provider_request","after_provider_response"];
  for (const name of names) pi.on(name, (event, ctx) => {
    const extra = name === "turn_start" || name === "turn_end" ? ":" + event.turnIndex : name.startsWith("message_") ? ":" + event.message.role : name === "session_start" ? ":" + event.reason : "";
    ctx.ui.notify(name + extra);
  });
}`;

/**
 * after_provider_response comes once the HTTP response is in, before its body is read; the
 * assistant's message_start may come just before or after it, depending on the provider.
 */
function providerOpen(run: string[], call: number): string[] {
  const index = run.flatMap((name, i) => (name === "before_provider_request" ? [i] : []))[call];
  const next = run.slice(index + 1, index + 3);
  expect([...next].sort()).toEqual(["after_provider_response", "message_start:assistant"]);
  return next;
}

describe("agent event families", () => {
  test("handlers see session, agent, turn, message, tool and provider events in the seed's order", async () => {
    const ext = fixture.writeExtension("recorder.ts", RECORDER);
    const rpc = fixture.start(withExtensions(ext));
    fixture.server.enqueue({ content: [{ type: "toolCall", id: "t1", name: "bash", arguments: { command: "echo hi" } }] }, { content: [{ type: "text", text: "done" }] });
    await rpc.request({ type: "prompt", message: "go" });
    await rpc.waitForEvent("agent_end");
    await rpc.request({ type: "get_state" });
    const seen = notices(rpc);
    expect(seen.slice(0, 2)).toEqual(["session_start:startup", "resources_discover"]);
    const run = seen.slice(2);
    expect(run).toEqual([
      "before_agent_start",
      "agent_start",
      "turn_start:0",
      "message_start:user",
      "message_end:user",
      "context",
      "before_provider_request",
      ...providerOpen(run, 0),
      "message_end:assistant",
      "tool_execution_start",
      "tool_call",
      ...run.filter((name) => name === "tool_execution_update"),
      "tool_result",
      "tool_execution_end",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end:0",
      "turn_start:1",
      "context",
      "before_provider_request",
      ...providerOpen(run, 1),
      "message_end:assistant",
      "turn_end:1",
      "agent_end",
    ]);
    expect(await rpc.close()).toBe(0);
  });

  test("input transforms chain, 'handled' stops the prompt, and the source is reported", async () => {
    const ext = fixture.writeExtension(
      "input.ts",
      `export default function (pi) {
  pi.on("input", (event, ctx) => {
    if (event.text === "ping") { ctx.ui.notify("pong from " + event.source); return { action: "handled" }; }
    if (event.text.startsWith("?quick ")) return { action: "transform", text: "Respond briefly: " + event.text.slice(7) };
  });
  pi.on("input", (event) => ({ action: "transform", text: event.text + " [checked]" }));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "ping" });
    await rpc.waitFor((frame) => frame.method === "notify");
    expect(notices(rpc)).toEqual(["pong from rpc"]);
    expect(fixture.server.requests.length).toBe(before);

    await rpc.request({ type: "prompt", message: "?quick what is 2+2" });
    await rpc.waitForEvent("agent_end");
    const user = lastRequest().messages.find((message: any) => message.role === "user");
    expect(JSON.stringify(user.content)).toContain("Respond briefly: what is 2+2 [checked]");
    expect(await rpc.close()).toBe(0);
  });

  test("before_agent_start chains the system prompt for the run and injects a persisted message", async () => {
    const ext = fixture.writeExtension(
      "pirate.ts",
      `export default function (pi) {
  pi.on("before_agent_start", (event) => ({ systemPrompt: event.systemPrompt + "\\nSpeak like a pirate." }));
  pi.on("before_agent_start", (event, ctx) => ({
    systemPrompt: event.systemPrompt + "\\nChained:" + (ctx.getSystemPrompt().includes("pirate") ? "yes" : "no") + ":" + event.systemPromptOptions.selectedTools.join(","),
    message: { customType: "rules", content: "Rule: be brief", display: true },
  }));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end");
    const body = lastRequest();
    const system = body.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain("Speak like a pirate.\nChained:yes:read,bash,edit,write");
    expect(JSON.stringify(body.messages.slice(1))).toContain("Rule: be brief");
    const state = await rpc.request({ type: "get_state" });
    await rpc.close();
    const entries = (await Bun.file(state.data.sessionFile).text()).trim().split("\n").map((line) => JSON.parse(line));
    expect(entries).toContainEqual(expect.objectContaining({ type: "custom_message", customType: "rules", content: "Rule: be brief", display: true }));
  });

  test("context reshapes what the model receives but not the transcript; message_end replaces the final message", async () => {
    const ext = fixture.writeExtension(
      "context.ts",
      `export default function (pi) {
  pi.on("context", (event) => ({ messages: event.messages.filter((m) => !(m.role === "user" && JSON.stringify(m.content).includes("PRIVATE"))) }));
  pi.on("message_end", (event) => {
    if (event.message.role !== "assistant") return;
    return { message: { ...event.message, content: [{ type: "text", text: "[redacted by extension]" }] } };
  });
  pi.on("message_end", (event) => { if (event.message.role === "assistant") return { message: { role: "user", content: "role change ignored" } }; });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "PRIVATE note" });
    await rpc.waitForEvent("agent_end");
    const beforePrompt1 = rpc.mark();
    await rpc.request({ type: "prompt", message: "public question" });
    const end = await rpc.waitForEvent("agent_end", undefined, undefined, beforePrompt1);
    const sent = JSON.stringify(lastRequest().messages);
    expect(sent).not.toContain("PRIVATE");
    expect(sent).toContain("public question");
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(JSON.stringify(messages)).toContain("PRIVATE note");
    const replies = messages.filter((message: any) => message.role === "assistant");
    expect(replies.map((message: any) => message.content[0].text)).toEqual(["[redacted by extension]", "[redacted by extension]"]);
    const messageEnds = rpc.ofType("message_end").filter((frame) => frame.message.role === "assistant");
    expect(messageEnds.at(-1)!.message.content[0].text).toBe("[redacted by extension]");
    expect(end.type).toBe("agent_end");
    expect(await rpc.close()).toBe(0);
  });

  test("pi.on returns an unsubscribe function, as in pi 0.87.1: a handler that removes itself runs once", async () => {
    const ext = fixture.writeExtension(
      "once.ts",
      `export default function (pi) {
  let calls = 0;
  const off = pi.on("before_agent_start", (event, ctx) => {
    calls++;
    off();
    off();
    ctx.ui.notify("once:" + calls);
  });
  pi.on("before_agent_start", (event, ctx) => ctx.ui.notify("always:" + event.prompt));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    for (const message of ["first", "second"]) {
      const before = rpc.mark();
      await rpc.request({ type: "prompt", message });
      await rpc.waitForEvent("agent_settled", undefined, undefined, before);
    }
    // The handler after the removed one still runs on the first prompt (removal during dispatch skips nobody).
    expect(notices(rpc)).toEqual(["once:1", "always:first", "always:second"]);
    expect(await rpc.close()).toBe(0);
  });

  test("before_provider_request can replace the payload; after_provider_response sees the status", async () => {
    const ext = fixture.writeExtension(
      "payload.ts",
      `export default function (pi) {
  pi.on("before_provider_request", (event) => ({ ...event.payload, temperature: 0.123 }));
  pi.on("after_provider_response", (event, ctx) => ctx.ui.notify("status " + event.status + " from " + event.model.id));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end");
    expect(lastRequest().temperature).toBe(0.123);
    expect(notices(rpc)).toContain("status 200 from fake-model");
    expect(await rpc.close()).toBe(0);
  });

  test("model_select and thinking_level_select announce changes made by the host and by pi.setModel", async () => {
    const ext = fixture.writeExtension(
      "models.ts",
      `export default function (pi) {
  pi.on("model_select", (event, ctx) => ctx.ui.notify("model " + (event.previousModel?.id ?? "none") + " -> " + event.model.id + " (" + event.source + ")"));
  pi.on("thinking_level_select", (event, ctx) => ctx.ui.notify("thinking " + event.previousLevel + " -> " + event.level));
  pi.registerCommand("back", { handler: async (_a, ctx) => {
    const ok = await pi.setModel(ctx.modelRegistry.find("fake", "fake-model"));
    ctx.ui.notify("setModel " + ok + " thinking " + pi.getThinkingLevel());
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    expect((await rpc.request({ type: "set_model", provider: "other", modelId: "other-model" })).success).toBe(true);
    expect((await rpc.request({ type: "set_thinking_level", level: "high" })).success).toBe(true);
    await rpc.request({ type: "prompt", message: "/back" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("setModel"));
    // Back on a model without reasoning the level is clamped: announced before the model change (seed 003).
    expect(notices(rpc)).toEqual([
      "model fake-model -> other-model (set)",
      "thinking off -> high",
      "thinking high -> off",
      "model other-model -> fake-model (set)",
      "setModel true thinking off",
    ]);
    expect((await rpc.request({ type: "get_state" })).data.model.id).toBe("fake-model");
    expect(await rpc.close()).toBe(0);
  });
});

describe("session events", () => {
  test("session_before_switch and session_before_fork can cancel; shutdown and start bracket a replacement", async () => {
    const ext = fixture.writeExtension(
      "guard.ts",
      `let blockNext = true;
export default function (pi) {
  pi.on("session_start", (event, ctx) => ctx.ui.notify("start " + event.reason + (event.previousSessionFile ? " prev" : "")));
  pi.on("session_shutdown", (event, ctx) => ctx.ui.notify("shutdown " + event.reason));
  pi.on("session_before_switch", (event, ctx) => {
    ctx.ui.notify("before_switch " + event.reason);
    if (blockNext) { blockNext = false; return { cancel: true }; }
  });
  pi.on("session_before_fork", (event) => ({ cancel: event.position === "at" }));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "first" });
    await rpc.waitForEvent("agent_end");
    expect((await rpc.request({ type: "new_session" })).data).toEqual({ cancelled: true });
    expect((await rpc.request({ type: "clone" })).data).toEqual({ cancelled: true });
    const fileBefore = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect((await rpc.request({ type: "new_session" })).data).toEqual({ cancelled: false });
    const fileAfter = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(fileAfter).not.toBe(fileBefore);
    expect(notices(rpc)).toEqual(["start startup", "before_switch new", "before_switch new", "shutdown new", "start new prev"]);
    expect(await rpc.close()).toBe(0);
    expect(notices(rpc).at(-1)).toBe("shutdown quit");
  });

  test("session_before_compact supplies a custom summary; session_compact reports it", async () => {
    const ext = fixture.writeExtension(
      "compact.ts",
      `export default function (pi) {
  pi.on("session_before_compact", (event) => ({
    compaction: { summary: "CUSTOM SUMMARY of " + event.branchEntries.length + " entries", firstKeptEntryId: event.preparation.firstKeptEntryId, tokensBefore: event.preparation.tokensBefore },
  }));
  pi.on("session_compact", (event, ctx) => ctx.ui.notify("compacted fromExtension=" + event.fromExtension + " " + event.compactionEntry.summary));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    for (const message of ["one", "two", "three"]) {
      fixture.server.enqueue({ content: [{ type: "text", text: "answer ".repeat(400) }] });
      const beforePrompt2 = rpc.mark();
      await rpc.request({ type: "prompt", message });
      await rpc.waitForEvent("agent_end", undefined, undefined, beforePrompt2);
    }
    const before = fixture.server.requests.length;
    const response = await rpc.request({ type: "compact", keepRecentTokens: 100 });
    expect(response.success).toBe(true);
    expect(response.data.summary).toStartWith("CUSTOM SUMMARY of ");
    // No model call was made for the summary.
    expect(fixture.server.requests.length).toBe(before);
    expect(notices(rpc).at(-1)).toStartWith("compacted fromExtension=true CUSTOM SUMMARY");
    expect(await rpc.close()).toBe(0);
  });
});
