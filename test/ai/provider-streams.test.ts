/**
 * Provider traffic replayed byte for byte through the built binary: the streams and error
 * bodies in test/fixtures/provider-streams (written from each API's documented wire format;
 * each file names its source) for Anthropic, OpenAI Chat Completions, OpenAI Responses,
 * Gemini and Mistral. A stream cut mid-way must be an error that is retried, never half an
 * answer; each API's quirks must reach the user whole; an HTTP error must read as its
 * message and wait as long as the provider asked.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { startFakeLlm, type FakeApi, type FakeRawReply } from "../support/fake-llm/server.ts";
import { assistantEnds, fakeServerAndHome, runJsonMode, textOf, type Json as Frame } from "../support/recorded-streams.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "provider-streams");

/** A recorded stream without its header (the leading `#` lines that name the source). */
function recording(name: string): string {
  const text = readFileSync(join(FIXTURES, name), "utf8");
  return text.replace(/^(#[^\n]*\n)+\n/, "");
}

/** Real error answers, each naming where it was published (`source`); see the README's "Error bodies". */
const ERROR_BODIES = JSON.parse(readFileSync(join(FIXTURES, "error-bodies.json"), "utf8")) as Record<
  string,
  { status: number; headers: Record<string, string>; body: unknown }
>;

/** A fixture's answer: a string body is served as it was sent, a parsed one as compact JSON. */
function errorReply(name: string): FakeRawReply & { body: string } {
  const { status, headers, body } = ERROR_BODIES[name];
  return { type: "raw", status, headers, body: typeof body === "string" ? body : JSON.stringify(body) };
}

/** Each provider of the test's models.json: its API and the recording of a plain answer. */
const PROVIDERS = {
  claude: { api: "anthropic-messages", model: "claude-sonnet-4-5", text: "anthropic-text.sse" },
  gpt: { api: "openai-completions", model: "gpt-4o-mini", text: "openai-chat-text.sse" },
  gptr: { api: "openai-responses", model: "gpt-4.1", text: "openai-responses-text.sse" },
  gemini: { api: "google-generative-ai", model: "gemini-2.5-flash", text: "gemini-text.sse" },
  mistral: { api: "openai-completions", model: "magistral-medium", text: "mistral-magistral-thinking.sse" },
} as const satisfies Record<string, { api: FakeApi; model: string; text: string }>;
type ProviderName = keyof typeof PROVIDERS;

/**
 * retry.maxAgentDelayMs in the test home: the waits real providers ask for (16 s, 22 s, and the
 * 1 s of a `retry-after: 1`) are capped to it. Low, since every capped case waits it out in real
 * time; one asked wait (retry-after-ms) stays under it, to show a wait below the cap is kept as asked.
 */
const RETRY_CAP_MS = 400;

const SKY = "The sky is blue because air scatters short wavelengths of sunlight more than long ones.";

const { server, home } = fakeServerAndHome();

beforeAll(() => {
  const providers: Record<string, unknown> = {};
  for (const [name, { api, model }] of Object.entries(PROVIDERS)) {
    providers[name] = { baseUrl: server.baseUrl(api), api, apiKey: "test-key", models: [{ id: model, reasoning: name === "mistral" }] };
  }
  home.writeModelsJson({ providers });
  home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 2, maxAgentDelayMs: RETRY_CAP_MS } });
});
async function ask(provider: ProviderName, prompt = "Why is the sky blue?"): Promise<{ frames: Frame[]; stderr: string; exitCode: number }> {
  const { model } = PROVIDERS[provider];
  return runJsonMode(["-p", prompt, "--model", `${provider}/${model}`], { env: home.env, timeoutMs: 30_000 });
}

