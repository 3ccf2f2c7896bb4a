/**
 * A real MCP server for the tests, on the SDK's server side. Run as a script it
 * serves stdio (the way xcsh starts configured servers); `createTestServer` gives
 * the same server for an in-process HTTP transport. What it does is visible from
 * outside: it appends events (`start <pid>`, `cancelled <tool>`, …) to the file
 * named by MCP_EVENTS, so a test can see it started, saw a cancellation, or never ran.
 *
 * Tools: echo {text}, picture (text + a PNG), structured (structuredContent only), big (3000 lines), getenv {name},
 * link (a resource link and an embedded resource), fail (an isError result),
 * slow (runs until cancelled), grow (adds the tool "extra" at run time: tools/list_changed),
 * writefile {path, text} (writes a file; an isError result with the reason when it cannot).
 * Prompt: review {topic}.
 * Resources (with MCP_RESOURCES=1, or `resources: true`): file:///docs/guide.md and memo://notes/today.
 * MCP_CRASH=1: writes to stderr and exits at once. MCP_NAME: the server's name.
 * MCP_LINGER=1: keeps running when its stdin closes, as a careless server does; only a kill ends it.
 * MCP_MANY=N: N more tools, `record_<i>` {id, fields?, limit?}, each about a subject of its own (a large server).
 * die: exits the process at once (a crash in the middle of a call).
 * MCP_ASK=1: `ask` asks the user (elicitation) for a name and a size, and answers with what came back.
 * MCP_DASHED=1: `add-note` {text}, and `get-weather` and `get_weather`, whose names meet once `-` becomes `_`.
 * MCP_SAMPLE=1: `sample` {prompt, hint?, cost?, intelligence?, context?} asks the client's model (sampling) with those
 *   modelPreferences and includeContext, and answers `<model that answered>: <its text>`.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

/** A 1×1 red PNG. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

function note(line: string): void {
  const file = process.env.MCP_EVENTS;
  if (file) appendFileSync(file, `${line}\n`);
}

export function createTestServer(name = process.env.MCP_NAME ?? "test", options: { resources?: boolean } = {}): McpServer {
  const server = new McpServer({ name, version: "1.0.0" }, process.env.MCP_INSTRUCTIONS ? { instructions: process.env.MCP_INSTRUCTIONS } : undefined);
  if (options.resources ?? process.env.MCP_RESOURCES === "1") {
    server.registerResource("guide", "file:///docs/guide.md", { description: "The project guide", mimeType: "text/markdown" }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: `# Guide from ${name}\nThe secret word is marmalade.` }],
    }));
    server.registerResource("today", "memo://notes/today", { description: "Today's notes", mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "Notes: buy oranges." }],
    }));
  }
  server.registerTool("echo", { description: "Echoes the text back", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: `${name} echo: ${text}` }],
  }));
  server.registerTool("picture", { description: "A picture", annotations: { readOnlyHint: true } }, async () => ({
    content: [
      { type: "text", text: "here is a red pixel" },
      { type: "image", data: PNG_BASE64, mimeType: "image/png" },
    ],
  }));
  server.registerTool("structured", { description: "Structured data only" }, async () => ({ content: [], structuredContent: { answer: 42, unit: "widgets" } }));
  server.registerTool("link", { description: "Links a resource" }, async () => ({
    content: [
      { type: "resource_link", uri: "file:///docs/guide.md", name: "guide", mimeType: "text/markdown", description: "The guide" },
      { type: "resource", resource: { uri: "file:///docs/note.txt", mimeType: "text/plain", text: "embedded note text" } },
    ],
  }));
  server.registerTool("big", { description: "3000 numbered lines" }, async () => ({
    content: [{ type: "text", text: Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n") }],
  }));
  server.registerTool("getenv", { description: "A variable of the server's environment", inputSchema: { name: z.string() } }, async ({ name: variable }) => ({
    content: [{ type: "text", text: `${variable}=${process.env[variable] ?? "(unset)"}` }],
  }));
  server.registerTool("writefile", { description: "Writes a file", inputSchema: { path: z.string(), text: z.string() } }, async ({ path, text }) => {
    try {
      writeFileSync(path, text);
      return { content: [{ type: "text", text: `wrote ${path}` }] };
    } catch (error) {
      return { content: [{ type: "text", text: `cannot write ${path}: ${(error as Error).message}` }], isError: true };
    }
  });
  server.registerTool("fail", { description: "Always fails" }, async () => ({ content: [{ type: "text", text: "the widget is broken" }], isError: true }));
  server.registerTool("slow", { description: "Runs until cancelled" }, async (extra) => {
    note(`slow started ${process.pid}`);
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) return resolve();
      extra.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    note(`cancelled slow ${process.pid}`);
    return { content: [{ type: "text", text: "cancelled" }] };
  });
  server.registerTool("grow", { description: "Adds a tool" }, async () => {
    server.registerTool("extra", { description: "Added at run time" }, async () => ({ content: [{ type: "text", text: "extra ran" }] }));
    return { content: [{ type: "text", text: "added extra" }] };
  });
  const subjects = ["invoices", "customers", "shipments", "tickets", "payments", "repositories", "calendars", "documents", "alerts", "deployments"];
  for (let i = 0; i < Number(process.env.MCP_MANY ?? 0); i++) {
    const subject = subjects[i % subjects.length];
    server.registerTool(
      `record_${i}`,
      {
        description: `Fetches one of the ${subject} (collection ${i}) by its id, with the fields asked for. Use it to look up ${subject} records before changing them.`,
        inputSchema: {
          id: z.string().describe(`The id of the record among the ${subject}`),
          fields: z.array(z.string()).optional().describe("Which fields to return; all when absent"),
          limit: z.number().int().min(1).max(100).optional().describe("How many related records to include"),
        },
      },
      async ({ id }) => ({ content: [{ type: "text", text: `${subject} ${id}: found` }] }),
    );
  }
  if (process.env.MCP_ASK === "1") {
    server.registerTool("ask", { description: "Asks the user for a name and a size" }, async () => {
      const answer = await server.server.elicitInput({
        message: "Who are you?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string", title: "Name" }, size: { type: "string", title: "Size", enum: ["small", "large"] } },
          required: ["name", "size"],
        },
      });
      return { content: [{ type: "text", text: `answer: ${answer.action} ${JSON.stringify(answer.content ?? {})}` }] };
    });
  }
  if (process.env.MCP_SAMPLE === "1") {
    const params = { prompt: z.string(), hint: z.string().optional(), cost: z.number().optional(), intelligence: z.number().optional(), context: z.enum(["none", "thisServer", "allServers"]).optional() };
    server.registerTool("sample", { description: "Asks the client's model", inputSchema: params }, async ({ prompt, hint, cost, intelligence, context }) => {
      const answer = await server.server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        maxTokens: 100,
        modelPreferences: { ...(hint ? { hints: [{ name: hint }] } : {}), ...(cost === undefined ? {} : { costPriority: cost }), ...(intelligence === undefined ? {} : { intelligencePriority: intelligence }) },
        ...(context ? { includeContext: context } : {}),
      });
      const text = answer.content.type === "text" ? answer.content.text : `[${answer.content.type}]`;
      return { content: [{ type: "text", text: `${answer.model}: ${text}` }] };
    });
  }
  if (process.env.MCP_DASHED === "1") {
    server.registerTool("add-note", { description: "Adds a note", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `noted: ${text}` }] }));
    server.registerTool("get-weather", { description: "Weather, dashed" }, async () => ({ content: [{ type: "text", text: "dashed weather" }] }));
    server.registerTool("get_weather", { description: "Weather, underscored" }, async () => ({ content: [{ type: "text", text: "underscored weather" }] }));
  }
  server.registerTool("die", { description: "Exits the server at once" }, async () => process.exit(7));
  server.registerPrompt("review", { description: "Review a topic", argsSchema: { topic: z.string() } }, ({ topic }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Please review ${topic} carefully (from ${name}).` } }],
  }));
  return server;
}

if (import.meta.main) {
  if (process.env.MCP_CRASH === "1") {
    process.stderr.write("fatal: the test server was told to crash\n");
    process.exit(3);
  }
  note(`start ${process.pid}`);
  if (process.env.MCP_LINGER === "1") {
    setInterval(() => {}, 60_000);
    // Not even a write to a closed stdout ends it.
    process.on("SIGPIPE", () => {});
    process.stdout.on("error", () => {});
    process.stdin.on("end", () => note(`stdin closed ${process.pid}`));
  }
  const server = createTestServer();
  await server.connect(new StdioServerTransport());
}
