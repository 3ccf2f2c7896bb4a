/**
 * The summary call end to end: the real anthropic-messages provider against the
 * fake LLM server, which records what was asked and answers with scripted text.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Model } from "../../../src/ai/types.ts";
import {
  compact,
  generateSummary,
  prepareCompaction,
  SUMMARIZATION_SYSTEM_PROMPT,
  type CompactionPreparation,
} from "../../../src/core/compaction/index.ts";
import { startFakeLlm, type FakeLlmServer, type RecordedRequest } from "../../support/fake-llm/server.ts";
import { assistantMessage, PathBuilder, textOfTokens, toolCall, toolResult, userMessage } from "./entries.ts";

let server: FakeLlmServer;
let requestArrived: ((request: RecordedRequest) => void) | undefined;

beforeAll(() => {
  server = startFakeLlm({ onRequest: (request) => requestArrived?.(request) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  requestArrived = undefined;
});

const API_KEY = "sk-ant-test";
const settings = { enabled: true, reserveTokens: 10_000, keepRecentTokens: 1000 };

function makeModel(overrides: Partial<Model> = {}): Model {
  return {
    id: "claude-test",
    name: "Claude Test",
    api: "anthropic-messages",
    provider: "anthropic",
    baseUrl: server.baseUrl("anthropic-messages"),
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 32_000,
    ...overrides,
  };
}

function reply(text: string) {
  return { content: [{ type: "text" as const, text }] };
}

/** All text of a request body: system prompt and message contents. */
function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).join("\n");
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return [record.text, record.content, record.system, record.messages].map(textOf).join("\n");
  }
  return "";
}

function promptOf(request: RecordedRequest): string {
  return textOf(request.body.messages);
}

/** A session whose first turn read and edited files, then a turn that is kept. */
function sessionPath() {
  const path = new PathBuilder();
  path.user("Add retry logic to the HTTP client");
  path.assistant([{ type: "thinking", thinking: "Start by reading the client." }, toolCall("c1", "read", { path: "src/http.ts" })]);
  path.toolResult("c1", `export function get() {}\n${"L".repeat(5000)}`);
  path.assistant([toolCall("c2", "edit", { path: "src/http.ts", edits: [{ oldText: "a", newText: "b" }] })]);
  path.toolResult("c2", "Successfully edited src/http.ts", false, "edit");
  path.assistant("Retries are in place.");
  const kept = path.user(textOfTokens(600));
  path.assistant(textOfTokens(600));
  return { entries: path.entries, kept };
}

