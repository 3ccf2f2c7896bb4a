/**
 * The `tool_search` tool: finds tools that are not declared to the model (MCP tools of
 * `codemode` or `deferred` exposure) by their names, descriptions and their server's
 * description, and declares the ones it found from the model's next call on. It is off
 * until a deferred MCP tool arrives (or the command line or settings name it). Its
 * description never lists the tools, so it stays the same as servers connect and the
 * provider's prompt cache keeps. The ranking is codemode's `searchTools()` (BM25).
 */
import type { AgentTool } from "../agent/types.ts";
import { searchCatalog } from "../codemode/search.ts";
import { Type } from "../schema/type.ts";
import type { CodingTool } from "../tools/types.ts";

export const TOOL_SEARCH_NAME = "tool_search";
const DEFAULT_LIMIT = 5;

/** What the tool needs of the session's tool set (src/core/tool-set.ts). */
export interface ToolSearchHost {
  /** Waits for MCP servers still connecting, each for at most its startup timeout. */
  waitForAllServers(): Promise<void>;
  /** The tools it may find, loaded or not. */
  searchable(): { tool: AgentTool<any>; searchText?: string }[];
  /** Whether a tool is declared to the model already. */
  isDeclared(name: string): boolean;
  /** Declares the tools from the next model call on; returns those it declared. */
  load(names: readonly string[]): string[];
}

const schema = Type.Object({
  query: Type.String({ description: "Words for the tools you need: what they do, or their names." }),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `How many tools to load at most (default ${DEFAULT_LIMIT}).` })),
});

const DESCRIPTION = [
  "Finds tools that are not declared to you yet, such as the tools of MCP servers, and declares the ones found: you can call them from your next message on.",
  "Search here before you conclude that no tool exists for a task.",
].join("\n");

export function createToolSearchTool(host: ToolSearchHost): CodingTool<typeof schema> {
  return {
    name: TOOL_SEARCH_NAME,
    label: "tool search",
    description: DESCRIPTION,
    promptSnippet: "Find and load tools that are not declared yet (MCP servers' tools)",
    parameters: schema,
    async execute(_toolCallId, params) {
      const query = params.query.trim();
      if (query === "") throw new Error("query is empty: say what the tool should do");
      await host.waitForAllServers();
      const candidates = host.searchable().filter(({ tool }) => !host.isDeclared(tool.name));
      const catalog = candidates.map(({ tool, searchText }) => ({
        name: tool.name,
        identifier: tool.name,
        description: `${tool.description}${searchText ? `\n${searchText}` : ""}`,
      }));
      const found = searchCatalog(catalog, query, params.limit ?? DEFAULT_LIMIT);
      const loaded = host.load(found.map((entry) => entry.name));
      if (loaded.length === 0) return { content: [{ type: "text", text: "No tool found for that query." }], details: { loaded } };
      const lines = loaded.map((name) => {
        const tool = candidates.find((candidate) => candidate.tool.name === name)!.tool;
        return `- ${name}: ${tool.description.trim().split("\n")[0]}`;
      });
      const text = `${loaded.length} tool${loaded.length === 1 ? " is" : "s are"} now declared; call ${loaded.length === 1 ? "it" : "them"} from your next message:\n${lines.join("\n")}`;
      return { content: [{ type: "text", text }], details: { loaded } };
    },
  };
}
