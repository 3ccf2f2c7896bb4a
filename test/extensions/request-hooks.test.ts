/**
 * pi 0.87.1's request and notification events through the built binary:
 * before_provider_headers reaches the real HTTP headers (OpenAI Chat
 * Completions and Anthropic Messages), context_with_system owns the system
 * prompt and messages of one call, session_compact_failed reports a failed or
 * cancelled compaction, ui_prompt_start/end wrap blocking dialogs (RPC and
 * print mode), and session_info_changed follows a new session name.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";

const reply = (text: string) => ({ content: [{ type: "text" as const, text }] });

async function promptAndSettle(rpc: RpcProcess, message: string): Promise<number> {
  const from = rpc.mark();
  await rpc.request({ type: "prompt", message });
  await rpc.waitForEvent("agent_settled", undefined, 10_000, from);
  return from;
}

/** Adds two headers, then removes one of them, the provider's configured header and `credentialHeader`. */
const headersExtension = (credentialHeader: string) => `export default function (pi) {
  pi.on("before_provider_headers", (e, ctx) => {
    ctx.ui.notify("headers seen " + JSON.stringify(Object.keys(e.headers).sort()));
    e.headers["x-trace-id"] = "trace-123";
    e.headers["x-drop-me"] = "soon gone";
    return { ignored: true };
  });
  pi.on("before_provider_headers", (e) => {
    e.headers["x-drop-me"] = null;
    e.headers["x-model-header"] = null;
    e.headers["${credentialHeader}"] = null;
  });
}`;

/** A fixture whose provider sends its own header (models.json), on the given API. */
function headerFixture(api: "openai-completions" | "anthropic-messages"): ExtensionFixture {
  const fixture = createExtensionFixture({ api });
  fixture.home.writeModelsJson({
    providers: { fake: { baseUrl: fixture.server.baseUrl(api), api, apiKey: "test-key", headers: { "x-model-header": "from-models-json" }, models: [{ id: "fake-model" }] } },
  });
  return fixture;
}

describe("before_provider_headers", () => {
  for (const [api, credentialHeader] of [
    ["openai-completions", "authorization"],
    ["anthropic-messages", "x-api-key"],
  ] as const) {
    test(`${api}: added headers reach the server, null removes a header (even the provider's own), the return value is ignored`, async () => {
      const fixture = headerFixture(api);
      try {
        // The second handler removes the credential header too: the server must not see it.
        const ext = fixture.writeExtension("headers.ts", headersExtension(credentialHeader));
        const rpc = fixture.start(withExtensions(ext));
        fixture.server.enqueue(reply("ok"));
        await promptAndSettle(rpc, "hi");
        const { headers } = fixture.server.requests.at(-1)!;
        expect(headers["x-trace-id"]).toBe("trace-123");
        expect(headers).not.toHaveProperty("x-drop-me");
        expect(headers).not.toHaveProperty("x-model-header");
        expect(headers).not.toHaveProperty(credentialHeader);
        // The handlers see the provider's configured headers, not just an empty object.
        expect(notices(rpc)[0]).toContain('"x-model-header"');
        expect(await rpc.close()).toBe(0);
      } finally {
        await fixture.cleanup();
      }
    });
  }

  test("without handlers the provider's headers go out unchanged", async () => {
    const fixture = headerFixture("openai-completions");
    try {
      const rpc = fixture.start();
      fixture.server.enqueue(reply("ok"));
      await promptAndSettle(rpc, "hi");
      const { headers } = fixture.server.requests.at(-1)!;
      expect(headers["x-model-header"]).toBe("from-models-json");
      expect(headers.authorization).toBe("Bearer test-key");
      expect(await rpc.close()).toBe(0);
    } finally {
      await fixture.cleanup();
    }
  });
});