describe("recorded streams replayed whole", () => {
  for (const name of ["claude", "gpt", "gptr", "gemini"] as const) {
    test(`${name} (${PROVIDERS[name].api}): the whole answer, stop reason stop`, async () => {
      server.enqueue({ type: "raw", body: recording(PROVIDERS[name].text), chunkBytes: 97 });
      const { frames } = await ask(name);
      const [reply] = assistantEnds(frames);
      expect(reply.stopReason).toBe("stop");
      expect(textOf(reply)).toBe(SKY);
      expect(reply.usage.output).toBe(15);
    });
  }

  test("mistral: a reasoning model's content-part arrays become thinking and text", async () => {
    server.enqueue({ type: "raw", body: recording(PROVIDERS.mistral.text), chunkBytes: 64 });
    const { frames } = await ask("mistral");
    const [reply] = assistantEnds(frames);
    expect(reply.stopReason).toBe("stop");
    expect(reply.content.map((block: Frame) => block.type)).toEqual(["thinking", "text"]);
    expect(reply.content[0].thinking).toBe("The user asks why the sky is blue. Rayleigh scattering explains it.");
    expect(textOf(reply)).toBe("Air scatters blue light more than red.");
  });
});

describe("a stream cut mid-way", () => {
  for (const name of Object.keys(PROVIDERS) as ProviderName[]) {
    for (const where of ["between events", "inside an event"] as const) {
      test(`${name}, cut ${where}: an error saying the stream ended early, retried, then the whole answer`, async () => {
        const body = recording(PROVIDERS[name].text);
        // The first part of the answer's text arrives, then the connection ends.
        const inText = body.indexOf(name === "mistral" ? "Air scatters" : "The sky is blue because air ");
        const cutAt = where === "inside an event" ? inText + 5 : body.indexOf("\n\n", inText) + 2;
        server.enqueue({ type: "raw", body, cutAtByte: cutAt }, { type: "raw", body });
        const { frames } = await ask(name);
        const [cut, whole] = assistantEnds(frames);
        expect(cut.stopReason).toBe("error");
        expect(cut.errorMessage).toContain("stream ended before the provider said it finished");
        if (where === "between events") expect(textOf(cut)).toBe(name === "mistral" ? "Air scatters blue light " : "The sky is blue because air ");
        const retry = frames.find((frame) => frame.type === "auto_retry_start");
        expect(retry).toMatchObject({ attempt: 1, errorMessage: cut.errorMessage });
        expect(whole.stopReason).toBe("stop");
        expect(server.requests).toHaveLength(2);
      });
    }
  }
});

describe("the end of a Chat Completions stream", () => {
  test("a server that sends data: [DONE] but no finish_reason has finished: the answer stands", async () => {
    const body = recording(PROVIDERS.gpt.text).replace('"finish_reason":"stop"', '"finish_reason":null');
    server.enqueue({ type: "raw", body });
    const { frames } = await ask("gpt");
    const [reply] = assistantEnds(frames);
    expect(reply.stopReason).toBe("stop");
    expect(textOf(reply)).toBe(SKY);
  });

  test("without finish_reason and without [DONE] the reply is incomplete", async () => {
    const body = recording(PROVIDERS.gpt.text).replace('"finish_reason":"stop"', '"finish_reason":null').replace("data: [DONE]\n\n", "");
    server.enqueue({ type: "raw", body }, { type: "raw", body: recording(PROVIDERS.gpt.text) });
    const { frames } = await ask("gpt");
    const [cut, whole] = assistantEnds(frames);
    expect(cut.errorMessage).toContain("stream ended before the provider said it finished");
    expect(textOf(cut)).toBe(SKY);
    expect(whole.stopReason).toBe("stop");
  });
});

