/**
 * The fake LLM server for the streamed-answer workload, in a process of its own:
 * in the bench process it would compete for the CPU with the bench reading
 * 50 MB of the agent's stdout, and the agent's time would include that. Every
 * request gets the 20 KB answer. Prints its base URL for OpenAI Chat Completions
 * on stdout, and stops when stdin closes.
 */
import { startFakeLlm } from "../../test/support/fake-llm/server.ts";
import { STREAM_REPLY } from "./stream-answer.ts";

const server = startFakeLlm({
  // Called before the request takes its script step, so the script never runs dry.
  onRequest: () => server.enqueue(STREAM_REPLY),
});
process.stdout.write(`${server.baseUrl("openai-completions")}\n`);
for await (const _ of Bun.stdin.stream()) {
  // Nothing is read; the loop ends at EOF.
}
await server.close();