describe("context_with_system, session_compact_failed, ui prompts, session info", () => {
  let fixture: ExtensionFixture;
  beforeAll(() => {
    fixture = createExtensionFixture({ settings: { compaction: { keepRecentTokens: 1 } } });
  });
  afterEach(() => fixture.server.clearScript());
  afterAll(() => fixture.cleanup());

  test("context_with_system runs after context, sees the system prompt first, and what it returns is what the model gets, for that call only", async () => {
    const ext = fixture.writeExtension(
      "system.ts",
      `export default function (pi) {
  pi.on("context", (e) => ({ messages: [...e.messages, { role: "user", content: "from context", timestamp: Date.now() }] }));
  pi.on("context_with_system", (e, ctx) => {
    const [system, ...rest] = e.messages;
    ctx.ui.notify("with_system " + JSON.stringify({ roles: e.messages.map((m) => m.role), systemStartsWith: String(system.content).slice(0, 10), systemIsPrompt: system.content === ctx.getSystemPrompt() }));
    return { messages: [{ role: "system", content: "CUSTOM SYSTEM" }, ...rest, { role: "user", content: "from context_with_system", timestamp: Date.now() }] };
  });
  pi.on("context_with_system", (e, ctx) => ctx.ui.notify("chained " + e.messages[0].content));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    fixture.server.enqueue(reply("ok"));
    await promptAndSettle(rpc, "hello");
    const seen = JSON.parse(notices(rpc)[0].slice("with_system ".length));
    expect(seen.roles).toEqual(["system", "user", "user"]);
    expect(seen.systemIsPrompt).toBe(true);
    expect(seen.systemStartsWith.length).toBeGreaterThan(0);
    expect(notices(rpc)[1]).toBe("chained CUSTOM SYSTEM");
    const sent = fixture.server.requests.at(-1)!.body.messages;
    expect(sent[0]).toMatchObject({ role: expect.stringMatching(/^(system|developer)$/) });
    expect(textOf(sent[0])).toBe("CUSTOM SYSTEM");
    expect(sent.slice(1).map(textOf)).toEqual(["hello", "from context", "from context_with_system"]);
    // The transcript keeps its own messages.
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.map(textOf)).toEqual(["hello", "ok"]);
    expect(await rpc.close()).toBe(0);
  });

  test("context_with_system: a handler that removes the system message sends the call without a system prompt", async () => {
    const ext = fixture.writeExtension("no-system.ts", `export default function (pi) { pi.on("context_with_system", (e) => ({ messages: e.messages.slice(1) })); }`);
    const rpc = fixture.start(withExtensions(ext));
    fixture.server.enqueue(reply("ok"));
    await promptAndSettle(rpc, "hello");
    const sent = fixture.server.requests.at(-1)!.body.messages;
    expect(sent.map((message: any) => message.role)).toEqual(["user"]);
    expect(await rpc.close()).toBe(0);
  });

  test("session_compact_failed reports a failed compaction and one an extension cancelled; before_compact and compact carry reason and willRetry", async () => {
    const ext = fixture.writeExtension(
      "compact.ts",
      `let calls = 0;
export default function (pi) {
  pi.on("session_before_compact", (e, ctx) => {
    calls++;
    ctx.ui.notify("before " + e.reason + " willRetry=" + e.willRetry);
    if (calls === 2) return { cancel: true };
    if (calls === 3) return { compaction: { summary: "by extension", firstKeptEntryId: e.preparation.firstKeptEntryId, tokensBefore: e.preparation.tokensBefore } };
  });
  pi.on("session_compact", (e, ctx) => ctx.ui.notify("compact " + JSON.stringify({ reason: e.reason, willRetry: e.willRetry, fromExtension: e.fromExtension })));
  pi.on("session_compact_failed", (e, ctx) => ctx.ui.notify("failed " + JSON.stringify(e)));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    for (const message of ["one", "two"]) {
      fixture.server.enqueue(reply("words ".repeat(200)));
      await promptAndSettle(rpc, message);
    }
    fixture.server.enqueue({ type: "error", status: 400, message: "summary refused" });
    const failed = await rpc.request({ type: "compact" });
    expect(failed.success).toBe(false);
    const cancelled = await rpc.request({ type: "compact" });
    expect(cancelled.success).toBe(false);
    expect((await rpc.request({ type: "compact" })).success).toBe(true);
    expect(notices(rpc)).toEqual([
      "before manual willRetry=false",
      `failed ${JSON.stringify({ type: "session_compact_failed", reason: "manual", aborted: false, willRetry: false, fromExtension: false, errorMessage: failed.error })}`,
      "before manual willRetry=false",
      `failed ${JSON.stringify({ type: "session_compact_failed", reason: "manual", aborted: true, willRetry: false, fromExtension: false })}`,
      "before manual willRetry=false",
      'compact {"reason":"manual","willRetry":false,"fromExtension":true}',
    ]);
    expect(failed.error).toContain("summary refused");
    // The host sees a cancel as pi reports it: aborted, without an error text.
    expect(rpc.ofType("compaction_end").map((frame) => [frame.aborted, frame.errorMessage !== undefined])).toEqual([
      [false, true],
      [true, false],
      [false, false],
    ]);
    expect(await rpc.close()).toBe(0);
  });

  const PROMPTS = `import { appendFileSync } from "node:fs";
export default function (pi) {
  for (const name of ["ui_prompt_start", "ui_prompt_end"]) pi.on(name, (e, ctx) => {
    if (process.env.PROMPT_LOG) appendFileSync(process.env.PROMPT_LOG, JSON.stringify(e) + "\\n");
    else ctx.ui.notify(name + " " + JSON.stringify(e));
  });
  pi.registerCommand("pick", { handler: async (_a, ctx) => {
    const choice = await ctx.ui.select("Pick a colour", ["red", "green"]);
    const ok = await ctx.ui.confirm("Sure?", "Really?");
    ctx.ui.notify("picked " + choice + " " + ok);
  } });
}`;

  test("ui_prompt_start and ui_prompt_end wrap an RPC select and confirm, after the request goes out and once it is answered", async () => {
    const ext = fixture.writeExtension("prompts.ts", PROMPTS);
    const rpc = fixture.start(withExtensions(ext));
    // Answered once the command's handler returns (pi 1.6.0), so awaited after the dialogs.
    const picked = rpc.request({ type: "prompt", message: "/pick" });
    const select = await rpc.waitFor((frame) => frame.method === "select");
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("ui_prompt_start"));
    expect(notices(rpc)).toEqual([`ui_prompt_start ${JSON.stringify({ type: "ui_prompt_start", reason: "ui_prompt", kind: "select", title: "Pick a colour" })}`]);
    rpc.send({ type: "extension_ui_response", id: select.id, value: "green" });
    const confirm = await rpc.waitFor((frame) => frame.method === "confirm");
    rpc.send({ type: "extension_ui_response", id: confirm.id, confirmed: true });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("picked"));
    expect(notices(rpc)).toEqual([
      `ui_prompt_start {"type":"ui_prompt_start","reason":"ui_prompt","kind":"select","title":"Pick a colour"}`,
      `ui_prompt_end {"type":"ui_prompt_end","reason":"ui_prompt","kind":"select","title":"Pick a colour"}`,
      `ui_prompt_start {"type":"ui_prompt_start","reason":"ui_prompt","kind":"confirm","title":"Sure?"}`,
      `ui_prompt_end {"type":"ui_prompt_end","reason":"ui_prompt","kind":"confirm","title":"Sure?"}`,
      "picked green true",
    ]);
    // The end comes after the host's answer, not before.
    const answeredAt = rpc.frames.findIndex((frame) => frame.method === "confirm");
    const endAt = rpc.frames.findIndex((frame) => frame.method === "notify" && frame.message.includes('"kind":"select","title":"Pick a colour"}') && frame.message.startsWith("ui_prompt_end"));
    expect(endAt).toBeLessThan(answeredAt);
    expect((await picked).data.disposition).toBe("handled");
    expect(await rpc.close()).toBe(0);
  });

  test("print mode's dialogs, answered by their defaults at once, are announced too", async () => {
    const ext = fixture.writeExtension("prompts-print.ts", PROMPTS);
    const log = join(fixture.home.home, "prompts.log");
    const result = await runXcsh([...withExtensions(ext), "-p", "/pick"], { env: { ...fixture.home.env, PROMPT_LOG: log }, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    const events = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(events.map((event) => `${event.type}:${event.kind}:${event.title}`)).toEqual([
      "ui_prompt_start:select:Pick a colour",
      "ui_prompt_end:select:Pick a colour",
      "ui_prompt_start:confirm:Sure?",
      "ui_prompt_end:confirm:Sure?",
    ]);
  });

  test("session_info_changed: the host gets the frame and extensions the event when the session is named", async () => {
    const ext = fixture.writeExtension(
      "name.ts",
      `export default function (pi) {
  pi.on("session_info_changed", (e, ctx) => ctx.ui.notify("named " + JSON.stringify(e)));
  pi.registerCommand("rename", { handler: async (args) => pi.setSessionName(args) });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "set_session_name", name: "  My session " });
    await rpc.request({ type: "prompt", message: "/rename Other name" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.includes("Other name"));
    expect(rpc.ofType("session_info_changed").map((frame) => frame.name)).toEqual(["My session", "Other name"]);
    expect(notices(rpc)).toEqual([
      'named {"type":"session_info_changed","name":"My session"}',
      'named {"type":"session_info_changed","name":"Other name"}',
    ]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("before_provider_request and Anthropic's four cache breakpoints", () => {
  /** Marks the first tool, as an extension caching a stable tool prefix of its own would. */
  const pinFirstTool = `export default function (pi) {
  pi.on("before_provider_request", (e) => {
    const payload = structuredClone(e.payload);
    payload.tools[0].cache_control = { type: "ephemeral", ttl: "1h" };
    return payload;
  });
}`;
  const marks = (body: any): string[] => {
    const found: string[] = [];
    for (const block of body.system ?? []) if (block.cache_control) found.push("system");
    for (const tool of body.tools ?? []) if (tool.cache_control) found.push(`tool:${tool.name}${tool.cache_control.ttl === "1h" ? ":ext" : ""}`);
    body.messages.forEach((message: any, index: number) => {
      if (!Array.isArray(message.content)) return;
      message.content.forEach((block: any, at: number) => block.cache_control && found.push(`${message.role}[${index}].${at}${block.cache_control.ttl === "1h" ? ":ext" : ""}`));
    });
    return found;
  };

  test("an extension's own breakpoint is kept and xcsh's earlier-turn one gives way, so the request stays within four", async () => {
    const fixture = createExtensionFixture({ api: "anthropic-messages" });
    try {
      const ext = fixture.writeExtension("pin.ts", pinFirstTool);
      const rpc = fixture.start(withExtensions(ext));
      fixture.server.enqueue({ content: [{ type: "toolCall", id: "t1", name: "bash", arguments: { command: "echo hi" } }] }, reply("done"));
      await promptAndSettle(rpc, "run it");
      // The second request: prompt, tool call, tool result — xcsh would mark both user turns.
      const body = fixture.server.requests.at(-1)!.body as any;
      expect(body.messages).toHaveLength(3);
      const found = marks(body);
      expect(found).toHaveLength(4);
      expect(found[1]).toEndWith(":ext");
      expect(found).toContain("system");
      // The later user turn keeps its mark (it writes this request's prompt); the earlier one gave way.
      expect(found).toContain("user[2].0");
      expect(found).not.toContain("user[0].0");
      expect(await rpc.close()).toBe(0);
    } finally {
      await fixture.cleanup();
    }
  });

  test("without such an extension xcsh marks both user turns (four in all)", async () => {
    const fixture = createExtensionFixture({ api: "anthropic-messages" });
    try {
      const rpc = fixture.start();
      fixture.server.enqueue({ content: [{ type: "toolCall", id: "t1", name: "bash", arguments: { command: "echo hi" } }] }, reply("done"));
      await promptAndSettle(rpc, "run it");
      const found = marks(fixture.server.requests.at(-1)!.body as any);
      expect(found).toHaveLength(4);
      expect(found.filter((mark) => mark.startsWith("user["))).toHaveLength(2);
      expect(await rpc.close()).toBe(0);
    } finally {
      await fixture.cleanup();
    }
  });
});
