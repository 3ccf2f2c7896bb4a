/**
 * Session modes and tool permissions. Before a tool that changes things runs,
 * the session's mode decides: run it, refuse it, or ask the client with
 * `session/request_permission` (allow once / allow always / reject once /
 * reject always). An "always" answer is remembered per tool for the session.
 * The decision is pure (`decide`); asking is the caller's effect.
 */
import type { PermissionOption, SessionMode } from "@agentclientprotocol/sdk";
import { CHANGING_TOOLS, EDIT_TOOLS } from "./tool-calls.ts";

export type AcpModeId = "default" | "acceptEdits" | "plan" | "bypass";

export const SESSION_MODES: (SessionMode & { id: AcpModeId })[] = [
  { id: "default", name: "Default", description: "Ask before edits, writes and commands" },
  { id: "acceptEdits", name: "Accept edits", description: "Edit and write files without asking; ask before commands" },
  { id: "plan", name: "Plan", description: "Read-only: only read, grep, find and ls run" },
  { id: "bypass", name: "Bypass permissions", description: "Never ask" },
];

export function isModeId(value: string): value is AcpModeId {
  return SESSION_MODES.some((mode) => mode.id === value);
}

export type Verdict = { action: "allow" } | { action: "ask" } | { action: "deny"; reason: string };

export interface ToolMemory {
  /** Tools answered "allow always" in this session. */
  allowed: ReadonlySet<string>;
  /** Tools answered "reject always" in this session. */
  rejected: ReadonlySet<string>;
}

/**
 * What the mode and the remembered answers say about running `toolName`. Edit, write
 * and bash change things; an extension tool does when it says so (`changesState`).
 */
export function decide(mode: AcpModeId, toolName: string, memory: ToolMemory, marked = false): Verdict {
  const changing = CHANGING_TOOLS.has(toolName) || marked;
  if (mode === "bypass") return { action: "allow" };
  if (mode === "plan") {
    return changing
      ? { action: "deny", reason: `The session is in plan mode: only read-only tools run, so "${toolName}" was not run. Describe the change instead; the user can switch mode to apply it.` }
      : { action: "allow" };
  }
  if (!changing) return { action: "allow" };
  if (memory.rejected.has(toolName)) return { action: "deny", reason: `The user rejected every "${toolName}" call in this session; it was not run.` };
  if (memory.allowed.has(toolName)) return { action: "allow" };
  if (mode === "acceptEdits" && EDIT_TOOLS.has(toolName)) return { action: "allow" };
  return { action: "ask" };
}

export function permissionOptions(toolName: string): PermissionOption[] {
  return [
    { optionId: "allow_once", name: "Allow", kind: "allow_once" },
    { optionId: "allow_always", name: `Always allow ${toolName}`, kind: "allow_always" },
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    { optionId: "reject_always", name: `Always reject ${toolName}`, kind: "reject_always" },
  ];
}

export type PermissionAnswer = "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";

/** The client's outcome as one of ours; an option id we never offered counts as a rejection. */
export function answerOf(outcome: { outcome: string; optionId?: string }): PermissionAnswer {
  if (outcome.outcome !== "selected") return "cancelled";
  const id = outcome.optionId;
  return id === "allow_once" || id === "allow_always" || id === "reject_always" ? id : "reject_once";
}
