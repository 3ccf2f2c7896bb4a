/**
 * The session's todos as an ACP `plan`: every task of every phase, in order,
 * with its status. Todos come from `_xcsh/set_todos` (RPC's set_todos, as an
 * ACP extension method) or from an extension's todo tool — a tool whose name
 * starts with "todo" and whose arguments or details carry `todos` (a list of
 * tasks) or `phases` (set_todos's shape).
 */
import type { PlanEntry } from "@agentclientprotocol/sdk";
import { normalizeTodoPhases, type TodoPhase } from "../../core/todos.ts";

export function planEntries(phases: readonly TodoPhase[]): PlanEntry[] {
  return phases.flatMap((phase) =>
    phase.tasks.map((task): PlanEntry => ({
      content: phases.length > 1 ? `${phase.name}: ${task.content}` : task.content,
      priority: "medium",
      status: task.status,
    })),
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A todo list in `todos` (tasks, as strings or {content|text|title, status}) or `phases`; undefined if none. */
function phasesIn(value: unknown): TodoPhase[] | undefined {
  if (!isRecord(value)) return undefined;
  if (Array.isArray(value.phases)) {
    const normalized = normalizeTodoPhases(value.phases);
    return "phases" in normalized ? normalized.phases : undefined;
  }
  if (Array.isArray(value.todos)) {
    const tasks = value.todos.map((todo) => {
      if (!isRecord(todo)) return todo;
      return { ...todo, content: todo.content ?? todo.text ?? todo.title ?? todo.description };
    });
    const normalized = normalizeTodoPhases([{ name: "Todos", tasks }]);
    return "phases" in normalized ? normalized.phases : undefined;
  }
  return undefined;
}

/** The todo list an extension's todo tool left in its result details (or, failing that, its arguments). */
export function todoPhasesFromTool(toolName: string, result: unknown, args?: unknown): TodoPhase[] | undefined {
  if (!/^todo/i.test(toolName)) return undefined;
  return phasesIn(isRecord(result) ? result.details : undefined) ?? phasesIn(args);
}
