/**
 * The offline faux provider: scripted replies streamed like a real provider's,
 * the fixed answer without a script, script validation, abort and usage.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isTransientError } from "../../../src/ai/errors.ts";
import { collectStream } from "../../support/stream-helpers.ts";
import { resetFauxScripts } from "../../../src/ai/faux-script.ts";
import { getModel } from "../../../src/ai/models.ts";
import { FAUX_GREETING, FAUX_SCRIPT_USED_UP, FAUX_THINKING, stream, streamSimple } from "../../../src/ai/providers/faux.ts";
import { streamSimple as registryStreamSimple } from "../../../src/ai/stream.ts";
import type { AssistantMessageEvent, Context, Model } from "../../../src/ai/types.ts";

let dir: string;
let scriptCount = 0;
const savedEnv = process.env.XCSH_FAUX_SCRIPT;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "xcsh-faux-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  resetFauxScripts();
  delete process.env.XCSH_FAUX_SCRIPT;
});
afterEach(() => {
  if (savedEnv === undefined) delete process.env.XCSH_FAUX_SCRIPT;
  else process.env.XCSH_FAUX_SCRIPT = savedEnv;
});

/** Writes a script file and points the provider at it. */
function useScript(content: unknown): string {
  const file = join(dir, `script-${++scriptCount}.json`);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  process.env.XCSH_FAUX_SCRIPT = file;
  return file;
}

function fauxModel(overrides: Partial<Model> = {}): Model {
  return { ...getModel("faux", "faux-1")!, ...overrides };
}

function ask(text: string, extra: Partial<Context> = {}): Context {
  return { systemPrompt: "You are a test double.", messages: [{ role: "user", content: text, timestamp: 1 }], ...extra };
}

function deltas(events: AssistantMessageEvent[], type: "text_delta" | "thinking_delta" | "toolcall_delta"): string[] {
  return events.flatMap((event) => (event.type === type ? [event.delta] : []));
}

describe("without a script", () => {
  test("answers the fixed greeting, streamed in chunks, and stops", async () => {
    const { events, message } = await collectStream(stream(fauxModel(), ask("hello")));
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: FAUX_GREETING }]);
    expect(message.provider).toBe("faux");
    expect(message.api).toBe("faux");
    const pieces = deltas(events, "text_delta");
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((piece) => piece.length <= 12)).toBe(true);
    expect(pieces.join("")).toBe(FAUX_GREETING);
    expect(events.map((event) => event.type).filter((type) => type !== "text_delta")).toEqual(["start", "text_start", "text_end", "done"]);
  });

  test("each event's partial message is what has streamed so far when the consumer sees it", async () => {
    let sofar = "";
    for await (const event of stream(fauxModel(), ask("hello"))) {
      if (event.type === "start") expect(event.partial.content).toEqual([]);
      if (event.type === "text_delta") {
        sofar += event.delta;
        expect(event.partial.content[0]).toEqual({ type: "text", text: sofar });
      }
    }
    expect(sofar).toBe(FAUX_GREETING);
  });

  test("with reasoning on, a short thinking block comes first", async () => {
    const { message } = await collectStream(streamSimple(fauxModel(), ask("hello"), { reasoning: "medium" }));
    expect(message.content).toEqual([
      { type: "thinking", thinking: FAUX_THINKING },
      { type: "text", text: FAUX_GREETING },
    ]);
    const off = await streamSimple(fauxModel(), ask("hello")).result();
    expect(off.content.map((block) => block.type)).toEqual(["text"]);
  });

  test("is served through the API registry for the catalog's faux model", async () => {
    const message = await registryStreamSimple(getModel("faux", "faux-1")!, ask("hello")).result();
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: FAUX_GREETING }]);
  });
});

