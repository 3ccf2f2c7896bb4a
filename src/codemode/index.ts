/**
 * Codemode: the `codemode` tool, whose input is a JavaScript script that calls
 * the session's other tools (pi 1.6.0's contract: `tools.<name>(args)`, `text()`,
 * `console.*`, `// @options:` …). This is the folder's one entry: the tool's
 * name, schema and description, which are cheap. Running a script imports
 * run-script.ts (and through it the QuickJS worker) on first use, so a session
 * that never runs one loads nothing more. Every call a script makes goes to
 * `host.runNestedCall`, which is core's own tool-call path (hooks, permissions,
 * sandbox, events) — codemode has no path of its own to any tool.
 */
import type { AgentToolResult, AgentToolUpdateCallback } from "../agent/types.ts";
import type { ToolCallOutcome } from "../agent/tool-execution.ts";
import type { ToolCall } from "../ai/types.ts";
import { Type } from "../schema/type.ts";
import type { CodingTool } from "../tools/types.ts";
import { describeCallable, type CallableTool } from "./declarations.ts";
import type { ModelsSource } from "./models-global.ts";

export const CODEMODE_TOOL_NAME = "codemode";

/** `on`: codemode beside the declared tools; `only`: the other tools are hidden from the model and reached through scripts. */
export type CodemodeMode = "on" | "only";

/** What the tool needs of the session; core provides it. */
export interface CodemodeHost {
  /** The tools a script may call now (the session's active ones, codemode excepted). */
  callableTools(): CallableTool[];
  /** Whether a tool is declared to the model as well (then the description need not list it). */
  isDeclared(name: string): boolean;
  mode(): CodemodeMode;
  /** Estimated tokens (characters / 4) the description may spend on tool declarations (settings' `codemode.inlineBudget`). */
  inlineBudget(): number;
  /** Waits for what scripts may reach that is still arriving (MCP servers connecting); resolves, never throws. */
  prepare?(): Promise<void>;
  /** Runs one call of a script through core's tool path; never throws. */
  runNestedCall(call: ToolCall, parentToolCallId: string, signal: AbortSignal): Promise<ToolCallOutcome>;
  /** The values `store()` kept on this branch of the session. */
  loadStore(): Record<string, unknown>;
  /** Keeps the values a successful script stored (a `codemode-store` session entry). */
  saveStore(changes: Record<string, unknown>): void;
  /** The model registry, for the `models` global (models-global.ts); absent: `models` answers that it is not available. */
  models?(): ModelsSource | undefined;
}

const codemodeSchema = Type.Object({
  code: Type.String({ description: "JavaScript source, as is: no JSON wrapping, no markdown fence." }),
});

const PREAMBLE = [
  "Runs a JavaScript script that calls the other tools, and returns only what the script outputs. The input is plain JavaScript source (not JSON, not in a code fence), executed as the body of an async function in a QuickJS sandbox, so top-level `await` and `return` work. There is no Node API, file system, network or timer inside: tools are the only way out.",
  "- `await tools.<name>({ ...args })` calls a tool. It resolves to the tool's text (bash: `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`; read of an image: an image block; an MCP tool: its CallToolResult `{ content, structuredContent?, isError }`) and rejects with an Error carrying the tool's error text. Use `Promise.all` / `Promise.allSettled` to run calls in parallel. Calls still running when the script ends are cancelled.",
  '- An optional first line sets limits: `// @options: {"max_output_tokens": 10000, "timeout_ms": 60000}`',
  "",
  "Globals:",
  "- `text(value)`, `image(dataUrlOrImageBlock)`, `console.log(...)` and a top-level `return` add output; `exit()` ends the script successfully. Several text items are each headed `==> text N/M <==`; console lines come last, in one `<console_output>` block.",
  "- `store(key, value)` / `load(key)` keep small JSON values for later codemode calls.",
  '- `models`: `await models.getAvailableOfType("classifier" | "image")` lists models scripts can run; `await models.classify(model, { state, questions })` and `await models.generateImages(model, { input })` run them (failures: `stopReason: "error"`). Chat models cannot run here.',
  "- `ALL_TOOLS`, `await searchTools(query, { limit?, namespace? })`, `await describeTool(name)`, `await describeNamespace(name)`: find tools and their declarations (a namespace groups tools: an MCP server's, or an extension's).",
].join("\n");

