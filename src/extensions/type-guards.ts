/**
 * Narrowing helpers extensions import from `xcsh` (as pi's do from its package):
 * `isToolCallEventType("bash", event)` types `event.input` as the bash tool's
 * input, `isBashToolResult(event)` types `event.details`. They only compare the
 * tool name; the runner has already validated the arguments.
 */
import type { BashToolDetails, BashToolInput } from "../tools/bash.ts";
import type { EditToolDetails, EditToolInput } from "../tools/edit.ts";
import type { FindToolDetails, FindToolInput } from "../tools/find.ts";
import type { GrepToolDetails, GrepToolInput } from "../tools/grep.ts";
import type { LsToolDetails, LsToolInput } from "../tools/ls.ts";
import type { ReadToolDetails, ReadToolInput } from "../tools/read.ts";
import type { WriteToolDetails, WriteToolInput } from "../tools/write.ts";
import type { ToolCallEvent, ToolResultEvent } from "./types.ts";

/** The input of each built-in tool, by name. */
export interface BuiltinToolInputs {
  bash: BashToolInput;
  read: ReadToolInput;
  edit: EditToolInput;
  write: WriteToolInput;
  grep: GrepToolInput;
  find: FindToolInput;
  ls: LsToolInput;
}

export type BashToolCallEvent = ToolCallEvent<"bash", BashToolInput>;
export type ReadToolCallEvent = ToolCallEvent<"read", ReadToolInput>;
export type EditToolCallEvent = ToolCallEvent<"edit", EditToolInput>;
export type WriteToolCallEvent = ToolCallEvent<"write", WriteToolInput>;
export type GrepToolCallEvent = ToolCallEvent<"grep", GrepToolInput>;
export type FindToolCallEvent = ToolCallEvent<"find", FindToolInput>;
export type LsToolCallEvent = ToolCallEvent<"ls", LsToolInput>;

export type BashToolResultEvent = ToolResultEvent<"bash", BashToolDetails | undefined>;
export type ReadToolResultEvent = ToolResultEvent<"read", ReadToolDetails | undefined>;
export type EditToolResultEvent = ToolResultEvent<"edit", EditToolDetails | undefined>;
export type WriteToolResultEvent = ToolResultEvent<"write", WriteToolDetails | undefined>;
export type GrepToolResultEvent = ToolResultEvent<"grep", GrepToolDetails | undefined>;
export type FindToolResultEvent = ToolResultEvent<"find", FindToolDetails | undefined>;
export type LsToolResultEvent = ToolResultEvent<"ls", LsToolDetails | undefined>;

/**
 * True when `event` calls the tool `toolName`. For a built-in tool the input is
 * typed from its schema; for any other tool pass the input type yourself:
 * `isToolCallEventType<"my_tool", MyInput>("my_tool", event)`.
 */
export function isToolCallEventType<TName extends keyof BuiltinToolInputs>(
  toolName: TName,
  event: ToolCallEvent,
): event is ToolCallEvent<TName, BuiltinToolInputs[TName]>;
export function isToolCallEventType<TName extends string, TInput extends Record<string, unknown>>(
  toolName: TName,
  event: ToolCallEvent,
): event is ToolCallEvent<TName, TInput>;
export function isToolCallEventType(toolName: string, event: ToolCallEvent): boolean {
  return event.toolName === toolName;
}

export const isBashToolResult = (event: ToolResultEvent): event is BashToolResultEvent => event.toolName === "bash";
export const isReadToolResult = (event: ToolResultEvent): event is ReadToolResultEvent => event.toolName === "read";
export const isEditToolResult = (event: ToolResultEvent): event is EditToolResultEvent => event.toolName === "edit";
export const isWriteToolResult = (event: ToolResultEvent): event is WriteToolResultEvent => event.toolName === "write";
export const isGrepToolResult = (event: ToolResultEvent): event is GrepToolResultEvent => event.toolName === "grep";
export const isFindToolResult = (event: ToolResultEvent): event is FindToolResultEvent => event.toolName === "find";
export const isLsToolResult = (event: ToolResultEvent): event is LsToolResultEvent => event.toolName === "ls";
