/**
 * The session's todo plan (seed 001, set_todos): phases of tasks that a host
 * may set before the first prompt. Input is normalized so hosts can be terse:
 * missing ids are numbered, unknown statuses become "pending".
 */

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface TodoTask {
  id: string;
  content: string;
  status: TodoStatus;
}

export interface TodoPhase {
  id: string;
  name: string;
  tasks: TodoTask[];
}

const STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];

function normalizeStatus(value: unknown): TodoStatus {
  if (typeof value !== "string") return "pending";
  const lowered = value.trim().toLowerCase().replace(/[\s-]+/g, "_");
  if (lowered === "done" || lowered === "complete") return "completed";
  if (lowered === "active" || lowered === "doing") return "in_progress";
  return (STATUSES as readonly string[]).includes(lowered) ? (lowered as TodoStatus) : "pending";
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/** Normalized phases, or an error message saying what is wrong with the input. */
export function normalizeTodoPhases(input: unknown): { phases: TodoPhase[] } | { error: string } {
  if (!Array.isArray(input)) return { error: "phases must be an array of {id?, name, tasks: [{id?, content, status?}]}" };
  let taskNumber = 0;
  const phases: TodoPhase[] = [];
  for (const [phaseIndex, rawPhase] of input.entries()) {
    const phase = asRecord(rawPhase);
    const tasksInput = phase.tasks ?? [];
    if (!Array.isArray(tasksInput)) return { error: `phases[${phaseIndex}].tasks must be an array` };
    const tasks: TodoTask[] = [];
    for (const [taskIndex, rawTask] of tasksInput.entries()) {
      const task = typeof rawTask === "string" ? { content: rawTask } : asRecord(rawTask);
      taskNumber++;
      if (typeof task.content !== "string" || !task.content.trim()) {
        return { error: `phases[${phaseIndex}].tasks[${taskIndex}].content must be a non-empty string` };
      }
      tasks.push({
        id: typeof task.id === "string" && task.id ? task.id : `task-${taskNumber}`,
        content: task.content.trim(),
        status: normalizeStatus(task.status),
      });
    }
    phases.push({
      id: typeof phase.id === "string" && phase.id ? phase.id : `phase-${phaseIndex + 1}`,
      name: typeof phase.name === "string" && phase.name.trim() ? phase.name.trim() : "Todos",
      tasks,
    });
  }
  return { phases };
}

/** The plan a session holds (in memory only); whoever shows it (ACP's plan updates) listens for changes. */
export class TodoPlan {
  private current: TodoPhase[] = [];
  private readonly listeners = new Set<(phases: TodoPhase[]) => void>();

  get phases(): TodoPhase[] {
    return this.current;
  }

  set phases(phases: TodoPhase[]) {
    this.current = phases;
    for (const listener of [...this.listeners]) listener(phases);
  }

  onChange(listener: (phases: TodoPhase[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
