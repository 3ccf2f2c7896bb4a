/**
 * The fake LLM server for the streamed-answer workload, in a process of its own:
 * in the bench process it would compete for the CPU with the bench reading
 * 50 MB of the agent's stdout, and the agent's time would include that. A
 * request whose last message asks to write the big file gets the 200 KB `write`
 * call, the request after it a short answer; every other request gets the 20 KB answer. Prints its base URL for OpenAI Chat Completions
 * on stdout, and stops when stdin closes.
 */
import { startFakeLlm } from "../../test/support/fake-llm/server.ts";
import type { RecordedRequest } from "../../test/support/fake-llm/server.ts";
import { AFTER_TOOL_REPLY, STREAM_REPLY, TOOL_CALL_PROMPT, TOOL_CALL_REPLY } from "./stream-answer.ts";

function replyFor(request: RecordedRequest) {
  const last = (request.body?.messages as { role: string; content: unknown }[] | undefined)?.at(-1);
  if (last?.role === "tool") return AFTER_TOOL_REPLY;
  return JSON.stringify(last?.content ?? "").includes(TOOL_CALL_PROMPT) ? TOOL_CALL_REPLY : STREAM_REPLY;
}

const server = startFakeLlm({
  // Called before the request takes its script step, so the script never runs dry.
  onRequest: (request) => server.enqueue(replyFor(request)),
});
process.stdout.write(`${server.baseUrl("openai-completions")}\n`);
for await (const _ of Bun.stdin.stream()) {
  // Nothing is read; the loop ends at EOF.
}
await server.close();
