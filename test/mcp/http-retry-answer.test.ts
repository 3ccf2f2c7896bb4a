/**
 * A hostile remote MCP server's refusal whose body never ends: only the start of it is
 * read (the first line is all the error quotes), so the call fails at once instead of
 * reading without end. Unit level: the binary's test server (test/mcp/http-retry.test.ts)
 * answers whole bodies only.
 */
import { describe, expect, test } from "bun:test";
import { retryingFetch } from "../../src/mcp/http-retry.ts";

describe("a refusal whose body never ends", () => {
  test("a tool call answered 503 with an endless body fails quickly, quoting its first line", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode(pulled === 1 ? "overloaded\n" : "x".repeat(1024)));
      },
    });
    const send = retryingFetch(async () => new Response(endless, { status: 503 }));
    const started = performance.now();
    const call = send("http://server.invalid/mcp", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } }) });
    await expect(call).rejects.toThrow("HTTP 503 (overloaded; the server may have run the tool), not sent again");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(pulled).toBeLessThan(20);
  });
});