describe("compact", () => {
  test("sends the conversation as a labelled transcript with the user's focus, and returns the scripted summary", async () => {
    const { entries, kept } = sessionPath();
    const preparation = prepareCompaction(entries, settings)!;
    server.enqueue(reply("## Goal\nAdd retries to the HTTP client."));

    const result = await compact(preparation, makeModel(), API_KEY, { customInstructions: "Focus on error handling" });

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0];
    expect(request.headers["x-api-key"]).toBe(API_KEY);
    expect(textOf(request.body.system)).toContain(SUMMARIZATION_SYSTEM_PROMPT);
    expect(request.body.tools).toBeUndefined();
    expect(request.body.max_tokens).toBe(8000);
    // One user message holding the transcript, not the conversation replayed as turns.
    expect(request.body.messages).toHaveLength(1);
    expect(request.body.messages[0].role).toBe("user");
    const prompt = promptOf(request);
    expect(prompt).toContain("[User]: Add retry logic to the HTTP client");
    expect(prompt).toContain("[Assistant thinking]: Start by reading the client.");
    expect(prompt).toContain('[Assistant tool calls]: read(path="src/http.ts")');
    expect(prompt).toContain("[Tool result]: export function get() {}");
    expect(prompt).toContain("[Assistant]: Retries are in place.");
    expect(prompt).toContain("Focus on error handling");
    // The long tool result is cut, and the kept turn is not summarized.
    expect(prompt).toContain("[… 3025 characters of tool output omitted …]");
    expect(prompt).not.toContain("L".repeat(2500));
    expect(prompt).not.toContain(textOfTokens(600));

    expect(result.summary).toBe("## Goal\nAdd retries to the HTTP client.\n\n<modified-files>\nsrc/http.ts\n</modified-files>");
    expect(result.firstKeptEntryId).toBe(kept.id);
    expect(result.tokensBefore).toBe(preparation.tokensBefore);
    expect(result.details).toEqual({ readFiles: [], modifiedFiles: ["src/http.ts"] });
  });

  test("with a previous summary, asks for it to be updated and keeps the file lists cumulative", async () => {
    const path = new PathBuilder();
    path.user("first");
    path.assistant("done");
    const previouslyKept = path.user("Now rename fetchAll to loadAll");
    path.assistant("Renamed in src/api.ts.");
    path.compaction(
      "## Goal\nImprove the API client.\n\n<read-files>\nsrc/old.ts\n</read-files>",
      previouslyKept.id,
      { readFiles: ["src/old.ts"], modifiedFiles: [] },
    );
    path.user(textOfTokens(600));
    path.assistant(textOfTokens(600));
    const preparation = prepareCompaction(path.entries, settings)!;
    server.enqueue(reply("## Goal\nImprove the API client; fetchAll is now loadAll."));

    const result = await compact(preparation, makeModel(), API_KEY);

    const prompt = promptOf(server.requests[0]);
    expect(prompt).toContain("<previous-summary>\n## Goal\nImprove the API client.\n</previous-summary>");
    expect(prompt).toContain("Update it");
    expect(prompt).toContain("[User]: Now rename fetchAll to loadAll");
    // The old file list reaches the result through details, not through the model.
    expect(prompt).not.toContain("src/old.ts");
    expect(result.summary).toBe("## Goal\nImprove the API client; fetchAll is now loadAll.\n\n<read-files>\nsrc/old.ts\n</read-files>");
    expect(result.details).toEqual({ readFiles: ["src/old.ts"], modifiedFiles: [] });
  });

  test("a split turn is summarized in two calls and the turn prefix note follows the history", async () => {
    const path = new PathBuilder();
    path.user("Earlier question about logging");
    path.assistant(textOfTokens(300));
    path.user("Migrate the schema");
    path.assistant([toolCall("c1", "read", { path: "schema.sql" })]);
    path.toolResult("c1", textOfTokens(1500));
    path.assistant([toolCall("c2", "write", { path: "schema.sql", content: "create table t();" })]);
    path.toolResult("c2", textOfTokens(1200), false, "write");
    const preparation = prepareCompaction(path.entries, settings)!;
    expect(preparation.isSplitTurn).toBe(true);
    // The two calls run in parallel, so answer by what each asks for.
    const answer = (request: RecordedRequest) =>
      promptOf(request).includes("Earlier question about logging") ? reply("HISTORY NOTE") : reply("PREFIX NOTE");
    server.enqueue(answer, answer);

    const result = await compact(preparation, makeModel(), API_KEY);

    expect(server.requests).toHaveLength(2);
    const prefixRequest = server.requests.find((request) => !promptOf(request).includes("Earlier question about logging"))!;
    expect(promptOf(prefixRequest)).toContain("[User]: Migrate the schema");
    expect(prefixRequest.body.max_tokens).toBe(5000);
    expect(result.summary.indexOf("HISTORY NOTE")).toBe(0);
    expect(result.summary.indexOf("PREFIX NOTE")).toBeGreaterThan(result.summary.indexOf("HISTORY NOTE"));
    expect(result.details).toEqual({ readFiles: ["schema.sql"], modifiedFiles: [] });
  });

  test("aborting the signal mid-call rejects", async () => {
    const { entries } = sessionPath();
    const preparation: CompactionPreparation = prepareCompaction(entries, settings)!;
    server.enqueue({ ...reply("never finished"), stallAfterEvents: 1 });
    const controller = new AbortController();
    requestArrived = () => controller.abort();

    await expect(compact(preparation, makeModel(), API_KEY, { signal: controller.signal })).rejects.toThrow(/abort/i);
    expect(server.requests).toHaveLength(1);
  });

  test("a provider error rejects with the provider's message", async () => {
    const { entries } = sessionPath();
    const preparation = prepareCompaction(entries, settings)!;
    server.enqueue({ type: "error", status: 400, message: "Your credit balance is too low" });

    await expect(compact(preparation, makeModel(), API_KEY)).rejects.toThrow("Your credit balance is too low");
  });
});

describe("compact in a small window", () => {
  test("asks for a summary no longer than the reserve the window really leaves", async () => {
    server.enqueue(reply("short summary"));
    const { entries } = sessionPath();
    const model = makeModel({ contextWindow: 8000, maxTokens: 8000 });
    const defaults = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };
    const preparation = prepareCompaction(entries, defaults, model.contextWindow)!;
    const result = await compact(preparation, model, API_KEY);
    expect(result.summary).toContain("short summary");
    // The reserve is capped at a quarter of 8000; the summary gets 80% of it.
    expect(server.requests[0].body.max_tokens).toBe(1600);
  });
});

describe("generateSummary", () => {
  test("an answer without text rejects instead of erasing the history", async () => {
    server.enqueue({ content: [{ type: "thinking", thinking: "hmm" }] });
    await expect(generateSummary([userMessage("hi")], makeModel({ reasoning: true }), 4000, API_KEY)).rejects.toThrow(/no text/);
  });

  test("passes the thinking level and caps the output at the model's maximum", async () => {
    server.enqueue(reply("summary"));
    const messages = [userMessage("hi"), assistantMessage([toolCall("c1", "ls", { path: "." })]), toolResult("c1", "a.ts", false, "ls")];
    const summary = await generateSummary(messages, makeModel({ reasoning: true, maxTokens: 20_000 }), 100_000, API_KEY, {
      thinkingLevel: "low",
    });
    expect(summary).toBe("summary");
    const body = server.requests[0].body;
    expect(body.thinking?.type).toBe("enabled");
    expect(body.max_tokens).toBe(20_000);
    expect(promptOf(server.requests[0])).toContain('[Assistant tool calls]: ls(path=".")');
    expect(promptOf(server.requests[0])).toContain("[Tool result]: a.ts");
  });
});
