/**
 * Turns an extension's tool definition into a tool the agent loop runs: the
 * same name, schema and argument shim, with `execute` given the extension
 * context as its fifth argument. A result without `details` gets undefined,
 * a plain string becomes text; anything else is an error the model can read —
 * a throw from `execute` is already an error result in the loop.
 */
import type { AgentTool, AgentToolResult } from "../agent/types.ts";
import { addUsage } from "../ai/usage.ts";
import { isUsage } from "../session/entry-shapes.ts";
import type { ExtensionHost } from "./host.ts";
import { NestedCallLog, toolExecutionContext, type NestedToolRunner } from "./nested-calls.ts";
import type { LoadedExtension } from "./runner.ts";
import type { ExtensionContext, ToolDefinition } from "./types.ts";

/** Puts an extension's tool into the session (or replaces the one of that name), as the agent runs it. */
export const TOOL_EXPOSURES: readonly string[] = ["direct", "model-only", "codemode", "deferred", "hidden"];

export function registerExtensionTool(
  host: ExtensionHost,
  extension: LoadedExtension,
  definition: ToolDefinition<any>,
  context: () => ExtensionContext,
): void {
  const exposure = definition.exposure ?? "direct";
  host.upsertTool(adaptTool(definition, context, host), {
    sourceInfo: extension.sourceInfo,
    promptSnippet: definition.promptSnippet,
    promptGuidelines: definition.promptGuidelines,
    ...(exposure === "direct" ? {} : { exposure }),
    ...(definition.namespace ? { namespace: definition.namespace } : {}),
    ...(definition.annotations ? { annotations: definition.annotations } : {}),
    ...(typeof definition.reachesTools === "function" ? { reachesTools: definition.reachesTools } : {}),
    ...(typeof definition.prepareLoadout === "function" ? { prepareLoadout: definition.prepareLoadout } : {}),
    // Only direct and model-only tools become active when registered (pi 1.x), and not with defaultActive: false.
    activate: (exposure === "direct" || exposure === "model-only") && definition.defaultActive !== false,
  });
}

export function adaptTool(definition: ToolDefinition<any>, context: () => ExtensionContext, runner?: NestedToolRunner): AgentTool<any> {
  return {
    name: definition.name,
    label: definition.label ?? definition.name,
    description: definition.description ?? "",
    // A tool without a schema takes no arguments (providers need an object schema).
    parameters: isObjectSchema(definition.parameters) ? definition.parameters : ({ type: "object", properties: {} } as never),
    ...(definition.prepareArguments ? { prepareArguments: definition.prepareArguments } : {}),
    ...(definition.executionMode ? { executionMode: definition.executionMode } : {}),
    ...(definition.changesState === true ? { changesState: true } : {}),
    async execute(toolCallId, params, signal, onUpdate) {
      const update = onUpdate ? (partial: unknown) => onUpdate(normalizeResult(definition.name, partial)) : undefined;
      // Each execution gets its own ctx.executeTool, whose calls are recorded on this result.
      const log = new NestedCallLog();
      const ctx = runner ? toolExecutionContext(context(), runner, toolCallId, signal, log) : context();
      let result: unknown;
      try {
        result = await definition.execute(toolCallId, params, signal, update as never, ctx);
      } catch (error) {
        // The calls it made before failing stay on record with the failure, and so does what they used.
        const nestedCalls = log.record();
        const usage = log.usage();
        if (nestedCalls) return { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], details: undefined, isError: true, nestedCalls, ...(usage ? { usage } : {}) };
        throw error;
      }
      const normalized = normalizeResult(definition.name, result);
      const nestedCalls = log.record();
      // The tool reports its own model work; what the tools it called used is added (pi 1.x).
      const usage = addUsage(normalized.usage, log.usage());
      return { ...normalized, ...(nestedCalls ? { nestedCalls } : {}), ...(usage ? { usage } : {}) };
    },
  };
}

function isObjectSchema(schema: unknown): boolean {
  return typeof schema === "object" && schema !== null && !Array.isArray(schema);
}

function normalizeResult(toolName: string, result: unknown): AgentToolResult<any> {
  if (typeof result === "string") return { content: [{ type: "text", text: result }], details: undefined };
  if (typeof result !== "object" || result === null || !Array.isArray((result as { content?: unknown }).content)) {
    throw new Error(`Tool "${toolName}" returned no result content (expected { content: [...] })`);
  }
  const typed = result as AgentToolResult<any>;
  return {
    content: typed.content,
    details: typed.details,
    ...(typed.terminate ? { terminate: true } : {}),
    // pi 1.x: a returned failure keeps its details and structured result, unlike a throw.
    ...(typed.isError === true ? { isError: true } : {}),
    ...(typed.structuredContent === undefined ? {} : { structuredContent: typed.structuredContent }),
    // A malformed usage would poison the session's totals: only a whole one is kept.
    ...(isUsage(typed.usage) ? { usage: typed.usage } : {}),
  };
}
