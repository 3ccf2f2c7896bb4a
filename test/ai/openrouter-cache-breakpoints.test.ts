/**
 * OpenRouter's Claude models over Chat Completions take Anthropic's `cache_control` on a
 * message's text parts, four breakpoints at most. Through the built binary, in a tool loop,
 * the requests the fake server records: the system prompt, the last tool and the last two
 * user turns (a user message, or a run of tool results) are marked, as xcsh marks them for
 * Anthropic itself, so each request's last breakpoint is marked again in the next one and
 * the whole previous prompt can be read from the cache. An extension's own mark beside them
 * stands, and xcsh's earlier user turn gives way, so the request keeps to four.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";

let server: FakeLlmServer;
let home: TestHome;
beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
  home = makeTestHome();
  home.writeModelsJson({ providers: { openrouter: { baseUrl: server.baseUrl("openai-completions") } } });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

interface WireMessage {
  role: string;
  content: string | { type: string; text?: string; cache_control?: unknown }[] | null;
}

/** Where a request carries breakpoints: "role:text" for each marked message part. */
function marked(messages: WireMessage[]): string[] {
  return messages.flatMap((message) =>
    Array.isArray(message.content) ? message.content.filter((part) => part.cache_control).map((part) => `${message.role}:${part.text}`) : [],
  );
}

const MODEL = ["--no-session", "--model", "openrouter/anthropic/claude-sonnet-4.6:batch"];
const bash = (id: string, word: string) => ({ type: "toolCall" as const, id, name: "bash", arguments: { command: `echo ${word}` } });

test("in a tool loop, the last two user turns are marked, each request's last one again in the next; never more than four breakpoints", async () => {
  server.enqueue(
    { content: [bash("call_1", "one"), bash("call_2", "two")] },
    { content: [bash("call_3", "three")] },
    { content: [{ type: "text", text: "all done" }] },
  );
  server.requests.length = 0;
  const result = await runXcsh(["-p", "Run the three commands.", ...MODEL], {
    env: { ...home.env, OPENROUTER_API_KEY: "sk-or-test" },
    timeoutMs: 60_000,
  });
  expect(result.stdout).toBe("all done\n");
  const bodies = server.requests.map((request) => request.body as { messages: WireMessage[]; tools: { cache_control?: unknown }[] });
  expect(bodies).toHaveLength(3);
  const system = (messages: WireMessage[]) => marked(messages).filter((mark) => mark.startsWith("system:"));
  const turns = (messages: WireMessage[]) => marked(messages).filter((mark) => !mark.startsWith("system:"));

  // The prompt alone.
  expect(turns(bodies[0]!.messages)).toEqual(["user:Run the three commands."]);
  // The two results are one turn (the second is marked), the prompt the turn before.
  expect(turns(bodies[1]!.messages)).toEqual(["user:Run the three commands.", "tool:two"]);
  // The third result, and again the run marked in the request before: its whole prompt is a cached prefix.
  expect(turns(bodies[2]!.messages)).toEqual(["tool:two", "tool:three"]);

  for (const body of bodies) {
    expect(system(body.messages)).toHaveLength(1);
    expect(body.tools.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
    expect(marked(body.messages).length + body.tools.filter((tool) => tool.cache_control).length).toBeLessThanOrEqual(4);
  }
}, 90_000);

test("an extension's own breakpoint stands and xcsh's earlier user turn gives way: four in all", async () => {
  const extension = join(home.home, "pin.ts");
  // Marks the first tool, as an extension caching a stable tool prefix of its own would.
  writeFileSync(
    extension,
    `export default function (pi) {
  pi.on("before_provider_request", (e) => {
    const payload = structuredClone(e.payload);
    payload.tools[0].cache_control = { type: "ephemeral", ttl: "1h" };
    return payload;
  });
}\n`,
  );
  server.requests.length = 0;
  server.enqueue({ content: [bash("call_1", "one")] }, { content: [{ type: "text", text: "done" }] });
  const result = await runXcsh(["-p", "Run it.", ...MODEL, "-e", extension], { env: { ...home.env, OPENROUTER_API_KEY: "sk-or-test" }, timeoutMs: 60_000 });
  expect(result.stdout).toBe("done\n");
  const body = server.requests.at(-1)!.body as { messages: WireMessage[]; tools: { cache_control?: unknown }[] };
  expect(body.tools[0]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  expect(body.tools.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
  // The later turn (the tool result) keeps its mark; the prompt's gave way.
  expect(marked(body.messages)).toEqual([expect.stringMatching(/^system:/), "tool:one"]);
}, 90_000);
