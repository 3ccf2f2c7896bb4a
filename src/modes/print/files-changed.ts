/**
 * The files a headless run changed, for the result envelope: the paths of edit
 * and write tool calls that succeeded, and — in a git work tree — the files a
 * bash command changed, seen by comparing the work tree's files before the run's
 * first bash command with the files at the end (work-tree-changes.ts; git is not run).
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { AgentSession } from "../../core/agent-session.ts";
import { WorkTreeChanges } from "./work-tree-changes.ts";

const CHANGING_TOOLS = new Set(["edit", "write"]);

export function trackFilesChanged(session: AgentSession): () => Promise<string[]> {
  const pending = new Map<string, string>();
  const changed = new Set<string>();
  let workTree: Promise<WorkTreeChanges | undefined> | undefined;
  session.subscribe(async (event) => {
    if (event.type === "tool_execution_start" && event.toolName === "bash" && !workTree) {
      // Before the command runs: the listener is awaited before the tool starts.
      workTree = WorkTreeChanges.snapshot(session.cwd);
      await workTree;
    }
    if (event.type === "tool_execution_start" && CHANGING_TOOLS.has(event.toolName)) {
      const path = (event.args as { path?: unknown } | undefined)?.path;
      if (typeof path === "string" && path) pending.set(event.toolCallId, path);
    } else if (event.type === "tool_execution_end") {
      const path = pending.get(event.toolCallId);
      pending.delete(event.toolCallId);
      if (path === undefined || event.isError) return;
      const absolute = resolve(session.cwd, path);
      const inside = relative(session.cwd, absolute);
      changed.add(inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : absolute);
    }
  });
  return async () => {
    const tree = await workTree;
    for (const path of (await tree?.changedSince()) ?? []) changed.add(path);
    return [...changed];
  };
}