export const DEFAULT_INLINE_BUDGET = 3000;

function description(host: CodemodeHost): string {
  // `on`: the declared tools are the model's already; `only`: they are listed here, declarations and all.
  // Indirect MCP tools are never listed: the description then stays the same as servers connect.
  const listed = host.callableTools().filter((tool) => !tool.unlisted && (host.mode() === "only" || !host.isDeclared(tool.name)));
  if (listed.length === 0) return PREAMBLE;
  const { sections, left } = listTools(listed, host.inlineBudget() * 4);
  const more = left > 0 ? `\n\n${left} more tool${left === 1 ? " is" : "s are"} callable but not listed here: find ${left === 1 ? "it" : "them"} with searchTools() or ALL_TOOLS.` : "";
  return `${PREAMBLE}${sections.length > 0 ? `\n\nTools for scripts:\n\n${sections.join("\n\n")}` : ""}${more}`;
}

/**
 * The tools' sections within a budget of characters, grouped as pi 1.6.0 groups them:
 * tools of no namespace first, one by one; then each namespace, by name, under a
 * `## <name>` heading with its description, all of its tools or none. A namespace past
 * the budget still shows its heading and description, marked "(tools not listed)", so
 * the model knows to look inside it with describeNamespace() or searchTools().
 */
function listTools(tools: CallableTool[], budget: number): { sections: string[]; left: number } {
  const sections: string[] = [];
  let left = 0;
  const section = (tool: CallableTool) => `### \`${tool.name}\`\n${describeCallable(tool)}`;
  for (const tool of tools.filter((candidate) => !candidate.namespace)) {
    const text = section(tool);
    if (text.length > budget) left++;
    else {
      budget -= text.length;
      sections.push(text);
    }
  }
  const groups = new Map<string, CallableTool[]>();
  for (const tool of tools) if (tool.namespace) groups.set(tool.namespace.name, [...(groups.get(tool.namespace.name) ?? []), tool]);
  for (const name of [...groups.keys()].sort()) {
    const members = groups.get(name)!;
    const about = members[0]!.namespace!.description;
    const body = members.map(section).join("\n\n");
    const heading = `## ${name}${about ? `\n${about}` : ""}`;
    if (heading.length + body.length > budget) {
      left += members.length;
      sections.push(`## ${name} (tools not listed)${about ? `\n${about}` : ""}`);
      continue;
    }
    budget -= heading.length + body.length;
    sections.push(`${heading}\n\n${body}`);
  }
  return { sections, left };
}

/** The codemode tool of one session. Its description follows the session's tools as they change. */
export function createCodemodeTool(host: CodemodeHost): CodingTool<typeof codemodeSchema> {
  const tool: CodingTool<typeof codemodeSchema> = {
    name: CODEMODE_TOOL_NAME,
    label: "codemode",
    description: "",
    promptSnippet: "Run JavaScript that calls other tools",
    promptGuidelines: ["Use codemode to run independent tool calls together (Promise.allSettled), chain them, or filter large output before it reaches you, instead of many separate calls."],
    parameters: codemodeSchema,
    async execute(toolCallId: string, params: { code: string }, signal?: AbortSignal, onUpdate?: AgentToolUpdateCallback): Promise<AgentToolResult> {
      await host.prepare?.();
      const { runScript } = await import("./run-script.ts");
      return runScript({ host, toolCallId, code: params.code, signal, onUpdate });
    },
  };
  Object.defineProperty(tool, "description", { get: () => description(host), enumerable: true });
  return tool;
}

export type { CallableTool } from "./declarations.ts";
export { scriptResultNote } from "./declarations.ts";
