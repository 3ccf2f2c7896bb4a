/**
 * The stdio MCP server the `mcp` workload declares three times: newline-delimited
 * JSON-RPC on stdin/stdout answering the handshake, one tool and one prompt, and
 * nothing else. Written by hand rather than with the SDK so that the server's own
 * start-up stays small; it runs under the Bun that runs the bench.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** The prompt each server offers; connected servers show it in `get_commands` as `mcp__<server>__<this>`. */
export const BENCH_PROMPT = "bench_prompt";

const SOURCE = `const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
const fail = (id, message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message } }) + "\\n");
const answers = {
  initialize: (params) => ({
    protocolVersion: params?.protocolVersion ?? "2025-06-18",
    capabilities: { tools: {}, prompts: {} },
    serverInfo: { name: "bench-mcp", version: "1.0.0" },
  }),
  ping: () => ({}),
  "tools/list": () => ({ tools: [{ name: "bench_tool", description: "Does nothing.", inputSchema: { type: "object", properties: {} } }] }),
  "tools/call": () => ({ content: [{ type: "text", text: "ok" }] }),
  "prompts/list": () => ({ prompts: [{ name: "${BENCH_PROMPT}", description: "Says hello." }] }),
  "prompts/get": () => ({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] }),
};
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\\n")) !== -1) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.id === undefined || !message.method) continue; // notifications and responses
    const answer = answers[message.method];
    if (answer) reply(message.id, answer(message.params));
    else fail(message.id, "unknown method " + message.method);
  }
});
process.stdin.on("end", () => process.exit(0));
`;

/** Writes the server into `dir` and returns its path. */
export function writeBenchMcpServer(dir: string): string {
  const file = join(dir, "bench-mcp-server.js");
  writeFileSync(file, SOURCE);
  return file;
}
