/**
 * What an editor sees of a reply's edges, as pi 1.6.0 shows them: the text of an aborted
 * answer ("Request aborted" before the provider answered, "Request was aborted" once it
 * was streaming), the order of block events where a text is followed by a tool call
 * (Chat Completions closes its blocks at the stream's end; Anthropic as each block
 * stops), and error messages that never carry the credential a provider echoed back —
 * not on the wire, not in the session file, not on the screen of print mode.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeApi, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { startRpc, type Frame, type RpcProcess } from "../support/rpc-harness.ts";

const WAIT = 30_000;
/** Neither key- nor token-shaped: only knowing the key in use can hide it. */
const LITERAL_KEY = "plain-literal-credential-7f3a9c";

interface Rig {
  server: FakeLlmServer;
  home: TestHome;
  rpc?: RpcProcess;
}
const rigs: Rig[] = [];

afterEach(async () => {
  for (const rig of rigs.splice(0)) {
    rig.rpc?.kill();
    await rig.rpc?.proc.exited;
    await rig.server.close();
    rig.home.cleanup();
  }
});

function rig(api: FakeApi, options: { rpc?: boolean; env?: Record<string, string> } = {}): Rig & { rpc: RpcProcess } {
  const server = startFakeLlm();
  const home = makeTestHome();
  home.writeModelsJson({ providers: { fake: { baseUrl: server.baseUrl(api), api, apiKey: LITERAL_KEY, models: [{ id: "m" }] } } });
  const cwd = `${home.home}/project`;
  Bun.spawnSync(["mkdir", "-p", cwd]);
  const made: Rig = { server, home };
  if (options.rpc !== false) made.rpc = startRpc({ env: { ...home.env, ...options.env }, cwd, args: ["--model", "fake/m"] });
  rigs.push(made);
  return made as Rig & { rpc: RpcProcess };
}

async function sessionText(rpc: RpcProcess): Promise<string> {
  const state = await rpc.request({ type: "get_state" }, WAIT);
  return readFileSync(state.data.sessionFile, "utf8");
}

/** Prompts, aborts once `ready` holds, and returns the aborted assistant message. */
async function abortWhen(target: Rig & { rpc: RpcProcess }, ready: () => Promise<unknown>): Promise<Frame> {
  const from = target.rpc.mark();
  await target.rpc.request({ type: "prompt", message: "slow one" }, WAIT);
  await ready();
  await target.rpc.request({ type: "abort" }, WAIT);
  const end = await target.rpc.waitForEvent("message_end", (frame) => frame.message.role === "assistant", WAIT, from);
  return end.message;
}

describe("the text of an aborted answer", () => {
  for (const api of ["openai-completions", "anthropic-messages", "openai-responses", "google-generative-ai"] as FakeApi[]) {
    test(`${api}: "Request aborted" while waiting for the provider, "Request was aborted" while it streams`, async () => {
      const target = rig(api);
      // No answer yet: the server holds the request before its headers.
      target.server.enqueue({ content: [{ type: "text", text: "late" }], delayMs: 20_000 });
      const waiting = await abortWhen(target, async () => {
        while (target.server.requests.length < 1) await Bun.sleep(20);
      });
      expect(waiting.stopReason).toBe("aborted");
      expect(waiting.errorMessage).toBe("Request aborted");

      // The answer has begun: text is streaming when the user stops it.
      target.server.enqueue({ content: [{ type: "text", text: "a long answer that trickles in" }], chunkSize: 2, chunkDelayMs: 300 });
      const from = target.rpc.mark();
      const streaming = await abortWhen(target, () =>
        target.rpc.waitForEvent("message_update", (frame) => frame.assistantMessageEvent?.type === "text_delta", WAIT, from),
      );
      expect(streaming.stopReason).toBe("aborted");
      expect(streaming.errorMessage).toBe("Request was aborted");
      expect(streaming.content[0]?.text?.length).toBeGreaterThan(0);
    });
  }
});