describe("Gemini's usage", () => {
  /**
   * A built-in tool's prompt (URL context, Google Search) is counted apart from the prompt:
   * Google's reference gives totalTokenCount as the sum of promptTokenCount,
   * candidatesTokenCount, toolUsePromptTokenCount and thoughtsTokenCount, and says the
   * fetched content is input. So it is input, once; promptTokenCount holds the cached tokens,
   * which are priced apart. The counts are Google's shape with numbers written for the test.
   */
  test("tool-use prompt tokens are input, counted once; the total is Gemini's own; the cost follows", async () => {
    const priced = makeTestHome();
    try {
      // Dollars per million tokens.
      const cost = { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 0 };
      priced.writeModelsJson({
        providers: { gemini: { baseUrl: server.baseUrl("google-generative-ai"), api: "google-generative-ai", apiKey: "k", models: [{ id: "g", cost }] } },
      });
      const usageMetadata = { promptTokenCount: 1000, cachedContentTokenCount: 400, toolUsePromptTokenCount: 3000, candidatesTokenCount: 50, thoughtsTokenCount: 150, totalTokenCount: 4200 };
      const chunk = { candidates: [{ content: { parts: [{ text: SKY }], role: "model" }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: "g" };
      server.enqueue({ type: "raw", body: `data: ${JSON.stringify(chunk)}\n\n` });
      const { frames } = await runJsonMode(["-p", "hi", "--model", "gemini/g"], { env: priced.env, timeoutMs: 20_000 });
      const [answer] = assistantEnds(frames);
      expect(textOf(answer)).toBe(SKY);
      // 1000 prompt, 400 of them cached, plus 3000 of the tool's: 3600 fresh input.
      expect(answer.usage).toMatchObject({ input: 3600, cacheRead: 400, cacheWrite: 0, output: 200, totalTokens: usageMetadata.totalTokenCount });
      expect(answer.usage.cost.input).toBeCloseTo((3600 * 2) / 1e6, 12);
      expect(answer.usage.cost.cacheRead).toBeCloseTo((400 * 0.5) / 1e6, 12);
      expect(answer.usage.cost.output).toBeCloseTo((200 * 10) / 1e6, 12);
      expect(answer.usage.cost.total).toBeCloseTo((3600 * 2 + 400 * 0.5 + 200 * 10) / 1e6, 12);
    } finally {
      priced.cleanup();
    }
  });
});

describe("an error event inside the stream", () => {
  test("Anthropic's overloaded_error after the reply began reads as its kind and message, and is retried", async () => {
    server.enqueue({ type: "raw", body: recording("anthropic-overloaded-midstream.sse") }, { type: "raw", body: recording(PROVIDERS.claude.text) });
    const { frames } = await ask("claude");
    const [failed, answered] = assistantEnds(frames);
    expect(failed.stopReason).toBe("error");
    expect(failed.errorMessage).toBe("overloaded_error: Overloaded");
    expect(textOf(failed)).toBe("The sky is blue because air ");
    expect(frames.some((frame) => frame.type === "auto_retry_start")).toBe(true);
    expect(textOf(answered)).toBe(SKY);
  });
});

describe("tool calls the APIs stream in their own ways", () => {
  test("OpenAI Responses: a custom_tool_call runs the tool with its raw input, and goes back as a custom call", async () => {
    server.enqueue({ type: "raw", body: recording("openai-responses-custom-tool-call.sse"), chunkBytes: 120 }, { type: "raw", body: recording(PROVIDERS.gptr.text) });
    const { frames } = await ask("gptr", "run the check");
    const [call] = assistantEnds(frames);
    expect(call.stopReason).toBe("toolUse");
    expect(call.content).toEqual([expect.objectContaining({ type: "toolCall", name: "bash", arguments: { command: "echo custom-tool-ran" } })]);
    const result = frames.find((frame) => frame.type === "tool_execution_end");
    expect(JSON.stringify(result?.result)).toContain("custom-tool-ran");
    const next = server.requests[1].body.input as Frame[];
    expect(next).toContainEqual(expect.objectContaining({ type: "custom_tool_call", call_id: "call_Zx9CustomA1", name: "bash", input: "echo custom-tool-ran" }));
    const output = next.find((item) => item.type === "custom_tool_call_output");
    expect(output).toMatchObject({ call_id: "call_Zx9CustomA1" });
    expect(output!.output).toContain("custom-tool-ran");
  });

  test("Gemini: function-call arguments streamed in pieces make one call with the whole arguments", async () => {
    server.enqueue({ type: "raw", body: recording("vertex-streamed-function-args.sse") }, { type: "raw", body: recording(PROVIDERS.gemini.text) });
    const { frames } = await ask("gemini", "run the check");
    const [call] = assistantEnds(frames);
    const calls = call.content.filter((block: Frame) => block.type === "toolCall");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: "bash", arguments: { command: "echo streamed-args-ok" } });
    const result = frames.find((frame) => frame.type === "tool_execution_end");
    expect(JSON.stringify(result?.result)).toContain("streamed-args-ok");
    const sentBack = (server.requests[1].body.contents as Frame[]).flatMap((content) => content.parts).filter((part: Frame) => part.functionCall);
    expect(sentBack).toHaveLength(1);
  });
});

