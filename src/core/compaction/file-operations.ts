/**
 * Which files the summarized part of the conversation read and changed. The
 * lists ride along in the compaction entry's `details` and are merged into the
 * next compaction's, so a long session never forgets a file it touched.
 */
import type { AgentMessage } from "../../agent/types.ts";

/** Paths seen in tool calls, by what the tool did with them. */
export interface FileOperations {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

/** The default `details` of a compaction entry. */
export interface CompactionDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

export function createFileOperations(): FileOperations {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/** Tools whose path argument names a file they read, wrote or edited. */
const OPERATION_OF_TOOL: Record<string, keyof FileOperations> = {
  read: "read",
  write: "written",
  edit: "edited",
};

function pathArgument(args: Record<string, unknown> | undefined): string | undefined {
  // `file_path` is how older sessions spelled it.
  const value = args?.path ?? args?.file_path;
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * Adds the file operations of `messages` to `into`. A call whose result was an
 * error (file not found, edit did not match) touched nothing and is skipped.
 * grep/find/ls are left out: their paths are mostly directories, which would
 * only crowd the list of files the model actually looked at.
 */
export function extractFileOperations(messages: AgentMessage[], into: FileOperations = createFileOperations()): FileOperations {
  const failedCalls = new Set<string>();
  for (const message of messages) {
    if (message.role === "toolResult" && message.isError) failedCalls.add(message.toolCallId);
  }
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type !== "toolCall" || failedCalls.has(block.id)) continue;
      const operation = OPERATION_OF_TOOL[block.name];
      const path = pathArgument(block.arguments);
      if (operation && path) into[operation].add(path);
    }
  }
  return into;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * Adds the lists of an earlier compaction's `details` to `into`. Details an
 * extension shaped differently are ignored.
 */
export function mergeCompactionDetails(into: FileOperations, details: unknown): FileOperations {
  if (!details || typeof details !== "object") return into;
  const { readFiles, modifiedFiles } = details as Partial<Record<keyof CompactionDetails, unknown>>;
  if (isStringArray(readFiles)) for (const path of readFiles) into.read.add(path);
  // The earlier entry no longer says whether a file was written or edited; either counts as modified.
  if (isStringArray(modifiedFiles)) for (const path of modifiedFiles) into.edited.add(path);
  return into;
}

/** Sorted lists for `details`; a file both read and modified is listed as modified only. */
export function computeFileLists(fileOps: FileOperations): CompactionDetails {
  const modified = new Set([...fileOps.written, ...fileOps.edited]);
  const readFiles = [...fileOps.read].filter((path) => !modified.has(path)).sort();
  return { readFiles, modifiedFiles: [...modified].sort() };
}

/** The file lists as tagged blocks appended to a summary (empty lists are left out). */
export function formatFileOperations(lists: CompactionDetails): string {
  const blocks: string[] = [];
  if (lists.readFiles.length > 0) blocks.push(`<read-files>\n${lists.readFiles.join("\n")}\n</read-files>`);
  if (lists.modifiedFiles.length > 0) blocks.push(`<modified-files>\n${lists.modifiedFiles.join("\n")}\n</modified-files>`);
  return blocks.join("\n\n");
}

/** A summary without its file-list blocks (they are rebuilt from `details` each time). */
export function stripFileOperations(summary: string): string {
  return summary
    .replace(/<read-files>[\s\S]*?<\/read-files>/g, "")
    .replace(/<modified-files>[\s\S]*?<\/modified-files>/g, "")
    .trimEnd();
}
