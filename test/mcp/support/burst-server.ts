export {};
/**
 * A bare stdio MCP server that answers its one tool, `steps`, with three progress
 * notifications and the result in a single write: the client then reads them in one
 * chunk, the case where a client that hands the SDK a whole read at once loses the
 * last notification. Speaks just enough JSON-RPC for initialize, tools/list and tools/call.
 */
const send = (messages: unknown[]) => process.stdout.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
let buffered = "";
for await (const chunk of Bun.stdin.stream()) {
  buffered += new TextDecoder().decode(chunk);
  let newline: number;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    if (request.method === "initialize") {
      send([{ jsonrpc: "2.0", id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "burst", version: "1" } } }]);
    } else if (request.method === "tools/list") {
      send([{ jsonrpc: "2.0", id: request.id, result: { tools: [{ name: "steps", description: "Three steps", inputSchema: { type: "object", properties: {} } }] } }]);
    } else if (request.method === "tools/call") {
      const progressToken = request.params._meta?.progressToken;
      const progress = [1, 2, 3].map((step) => ({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: step, total: 3 } }));
      send([...(progressToken === undefined ? [] : progress), { jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: "three steps done" }] } }]);
    } else if (request.id !== undefined) {
      send([{ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "not here" } }]);
    }
  }
}