describe("scripted replies", () => {
  test("a tool call, then the final answer, then the used-up answer, in order across requests", async () => {
    useScript({
      responses: [
        { content: [{ type: "text", text: "Let me look." }, { type: "toolCall", name: "bash", arguments: { command: "ls -la /tmp" } }] },
        { content: [{ type: "text", text: "There are three files." }] },
      ],
    });
    const first = await collectStream(stream(fauxModel(), ask("list files")));
    expect(first.message.stopReason).toBe("toolUse");
    const call = first.message.content[1];
    expect(call).toMatchObject({ type: "toolCall", name: "bash", arguments: { command: "ls -la /tmp" } });
    expect(call.type === "toolCall" && call.id.length > 0).toBe(true);
    // Arguments arrive as JSON fragments, like a real streaming API.
    const argumentDeltas = deltas(first.events, "toolcall_delta");
    expect(argumentDeltas.length).toBeGreaterThan(1);
    expect(JSON.parse(argumentDeltas.join(""))).toEqual({ command: "ls -la /tmp" });
    const toolEnd = first.events.find((event) => event.type === "toolcall_end");
    expect(toolEnd?.type === "toolcall_end" && toolEnd.toolCall.arguments).toEqual({ command: "ls -la /tmp" });

    const second = await stream(fauxModel(), ask("list files")).result();
    expect(second.content).toEqual([{ type: "text", text: "There are three files." }]);
    expect(second.stopReason).toBe("stop");

    const third = await stream(fauxModel(), ask("list files")).result();
    expect(third.content).toEqual([{ type: "text", text: FAUX_SCRIPT_USED_UP }]);
  });

  test("a bare array works too; thinking streams in chunks of chunkSize; ids and stop reasons are kept", async () => {
    useScript([
      {
        content: [
          { type: "thinking", thinking: "abcdefghij" },
          { type: "toolCall", id: "my-id", name: "read", arguments: { path: "a.txt" } },
        ],
        stopReason: "length",
        chunkSize: 3,
      },
    ]);
    const { events, message } = await collectStream(stream(fauxModel(), ask("go")));
    expect(deltas(events, "thinking_delta")).toEqual(["abc", "def", "ghi", "j"]);
    expect(message.content[0]).toEqual({ type: "thinking", thinking: "abcdefghij" });
    expect(message.content[1]).toMatchObject({ type: "toolCall", id: "my-id", name: "read" });
    expect(message.stopReason).toBe("length");
  });

  test("match answers only a request whose last user message contains it; others take the next unmatched reply", async () => {
    useScript([
      { match: "weather", content: [{ type: "text", text: "Sunny." }] },
      { content: [{ type: "text", text: "First." }] },
      { content: [{ type: "text", text: "Second." }] },
    ]);
    const text = async (prompt: string) => {
      const message = await stream(fauxModel(), ask(prompt)).result();
      return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    };
    expect(await text("hello")).toBe("First.");
    expect(await text("what is the weather?")).toBe("Sunny.");
    // The match is used up: the same question now takes the next reply in order.
    expect(await text("the weather again?")).toBe("Second.");
    expect(await text("anything")).toBe(FAUX_SCRIPT_USED_UP);
  });

  test("match looks at the last user message, not earlier ones", async () => {
    useScript([{ match: "secret", content: [{ type: "text", text: "matched" }] }, { content: [{ type: "text", text: "plain" }] }]);
    const context: Context = {
      messages: [
        { role: "user", content: "the secret word", timestamp: 1 },
        { role: "user", content: [{ type: "text", text: "something else" }], timestamp: 2 },
      ],
    };
    const message = await stream(fauxModel(), context).result();
    expect(message.content).toEqual([{ type: "text", text: "plain" }]);
  });

  test("a scripted error ends the message with stopReason error and the status in the message", async () => {
    useScript([{ error: "overloaded", status: 529 }, { error: "invalid request: bad tool schema", status: 400 }, { error: "plain failure" }]);
    const { events, message } = await collectStream(stream(fauxModel(), ask("hi")));
    expect(events.at(-1)?.type).toBe("error");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("529 overloaded");
    expect(isTransientError(message)).toBe(true);

    const client = await stream(fauxModel(), ask("hi")).result();
    expect(client.errorMessage).toBe("400 invalid request: bad tool schema");
    expect(isTransientError(client)).toBe(false);

    const plain = await stream(fauxModel(), ask("hi")).result();
    expect(plain.errorMessage).toBe("plain failure");
  });
});

