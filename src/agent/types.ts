/**
 * Types of the agent loop: tools, messages the agent keeps, events it emits,
 * and the hooks later layers plug in. Event shapes are those of seed 000
 * ("事件") and pi's AgentEvent, so modes forward them unchanged.
 */
import type { Static, TSchema } from "typebox";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  Model,
  ModelThinkingLevel,
  SimpleStreamOptions,
  TextContent,
  Tool,
  ToolCall,
  ToolResultMessage,
  Usage,
} from "../ai/types.ts";
import type { AssistantMessageEventStream } from "../ai/event-stream.ts";

/**
 * Messages the agent keeps beyond the LLM's own: apps add roles (bashExecution,
 * custom, …) by declaration merging into this interface.
 */
export interface CustomAgentMessages {}

export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

export interface AgentToolResult<TDetails = any> {
  content: (TextContent | ImageContent)[];
  details: TDetails;
  /** Stop after this tool batch (only when every result in the batch asks for it). */
  terminate?: boolean;
  /** The tool returned a result that is a failure (it keeps its details, unlike a throw). */
  isError?: boolean;
  /** The calls this tool made on the model's behalf (a codemode script's), kept on the tool result message. */
  nestedCalls?: NestedCalls;
  /** pi 1.x: machine-readable result of a tool that declares an outputSchema; kept in the session, not sent to the model. */
  structuredContent?: unknown;
  /**
   * pi 1.x: model work the tool did (codemode's models.*, nested model calls, MCP sampling), with the usage of
   * the tools it called at every depth added; kept on the result message, counted in totals.
   */
  usage?: Usage;
}

/** pi 1.6.0's record of a codemode script's tool calls, a field of its tool result message. */
export interface NestedCalls {
  calls: NestedCallRecord[];
  /** False when the list stopped early (the script was cut off while calls were starting). */
  complete: boolean;
}

export interface NestedCallRecord {
  /** `<parent call id>/<n>`, as in the nested call's tool_execution events. */
  id: string;
  name: string;
  status: "ok" | "error" | "blocked" | "cancelled";
  arguments: unknown;
  durationMs?: number;
  /** The failure's text, for a call that did not end "ok" (an extension tool's nested call). */
  error?: string;
}

export type AgentToolUpdateCallback<TDetails = any> = (partialResult: AgentToolResult<TDetails>) => void;

export type ToolExecutionMode = "sequential" | "parallel";

/** The arguments a tool receives: its schema's static type, or `any` for `AgentTool<any>` collections. */
export type ToolParams<TParameters extends TSchema> = 0 extends 1 & TParameters ? any : Static<TParameters>;

export interface AgentTool<TParameters extends TSchema = TSchema, TDetails = any> extends Tool<TParameters> {
  /** Human-readable name for UIs. */
  label: string;
  /** Adapts raw arguments (old spellings, shapes) before schema validation. */
  prepareArguments?: (args: unknown) => ToolParams<TParameters>;
  /** Runs the tool. Throws on failure; the loop turns the throw into an error result. */
  execute: (
    toolCallId: string,
    params: ToolParams<TParameters>,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback<TDetails>,
  ) => Promise<AgentToolResult<TDetails>>;
  /** "sequential" keeps this tool from running alongside others. */
  executionMode?: ToolExecutionMode;
  /**
   * The tool changes files or the world outside (an xcsh addition for extension tools;
   * edit, write and bash are known): modes that ask before changes ask before it, and a
   * read-only mode does not run it.
   */
  changesState?: boolean;
  /** Other names a call may use for this tool (an MCP tool's name before a renaming); never declared. */
  aliases?: readonly string[];
  /** Runs when called but is left out of requests (a declaration another tool's prepareLoadout hides). */
  undeclared?: boolean;
}

export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  tools?: AgentTool<any>[];
}

export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AgentMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  // parentToolCallId: set on the calls a running tool makes (a codemode script's), naming that tool's call.
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: any; parentToolCallId?: string }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: any; partialResult: any; parentToolCallId?: string }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: any; isError: boolean; durationMs?: number; parentToolCallId?: string };

export type QueueMode = "all" | "one-at-a-time";
/** "immediate": queued steering skips and interrupts the rest of the turn's tool calls. */
export type InterruptMode = "immediate" | "wait";

export interface BeforeToolCallResult {
  block?: boolean;
  reason?: string;
}

export interface AfterToolCallResult {
  content?: (TextContent | ImageContent)[];
  /** Replaces the structured result; new content without it drops the old one (it may no longer match). */
  structuredContent?: unknown;
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
  /** Replaces the result's usage (a tool_result handler's). */
  usage?: Usage;
}

export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  args: unknown;
  context: AgentContext;
  /** Set for a call a running tool made (a codemode script's, ctx.executeTool's): the caller's call id. */
  parentToolCallId?: string;
}

export interface AfterToolCallContext extends BeforeToolCallContext {
  result: AgentToolResult<any>;
  isError: boolean;
}

export type StreamFn = (
  model: Model,
  context: { systemPrompt?: string; messages: Message[]; tools?: Tool[] },
  options?: SimpleStreamOptions,
) => AssistantMessageEventStream | Promise<AssistantMessageEventStream>;

export interface ThinkingLevelState {
  thinkingLevel: ModelThinkingLevel;
}
