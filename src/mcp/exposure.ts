/**
 * How an MCP server's tools reach the model (pi 1.6.0's `exposure` and `toolExposure`):
 * `direct` tools are declared like built-ins; `codemode` (alias `codemode-deferred`) tools
 * are called from codemode scripts and found with `searchTools()`; `deferred` tools are
 * found with `tool_search`, which declares them from the next model call on; `hidden`
 * tools are unreachable. A server's default is `codemode`: a large server then costs
 * the model nothing until a tool is wanted. Pure: decisions only.
 */
import type { McpExposure } from "./config-schema.ts";

/** The exposure a tool ends up with (the alias resolved). */
export type ToolExposure = "direct" | "codemode" | "deferred" | "hidden";

export const DEFAULT_EXPOSURE: ToolExposure = "codemode";

export interface ExposureRules {
  exposure?: McpExposure;
  toolExposure?: Record<string, McpExposure>;
}

/** `*` matches any run of characters; everything else is literal. */
function patternMatches(pattern: string, name: string): boolean {
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`).test(name);
}

function resolved(exposure: McpExposure): ToolExposure {
  return exposure === "codemode-deferred" ? "codemode" : exposure;
}

/** An exact server tool name wins; then the first pattern (in the file's order) that matches; then the server's exposure. */
export function exposureOf(rules: ExposureRules, toolName: string): ToolExposure {
  const perTool = rules.toolExposure ?? {};
  const exact = perTool[toolName];
  if (exact !== undefined) return resolved(exact);
  for (const [pattern, exposure] of Object.entries(perTool)) {
    if (pattern.includes("*") && patternMatches(pattern, toolName)) return resolved(exposure);
  }
  return resolved(rules.exposure ?? DEFAULT_EXPOSURE);
}

/** Whether some tool of the server may be direct: the first prompt waits only for such servers. */
export function mayHaveDirectTools(rules: ExposureRules): boolean {
  if (resolved(rules.exposure ?? DEFAULT_EXPOSURE) === "direct") return true;
  return Object.values(rules.toolExposure ?? {}).some((exposure) => exposure === "direct");
}

/** The indirect exposures a server's tools may have: codemode and tool_search are switched on for them before it connects. */
export function indirectExposures(rules: ExposureRules): ("codemode" | "deferred")[] {
  const all = [resolved(rules.exposure ?? DEFAULT_EXPOSURE), ...Object.values(rules.toolExposure ?? {}).map(resolved)];
  return (["codemode", "deferred"] as const).filter((kind) => all.includes(kind));
}
