/**
 * How a tool call looks to an ACP client: its title, its `kind` (read, edit,
 * execute, search, other), the files it touches (`locations`), and the content
 * shown for it — a diff for edit and write, the result's text otherwise. Pure:
 * tool name and arguments in, ACP shapes out.
 */
import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import type { ImageContent, TextContent } from "../../ai/types.ts";

const KINDS: Record<string, ToolKind> = {
  read: "read",
  edit: "edit",
  write: "edit",
  bash: "execute",
  grep: "search",
  find: "search",
  ls: "search",
};

/** Tools that only look: allowed in plan mode, never asked about. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(["read", "grep", "find", "ls"]);
/** Built-in tools that change files or run commands: asked about in default mode. */
export const CHANGING_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "bash"]);
/** The changing tools acceptEdits mode lets through without asking. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(["edit", "write"]);

type Args = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

export function toolKind(toolName: string): ToolKind {
  return KINDS[toolName] ?? "other";
}

function absolute(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function oneLine(value: string, max = 80): string {
  const line = value.split("\n")[0];
  return line.length > max || value.includes("\n") ? `${line.slice(0, max)}…` : line;
}

export function toolTitle(toolName: string, args: Args): string {
  const path = text(args.path);
  switch (toolName) {
    case "read": {
      const offset = typeof args.offset === "number" ? ` (from line ${args.offset})` : "";
      return `Read ${path ?? "file"}${offset}`;
    }
    case "edit":
      return `Edit ${path ?? "file"}`;
    case "write":
      return `Write ${path ?? "file"}`;
    case "bash":
      return text(args.command) ? `Run \`${oneLine(args.command as string)}\`` : "Run a command";
    case "grep":
      return `Search for "${oneLine(text(args.pattern) ?? "")}"${path ? ` in ${path}` : ""}`;
    case "find":
      return `Find ${text(args.pattern) ?? "files"}${path ? ` in ${path}` : ""}`;
    case "ls":
      return `List ${path ?? "."}`;
    default:
      return toolName;
  }
}

export function toolLocations(toolName: string, args: Args, cwd: string): ToolCallLocation[] {
  const path = text(args.path);
  if (toolName === "read" && path) return [{ path: absolute(cwd, path), ...(typeof args.offset === "number" ? { line: args.offset } : {}) }];
  if ((toolName === "edit" || toolName === "write") && path) return [{ path: absolute(cwd, path) }];
  if (toolName === "grep" || toolName === "find" || toolName === "ls") return [{ path: absolute(cwd, path ?? ".") }];
  return [];
}

/** The file an edit or write changes, absolute; undefined for other tools. */
export function changedFile(toolName: string, args: Args, cwd: string): string | undefined {
  const path = text(args.path);
  return (toolName === "edit" || toolName === "write") && path ? absolute(cwd, path) : undefined;
}

/**
 * Diff content of an edit or write. With the whole file before and after (read around
 * the call) the client shows a real diff; without, each replacement of an edit stands
 * alone, and a write shows its new content.
 */
export function diffContent(toolName: string, args: Args, cwd: string, whole?: { oldText: string | null; newText: string }): ToolCallContent[] {
  const path = changedFile(toolName, args, cwd);
  if (!path) return [];
  if (whole) return [{ type: "diff", path, oldText: whole.oldText, newText: whole.newText }];
  if (toolName === "write") return typeof args.content === "string" ? [{ type: "diff", path, oldText: null, newText: args.content }] : [];
  const edits = Array.isArray(args.edits) ? args.edits : [];
  return edits.flatMap((edit): ToolCallContent[] => {
    const { oldText, newText } = (edit ?? {}) as { oldText?: unknown; newText?: unknown };
    return typeof oldText === "string" && typeof newText === "string" ? [{ type: "diff", path, oldText, newText }] : [];
  });
}

/** A tool result's blocks as ACP content: text and images. */
export function resultContent(blocks: readonly (TextContent | ImageContent)[] | undefined): ToolCallContent[] {
  return (blocks ?? []).flatMap((block): ToolCallContent[] => {
    if (block.type === "text") return block.text ? [{ type: "content", content: { type: "text", text: block.text } }] : [];
    if (block.type === "image") return [{ type: "content", content: { type: "image", data: block.data, mimeType: block.mimeType } }];
    return [];
  });
}