describe("HTTP errors with the providers' real bodies", () => {
  /**
   * Each real body (error-bodies.json names where it was published) as the user meets it: the
   * one line is the provider's message, never JSON; the wait is the one the provider asked for
   * (capped by retry.maxAgentDelayMs: RETRY_CAP_MS here), else the backoff (10 ms here); a
   * refusal no wait can mend is not retried and says so. `headers` add to the fixture's own:
   * the header rules as the providers' docs give them, on a real body.
   */
  const FINAL = " (retrying will not help)";
  /** The error object of a body: OpenAI's and Gemini's `error`, Gemini's array of one, Mistral's whole body. */
  const errorObject = (body: any): unknown => (Array.isArray(body) ? errorObject(body[0]) : (body?.error ?? body));
  const cases: { provider: ProviderName; fixture: string; message: string; askedMs?: number; headers?: Record<string, string>; final?: true }[] = [
    { provider: "claude", fixture: "anthropic-429", message: "429 rate limited by claude: This request would exceed your account's rate limit. Please try again later.", askedMs: 16_000 },
    { provider: "claude", fixture: "anthropic-500", message: "500 api_error: Internal server error" },
    { provider: "claude", fixture: "anthropic-500-overloaded", message: "500 api_error: Overloaded" },
    { provider: "claude", fixture: "anthropic-529", message: "529 overloaded_error: Overloaded" },
    { provider: "claude", fixture: "anthropic-529", message: "529 overloaded_error: Overloaded", askedMs: 1000, headers: { "retry-after": "1" } },
    {
      provider: "gpt",
      fixture: "openai-429",
      message:
        "429 rate limited by gpt: Rate limit reached for gpt-4 in organization org-********** on tokens per min (TPM): Limit 10000, Used 9348, Requested 5086. Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits to learn more.",
      askedMs: 26_604,
    },
    { provider: "gptr", fixture: "openai-429", message: "429 rate limited by gptr: Rate limit reached for gpt-4 in organization org-**********", askedMs: 26_604 },
    { provider: "gpt", fixture: "openai-429", message: "429 rate limited by gpt: Rate limit reached for gpt-4", askedMs: 250, headers: { "retry-after-ms": "250" } },
    {
      provider: "gpt",
      fixture: "openai-429-quota",
      message: `429 insufficient_quota: You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.${FINAL}`,
      final: true,
    },
    {
      provider: "gptr",
      fixture: "openai-429-too-large",
      message: `429 rate limited by gptr: Request too large for gpt-4o in organization org-78asdf87asdf9aaa8976 on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.${FINAL}`,
      final: true,
    },
    {
      provider: "gptr",
      fixture: "openai-500",
      message:
        "500 server_error: The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error. (Please include the request ID e5c949c8ec2c86be225544e5eefcbe4d in your email.)",
    },
    { provider: "gpt", fixture: "openai-503", message: "503 server_error: That model is currently overloaded with other requests. You can retry your request" },
    { provider: "gptr", fixture: "openai-503", message: "503 server_error: That model is currently overloaded", askedMs: 1000, headers: { "retry-after": "1" } },
    {
      provider: "gemini",
      fixture: "gemini-429",
      message: "429 rate limited by gemini: You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
      askedMs: 22_000,
    },
    {
      provider: "gemini",
      fixture: "gemini-429-no-retry-info",
      message:
        "429 rate limited by gemini: You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit.",
    },
    { provider: "gemini", fixture: "gemini-500", message: "500 INTERNAL: An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting" },
    { provider: "gemini", fixture: "gemini-503", message: "503 UNAVAILABLE: The model is overloaded. Please try again later." },
    {
      provider: "gemini",
      fixture: "vertex-429",
      message: "429 rate limited by gemini: Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.",
    },
    { provider: "mistral", fixture: "mistral-429", message: "429 rate limited by mistral: Rate limit exceeded" },
    { provider: "mistral", fixture: "mistral-429-message-only", message: "429 rate limited by mistral: Requests rate limit exceeded" },
    { provider: "mistral", fixture: "mistral-503", message: "503 service_unavailable: Service unavailable, please retry later", askedMs: 1000 },
    // `x-should-retry: false` (Anthropic, OpenAI) makes any status final, as in the providers' own SDKs; a wait asked beside it is moot.
    { provider: "claude", fixture: "anthropic-500", message: `500 api_error: Internal server error${FINAL}`, headers: { "x-should-retry": "false", "retry-after": "1" }, final: true },
    {
      provider: "gpt",
      fixture: "openai-503",
      message: `503 server_error: That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists. (Please include the request ID 500d9fff2057e4af93a280f67002c342 in your message.)${FINAL}`,
      headers: { "x-should-retry": "false" },
      final: true,
    },
  ];
  for (const { provider, fixture, message, askedMs, headers, final } of cases) {
    const named = headers ? `${fixture} with ${Object.keys(headers).join(", ")}` : fixture;
    const waits = final ? "not retried" : askedMs === undefined ? "retried after the backoff" : `retried after the ${askedMs} ms the provider asked (at most ${RETRY_CAP_MS})`;
    test(`${named} from ${provider}: reads "${message.slice(0, 40)}…", ${waits}`, async () => {
      const reply = errorReply(fixture);
      server.enqueue({ ...reply, headers: { ...reply.headers, ...headers } }, { type: "raw", body: recording(PROVIDERS[provider].text) });
      const { frames } = await ask(provider);
      const [failed, answered] = assistantEnds(frames);
      expect(failed.stopReason).toBe("error");
      // A case shortens a long message to its start; the final mark ends the line.
      expect(failed.errorMessage).toStartWith(message);
      if (final) expect(failed.errorMessage).toBe(message);
      // The body is reduced to its message; the raw body stays on the message for --verbose.
      expect(failed.errorMessage).not.toContain("{");
      expect(failed.errorMessage).not.toContain("\n");
      // Gemini ends some messages in a space; the line does not.
      expect(failed.errorMessage).toBe(failed.errorMessage.trim());
      // Anthropic's SDK keeps the body's text; the OpenAI and Gemini SDKs parse it, so what is kept is its error object.
      if (PROVIDERS[provider].api === "anthropic-messages") expect(failed.errorBody).toBe(reply.body);
      else expect(errorObject(JSON.parse(failed.errorBody))).toEqual(errorObject(JSON.parse(reply.body)));
      expect(failed.retryAfterMs).toBe(askedMs);
      const retry = frames.find((frame) => frame.type === "auto_retry_start");
      if (final) {
        expect(retry).toBeUndefined();
        expect(answered).toBeUndefined();
        expect(server.requests).toHaveLength(1);
        return;
      }
      expect(answered.stopReason).toBe("stop");
      const expectedDelay = askedMs === undefined ? 10 : Math.min(askedMs, RETRY_CAP_MS);
      expect(retry?.delayMs).toBe(expectedDelay);
      const waited = server.requests[1].receivedAt - server.requests[0].receivedAt;
      expect(waited).toBeGreaterThanOrEqual(expectedDelay - 5);
    });
  }

  test("a wait the provider asks for is capped by retry.maxAgentDelayMs", async () => {
    const capped = makeTestHome();
    try {
      capped.writeModelsJson({ providers: { claude: { baseUrl: server.baseUrl("anthropic-messages"), api: "anthropic-messages", apiKey: "k", models: [{ id: "c" }] } } });
      capped.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 1, maxAgentDelayMs: 300 } });
      server.enqueue({ ...errorReply("anthropic-429"), headers: { "retry-after": "30" } }, { type: "raw", body: recording(PROVIDERS.claude.text) });
      const { frames } = await runJsonMode(["-p", "hi", "--model", "claude/c"], { env: capped.env, timeoutMs: 20_000 });
      const retry = frames.find((frame) => frame.type === "auto_retry_start");
      expect(retry?.delayMs).toBe(300);
    } finally {
      capped.cleanup();
    }
  });

  test("print mode shows the provider's message and the honoured wait in its retry notice", async () => {
    // A cap above a second of its own, so the notice shows a wait in seconds.
    const seconds = makeTestHome();
    try {
      seconds.writeModelsJson({ providers: { claude: { baseUrl: server.baseUrl("anthropic-messages"), api: "anthropic-messages", apiKey: "k", models: [{ id: PROVIDERS.claude.model }] } } });
      seconds.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 2, maxAgentDelayMs: 1500 } });
      server.enqueue(errorReply("anthropic-429"), { type: "raw", body: recording(PROVIDERS.claude.text) });
      const result = await runXcsh(["-p", "hi", "--model", `claude/${PROVIDERS.claude.model}`], { env: seconds.env, timeoutMs: 20_000 });
      expect(result.stdout.trim()).toBe(SKY);
      expect(result.stderr).toContain(
        "xcsh: 429 rate limited by claude: This request would exceed your account's rate limit. Please try again later. — retrying in 1.5 s (attempt 1 of 2)",
      );
      expect(result.stderr).not.toContain("response body");
    } finally {
      seconds.cleanup();
    }
  });

  test("print mode with --verbose adds Gemini's body, on one line", async () => {
    server.enqueue(errorReply("gemini-500"), errorReply("gemini-500"), errorReply("gemini-500"));
    const result = await runXcsh(["-p", "hi", "--verbose", "--model", `gemini/${PROVIDERS.gemini.model}`], { env: home.env, timeoutMs: 20_000 });
    expect(result.exitCode).not.toBe(0);
    const message = "500 INTERNAL: An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting";
    expect(result.stderr).toContain(`xcsh: gemini/${PROVIDERS.gemini.model}: ${message}`);
    const bodies = result.stderr.split("\n").filter((line) => line.startsWith("xcsh: response body: "));
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies[0]).toMatch(/"message":\s*"An internal error has occurred\. Please retry or report in https:\/\/developers\.generativeai\.google\/guide\/troubleshooting",\s*"status":\s*"INTERNAL"/);
  });

  test("a refusal no wait can mend ends the run at once, in print mode too", async () => {
    server.enqueue(errorReply("openai-429-quota"), { type: "raw", body: recording(PROVIDERS.gpt.text) });
    const result = await runXcsh(["-p", "hi", "--model", `gpt/${PROVIDERS.gpt.model}`], { env: home.env, timeoutMs: 20_000 });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).not.toContain("retrying in");
    expect(result.stderr).toContain("429 insufficient_quota: You exceeded your current quota");
    expect(result.stderr).toContain("(retrying will not help)");
    expect(server.requests).toHaveLength(1);
  });
});