describe("block events where a text is followed by a tool call", () => {
  const reply = { content: [{ type: "text" as const, text: "Let me look." }, { type: "toolCall" as const, name: "ls", arguments: {} }] };

  async function blockEvents(api: FakeApi): Promise<string[]> {
    const target = rig(api);
    target.server.enqueue(reply, { content: [{ type: "text", text: "Done." }] });
    const from = target.rpc.mark();
    await target.rpc.request({ type: "prompt", message: "look" }, WAIT);
    await target.rpc.waitForEvent("agent_end", () => true, WAIT, from);
    const events: string[] = [];
    for (const frame of target.rpc.ofType("message_update", from)) {
      const event = frame.assistantMessageEvent;
      const name = `${event.type}:${event.contentIndex}`;
      if (!event.type.endsWith("_delta") && events.at(-1) !== name) events.push(name);
      if (event.type === "toolcall_end") break;
    }
    return events;
  }

  test("Chat Completions closes both blocks when the stream ends, in content order (pi 1.6.0)", async () => {
    expect(await blockEvents("openai-completions")).toEqual(["text_start:0", "toolcall_start:1", "text_end:0", "toolcall_end:1"]);
  });

  test("Anthropic closes each block as the provider stops it", async () => {
    expect(await blockEvents("anthropic-messages")).toEqual(["text_start:0", "text_end:0", "toolcall_start:1", "toolcall_end:1"]);
  });
});

describe("error messages never carry a credential", () => {
  /** A gateway that echoes the key it was given in its 401 message. */
  const echoKey = (request: { headers: Record<string, string> }) => {
    const given = request.headers.authorization ?? request.headers["x-api-key"] ?? request.headers["x-goog-api-key"] ?? "";
    return { type: "error" as const, status: 401, message: `Invalid credentials: ${given.replace(/^Bearer /, "")} is not a key we know` };
  };

  for (const api of ["openai-completions", "anthropic-messages", "google-generative-ai"] as FakeApi[]) {
    test(`${api}: the key a provider echoes is redacted in the frame, errorBody and the session file`, async () => {
      const target = rig(api);
      target.server.enqueue(echoKey);
      const from = target.rpc.mark();
      await target.rpc.request({ type: "prompt", message: "hi" }, WAIT);
      const end = await target.rpc.waitForEvent("message_end", (frame) => frame.message.role === "assistant", WAIT, from);
      await target.rpc.waitForEvent("agent_end", () => true, WAIT, from);
      // The provider did echo it: the request carried the key.
      expect(JSON.stringify(target.server.requests[0]!.headers)).toContain(LITERAL_KEY);
      expect(end.message.stopReason).toBe("error");
      expect(end.message.errorMessage).toContain("401");
      expect(end.message.errorMessage).toContain("Invalid credentials: [redacted] is not a key we know");
      expect(JSON.stringify(target.rpc.frames)).not.toContain(LITERAL_KEY);
      expect(await sessionText(target.rpc)).not.toContain(LITERAL_KEY);
    });
  }

  test("a key echoed inside base64 (a proxy's header dump) or a credential variable's value percent-encoded is hidden too", async () => {
    const target = rig("openai-completions", { rpc: false });
    const envSecret = "gw/secret+with=specials";
    target.server.enqueue((request) => ({
      type: "error",
      status: 401,
      message: `header dump ${Buffer.from(`Authorization: ${request.headers.authorization}`).toString("base64")} query ?t=${encodeURIComponent(envSecret)}`,
    }));
    const result = await runXcsh(["-p", "hi", "--model", "fake/m"], { env: { ...target.home.env, GATEWAY_TOKEN: envSecret }, timeoutMs: WAIT });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("header dump");
    const dumped = /header dump (\S+)/.exec(result.stderr)![1]!;
    expect(dumped).toContain("[redacted]");
    // What is left of the dump, decoded piece by piece, does not spell the key.
    for (const piece of dumped.split("[redacted]")) expect(Buffer.from(piece, "base64").toString("latin1")).not.toContain(LITERAL_KEY.slice(0, 8));
    expect(result.stderr).toContain("query ?t=[redacted]");
    expect(result.stderr).not.toContain(encodeURIComponent(envSecret));
  });

  test("print mode's error line hides the key, and the value of a credential variable", async () => {
    const target = rig("openai-completions", { rpc: false });
    const envSecret = "env-held-gateway-secret-55";
    target.server.enqueue((request) => ({
      type: "error",
      status: 403,
      message: `Denied for ${request.headers.authorization} via gateway token ${envSecret}`,
    }));
    const result = await runXcsh(["-p", "hi", "--model", "fake/m"], { env: { ...target.home.env, GATEWAY_TOKEN: envSecret }, timeoutMs: WAIT });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("Denied for Bearer [redacted] via gateway token [redacted]");
    expect(result.stderr).not.toContain(LITERAL_KEY);
    expect(result.stderr).not.toContain(envSecret);
  });
});