describe("usage", () => {
  test("estimated from the context and the reply (about four characters a token) when not scripted", async () => {
    useScript([{ content: [{ type: "text", text: "x".repeat(400) }] }, { content: [{ type: "text", text: "x".repeat(400) }] }]);
    const short = await stream(fauxModel(), ask("hi")).result();
    const long = await stream(fauxModel(), ask("y".repeat(8000))).result();
    expect(short.usage.output).toBe(100);
    expect(long.usage.input - short.usage.input).toBeGreaterThanOrEqual(1990);
    expect(long.usage.input - short.usage.input).toBeLessThanOrEqual(2010);
    expect(long.usage.totalTokens).toBe(long.usage.input + long.usage.output);
    expect(long.usage.cost.total).toBe(0);
  });

  test("scripted counts are reported as given and priced with the model's prices", async () => {
    useScript([{ content: [{ type: "text", text: "ok" }], usage: { input: 1_000_000, output: 2_000_000, cacheRead: 500_000 } }]);
    const priced = fauxModel({ cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } });
    const message = await stream(priced, ask("hi")).result();
    expect(message.usage).toMatchObject({ input: 1_000_000, output: 2_000_000, cacheRead: 500_000, cacheWrite: 0, totalTokens: 3_500_000 });
    expect(message.usage.cost.input).toBeCloseTo(3);
    expect(message.usage.cost.output).toBeCloseTo(30);
    expect(message.usage.cost.total).toBeCloseTo(33.15);
  });
});

describe("bad scripts", () => {
  const failure = async () => {
    const message = await stream(fauxModel(), ask("hi")).result();
    expect(message.stopReason).toBe("error");
    return message.errorMessage ?? "";
  };

  test("a missing file names the file", async () => {
    const file = join(dir, "does-not-exist.json");
    process.env.XCSH_FAUX_SCRIPT = file;
    expect(await failure()).toBe(`Faux script ${file}: file not found`);
  });

  test("invalid JSON", async () => {
    const file = useScript('[{"content": [}');
    expect(await failure()).toStartWith(`Faux script ${file}: invalid JSON`);
  });

  test("wrong top-level shape", async () => {
    const file = useScript({ replies: [] });
    expect(await failure()).toBe(`Faux script ${file}: expected an array of responses or { "responses": [...] }, found an object whose "responses" is missing`);
  });

  test("a bad block says where and what", async () => {
    const file = useScript([{ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "image", data: "" }] }]);
    expect(await failure()).toBe(`Faux script ${file}: responses[1].content[0]: "type" must be "text", "thinking" or "toolCall", found "image"`);
  });

  test("a misspelt field is rejected rather than ignored", async () => {
    const file = useScript([{ content: [], stopreason: "stop" }]);
    expect(await failure()).toContain(`Faux script ${file}: responses[0]: unknown field "stopreason"`);
  });

  test("a reply without content and a bad status", async () => {
    const noContent = useScript([{ text: "hi" }]);
    expect(await failure()).toContain(`Faux script ${noContent}: responses[0]: unknown field "text"`);
    const badStatus = useScript([{ error: "x", status: 1000 }]);
    expect(await failure()).toBe(`Faux script ${badStatus}: responses[0]: "status" must be an HTTP status (100-599), found 1000`);
    const missing = useScript([{ stopReason: "stop" }]);
    expect(await failure()).toBe(`Faux script ${missing}: responses[0]: a reply needs "content", an array of blocks (or give "error" for an error response); it is missing`);
  });
});

describe("abort", () => {
  test("mid-stream: ends promptly with stopReason aborted, keeping what streamed", async () => {
    useScript([{ content: [{ type: "text", text: "a long answer ".repeat(50) }], chunkDelayMs: 50 }]);
    const controller = new AbortController();
    const events = stream(fauxModel(), ask("hi"), { signal: controller.signal });
    const started = Date.now();
    const seen: AssistantMessageEvent[] = [];
    for await (const event of events) {
      seen.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    const message = await events.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.errorMessage).toBe("Request was aborted");
    expect(seen.at(-1)?.type).toBe("error");
    expect(message.content[0]?.type === "text" && message.content[0].text.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("during delayMs: does not wait the delay out", async () => {
    useScript([{ content: [{ type: "text", text: "late" }], delayMs: 30_000 }]);
    const controller = new AbortController();
    const events = stream(fauxModel(), ask("hi"), { signal: controller.signal });
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    const message = await events.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
