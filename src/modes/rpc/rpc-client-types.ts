/**
 * The public types of RpcClient that are not protocol frames already defined
 * in rpc-types.ts: its options, its errors, the extension UI requests a host
 * may be asked to answer, and the shape of a host-implemented tool.
 */
import type { ImageContent, TextContent } from "../../ai/types.ts";
import type { TodoStatus } from "../../core/todos.ts";
import type { RpcCommand, RpcCommandType, RpcHostToolDefinition, RpcResponseData } from "./rpc-types.ts";

export interface RpcClientOptions {
  /** The program to run, before `--mode rpc`. Default ["xcsh"]; e.g. ["/path/dist/xcsh"] or ["bun", "src/cli/main.ts"]. */
  command?: string[];
  /** Extra CLI arguments after `--mode rpc`: --provider, --model, --no-session, … */
  args?: string[];
  cwd?: string;
  /** The child's whole environment (default: this process's). */
  env?: Record<string, string | undefined>;
}

/** The data a successful response to a command of type T carries (undefined when it carries none). */
export type RpcResultOf<T extends RpcCommandType> = T extends keyof RpcResponseData ? RpcResponseData[T] : undefined;

/** A command as the client sends it: the client assigns the id. */
export type RpcCommandInput = RpcCommand extends infer C ? (C extends unknown ? Omit<C, "id"> : never) : never;

/** The server answered a command with `success: false`. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    /** The command's type, as the server echoed it. */
    readonly command: string,
    /** The server's `error` text. */
    readonly error: string,
  ) {
    super(`${command} failed: ${error}`);
  }
}

/** The server process went away while the client was still waiting for it. */
export class RpcProcessExitedError extends Error {
  override readonly name = "RpcProcessExitedError";
  constructor(
    readonly exitCode: number | null,
    readonly signal: string | null,
    /** The last part of what the process wrote to stderr. */
    readonly stderrTail: string,
    waitingFor: string,
  ) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    super(`The xcsh RPC process ${how} before ${waitingFor}.${stderrTail ? `\nstderr:\n${stderrTail}` : " It wrote nothing to stderr."}`);
  }
}

/** How the process ended. */
export interface RpcExit {
  exitCode: number | null;
  signal: string | null;
}

/* ---------- Extension UI sub-protocol (seed 000) ---------- */

interface UiRequestBase {
  type: "extension_ui_request";
  id: string;
}

/** Dialogs block the extension until the host answers (or the server's timeout passes). */
export type RpcExtensionUiDialogRequest = UiRequestBase &
  (
    | { method: "select"; title: string; options: string[]; timeout?: number }
    | { method: "confirm"; title: string; message: string; timeout?: number }
    | { method: "input"; title: string; placeholder?: string; timeout?: number }
    | { method: "editor"; title: string; prefill?: string; timeout?: number }
  );

/** Fire-and-forget requests: the host shows them or ignores them; nothing is sent back. */
export type RpcExtensionUiNotice = UiRequestBase &
  (
    | { method: "notify"; message: string; notifyType?: "info" | "warning" | "error" }
    | { method: "setStatus"; statusKey: string; statusText?: string }
    | { method: "setWidget"; widgetKey: string; widgetLines?: string[]; widgetPlacement?: "aboveEditor" | "belowEditor" }
    | { method: "setTitle"; title: string }
    | { method: "set_editor_text"; text: string }
  );

export type RpcExtensionUiRequest = RpcExtensionUiDialogRequest | RpcExtensionUiNotice;

/**
 * The host's answer to a dialog: the chosen or typed text for select, input
 * and editor; true/false for confirm; undefined to cancel. Ignored for notices.
 */
export type ExtensionUiAnswer = string | boolean | undefined;

export type ExtensionUiHandler = (request: RpcExtensionUiRequest) => ExtensionUiAnswer | void | Promise<ExtensionUiAnswer | void>;

/* ---------- Host tools (seed 001) ---------- */

export type HostToolContent = (TextContent | ImageContent)[];

export interface HostToolResult {
  content: HostToolContent;
  details?: unknown;
}

export interface HostToolExecuteContext {
  /** Aborted when xcsh cancels the call (the run was aborted). */
  signal: AbortSignal;
  /** The model's id for this tool call. */
  toolCallId: string;
  /** Streams progress: each call replaces what the user sees for this call so far. */
  update(partialResult: HostToolResult): void;
}

/** A tool the host implements: its definition as the model sees it, and the code that runs it. */
export interface RpcHostTool extends RpcHostToolDefinition {
  /** Returns the result (a string is shorthand for one text block); throwing reports a tool error to the model. */
  execute(args: Record<string, unknown>, context: HostToolExecuteContext): Promise<HostToolResult | string> | HostToolResult | string;
}

/** set_todos input: the server numbers missing ids and maps loose statuses ("done", "active"). */
export interface TodoPhaseInput {
  id?: string;
  name: string;
  tasks: { id?: string; content: string; status?: TodoStatus | (string & {}) }[];
}
