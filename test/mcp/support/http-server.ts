/**
 * The test MCP server (test-server.ts) over HTTP, in the test's own process, on
 * node:http with the SDK's server transports: Streamable HTTP at /mcp (one session
 * per client, as the SDK's examples keep them) and the older SSE transport at /sse
 * (+ /messages). Every request's headers are kept, so a test can see what a client sent,
 * and every Streamable HTTP message's method with when it came; `refuse` answers a
 * message with an HTTP error instead (a busy or rate-limiting server).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createTestServer } from "./test-server.ts";

export interface HttpMcpServer {
  url: string;
  /** Headers of every request, in order. */
  headers: IncomingMessage["headers"][];
  /** Every message POSTed to /mcp: its JSON-RPC method (undefined for a response) and when it came. */
  messages: { method: string | undefined; at: number }[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text ? JSON.parse(text) : undefined;
}

export interface HttpMcpOptions {
  /** Runs before the MCP routes; true when it answered the request itself (an auth check that refused, a metadata document). */
  gate?(request: IncomingMessage, response: ServerResponse, path: string): boolean;
  resources?: boolean;
  /**
   * Asked for each message POSTed to /mcp, with how many of that method came before it:
   * an answer is sent instead of handling the message (a status, its headers, a body).
   */
  refuse?(method: string | undefined, earlier: number): { status: number; headers?: Record<string, string>; body?: string } | undefined;
  /** Listen on this port (a server started again where a stopped one was); any free port when absent. */
  port?: number;
}

export async function startHttpMcpServer(name = "web", options: HttpMcpOptions = {}): Promise<HttpMcpServer> {
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const headers: IncomingMessage["headers"][] = [];
  const messages: HttpMcpServer["messages"] = [];
  const server: Server = createServer(async (request, response) => {
    headers.push(request.headers);
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (options.gate?.(request, response, path)) return;
    try {
      if (path === "/mcp") {
        const body = request.method === "POST" ? await readBody(request) : undefined;
        if (request.method === "POST") {
          const method = (body as { method?: string } | undefined)?.method;
          const earlier = messages.filter((message) => message.method === method).length;
          messages.push({ method, at: Date.now() });
          const refusal = options.refuse?.(method, earlier);
          if (refusal) {
            response.writeHead(refusal.status, { "content-type": "text/plain", ...refusal.headers }).end(refusal.body ?? "busy");
            return;
          }
        }
        const sessionId = request.headers["mcp-session-id"] as string | undefined;
        let transport = sessionId ? streamable.get(sessionId) : undefined;
        if (!transport && isInitializeRequest(body)) {
          const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void streamable.set(id, created) });
          await createTestServer(name, { resources: options.resources }).connect(created);
          transport = created;
        }
        if (!transport) {
          response.writeHead(400).end("no session");
          return;
        }
        await transport.handleRequest(request, response, body);
      } else if (path === "/sse") {
        const transport = new SSEServerTransport("/messages", response);
        sse.set(transport.sessionId, transport);
        await createTestServer(name).connect(transport);
      } else if (path === "/messages") {
        const transport = sse.get(new URL(request.url ?? "/", "http://localhost").searchParams.get("sessionId") ?? "");
        if (!transport) response.writeHead(404).end("no session");
        else await transport.handlePostMessage(request, response);
      } else response.writeHead(404).end();
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    headers,
    messages,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