describe("408, 409 and the provider's x-should-retry", () => {
  /**
   * Anthropic's and OpenAI's SDKs retry a 408 (request timeout) and a 409 (lock timeout)
   * unasked; xcsh does the same. `x-should-retry` comes first: `false` makes them final,
   * `true` retries even a status xcsh would not retry by itself (a 400). No published 408,
   * 409 or advised-400 body was found: these are written in each API's error shape for the test,
   * worded so that no other rule (a "timeout" in the text) retries them.
   */
  const conflict = { type: "raw" as const, status: 409, body: JSON.stringify({ type: "error", error: { type: "conflict_error", message: "Another request holds the lock" } }) };
  const openaiTimeout = { type: "raw" as const, status: 408, body: JSON.stringify({ error: { message: "The request did not arrive whole", type: "invalid_request_error", param: null, code: null } }) };
  const invalid = { type: "raw" as const, status: 400, body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "Try again" } }) };
  const openaiInvalid = { type: "raw" as const, status: 400, body: JSON.stringify({ error: { message: "Try again", type: "invalid_request_error", param: null, code: null } }) };

  test("Anthropic's 409 is retried without being asked, then answered", async () => {
    server.enqueue(conflict, { type: "raw", body: recording(PROVIDERS.claude.text) });
    const { frames } = await ask("claude");
    const [failed, answered] = assistantEnds(frames);
    expect(failed.errorMessage).toBe("409 conflict_error: Another request holds the lock");
    expect(frames.find((frame) => frame.type === "auto_retry_start")?.delayMs).toBe(10);
    expect(textOf(answered)).toBe(SKY);
    expect(server.requests).toHaveLength(2);
  });

  test("OpenAI's 408 is retried without being asked, through Chat Completions and Responses", async () => {
    for (const provider of ["gpt", "gptr"] as const) {
      server.clearScript();
      server.requests.length = 0;
      server.enqueue(openaiTimeout, { type: "raw", body: recording(PROVIDERS[provider].text) });
      const { frames } = await ask(provider);
      const [failed, answered] = assistantEnds(frames);
      expect(failed.errorMessage).toBe("408 invalid_request_error: The request did not arrive whole");
      expect(answered?.stopReason).toBe("stop");
      expect(server.requests).toHaveLength(2);
    }
  });

  test("a 409 with x-should-retry: false ends the run", async () => {
    server.enqueue({ ...conflict, headers: { "x-should-retry": "false" } }, { type: "raw", body: recording(PROVIDERS.claude.text) });
    const { frames } = await ask("claude");
    expect(assistantEnds(frames)).toHaveLength(1);
    expect(frames.find((frame) => frame.type === "auto_retry_start")).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  test("a 400 with x-should-retry: true is retried, from Anthropic and through both OpenAI APIs; without the header it ends the run", async () => {
    for (const provider of ["claude", "gpt", "gptr"] as const) {
      server.clearScript();
      server.requests.length = 0;
      const body = provider === "claude" ? invalid : openaiInvalid;
      server.enqueue({ ...body, headers: { "x-should-retry": "true" } }, { type: "raw", body: recording(PROVIDERS[provider].text) });
      const { frames } = await ask(provider);
      const [failed, answered] = assistantEnds(frames);
      expect(failed.errorMessage).toBe("400 invalid_request_error: Try again");
      expect(answered?.stopReason).toBe("stop");
      expect(server.requests).toHaveLength(2);
    }
    server.clearScript();
    server.requests.length = 0;
    server.enqueue(invalid, { type: "raw", body: recording(PROVIDERS.claude.text) });
    const { frames } = await ask("claude");
    expect(assistantEnds(frames)).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  test("a 409 still failing when the retries run out is reported retryable in the json envelope", async () => {
    server.enqueue(conflict, conflict, conflict);
    const result = await runXcsh(["-p", "hi", "--output-format", "json", "--model", `claude/${PROVIDERS.claude.model}`], { env: home.env, timeoutMs: 20_000 });
    expect(server.requests).toHaveLength(3);
    const envelope = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
    expect(envelope).toMatchObject({ status: "error", error: { kind: "provider", retryable: true, httpStatus: 409 } });
  });

  test("print mode: x-should-retry: false ends the run at once and says retrying will not help", async () => {
    server.enqueue({ ...errorReply("anthropic-529"), headers: { "x-should-retry": "false" } }, { type: "raw", body: recording(PROVIDERS.claude.text) });
    const result = await runXcsh(["-p", "hi", "--model", `claude/${PROVIDERS.claude.model}`], { env: home.env, timeoutMs: 20_000 });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).not.toContain("retrying in");
    expect(result.stderr).toContain("529 overloaded_error: Overloaded (retrying will not help)");
    expect(server.requests).toHaveLength(1);
  });
});

describe("network failures", () => {
  test("a refused connection names the address and the cause, once per attempt", async () => {
    const closed = startFakeLlm();
    const port = closed.port;
    await closed.close();
    const refused = makeTestHome();
    try {
      refused.writeModelsJson({ providers: { gpt: { baseUrl: `http://127.0.0.1:${port}/v1`, api: "openai-completions", apiKey: "k", models: [{ id: "m" }] } } });
      refused.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 1 } });
      const result = await runXcsh(["-p", "hi", "--model", "gpt/m"], { env: refused.env, timeoutMs: 20_000 });
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toContain(`Cannot reach 127.0.0.1:${port}: connection refused (ECONNREFUSED)`);
      expect(result.stderr).not.toContain("Connection error.");
      // One line for the retried attempt, one for the final failure.
      expect(result.stderr.split("\n").filter((line) => line.includes("Cannot reach"))).toEqual([
        `xcsh: Cannot reach 127.0.0.1:${port}: connection refused (ECONNREFUSED) — retrying in 10 ms (attempt 1 of 1)`,
        `xcsh: gpt/m: Cannot reach 127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
      ]);
    } finally {
      refused.cleanup();
    }
  });
});
