/**
 * Runs the fake LLM server by hand, for debugging a client against scripted
 * answers:  bun test/support/fake-llm/cli.ts [--port N] [--script replies.json]
 * The script is a JSON array of responses (see script.ts); when it runs out the
 * server answers with a fixed greeting. Requests are logged to stderr.
 */
import { startFakeLlm, type FakeApi, type FakeResponse } from "./server.ts";

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const scriptPath = option("--script");
let script: FakeResponse[] = [];
if (scriptPath) {
  const parsed = await Bun.file(scriptPath).json();
  if (!Array.isArray(parsed)) throw new Error(`${scriptPath}: expected a JSON array of responses`);
  script = parsed;
}

const server = startFakeLlm({
  port: Number(option("--port") ?? 0),
  script,
  onRequest: (request) => console.error(`${request.api} ${request.path} model=${request.model}`),
});

const apis: FakeApi[] = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"];
console.log(`fake LLM server on ${server.url}`);
for (const api of apis) console.log(`  ${api.padEnd(22)} baseUrl ${server.baseUrl(api)}`);
