/**
 * pi 1.6.0's `reachesTools(input)` for xcsh's own tools that reach other tools: which tools
 * one call may reach. tool_search may load any tool ("all"). A codemode script reaches the
 * tools its words name, unless it searches or lists tools (searchTools, describeTool,
 * describeNamespace, ALL_TOOLS): then any. An extension reads these through getAllTools, for
 * example to finish registering late tools from its tool_call handler before the call runs.
 */
import { CODEMODE_TOOL_NAME } from "../codemode/index.ts";
import { TOOL_SEARCH_NAME } from "./tool-search.ts";

type Reach = "all" | readonly string[];

/** Script globals through which a script finds tools it does not name. */
const FINDS_TOOLS = /\b(?:searchTools|describeTool|describeNamespace|ALL_TOOLS)\b/;

function codemodeReach(input: Record<string, unknown>): Reach {
  const code = typeof input.code === "string" ? input.code : "";
  if (FINDS_TOOLS.test(code)) return "all";
  // Identifier-like words: `tools.mcp__docs__search(…)` names the tool, `tools["my-tool"]` its name.
  return [...new Set(code.match(/[A-Za-z_$][\w$-]*/g) ?? [])];
}

const toolSearchReach = (): Reach => "all";

/** The reachesTools of a built-in tool, when it reaches others. */
export function builtinReach(name: string): ((input: Record<string, unknown>) => Reach) | undefined {
  if (name === CODEMODE_TOOL_NAME) return codemodeReach;
  if (name === TOOL_SEARCH_NAME) return toolSearchReach;
  return undefined;
}
