/**
 * The session file's entries (seed 002): a header line, then entries linked
 * by id/parentId into a tree. Shapes and field names are exactly the spec's, so
 * files move freely between xcsh and pi.
 */
import type { AssistantMessage, ImageContent, TextContent, ToolResultMessage, Usage, UserMessage } from "../ai/types.ts";
import type { AgentMessage } from "../agent/types.ts";

/**
 * A system message as pi (0.87 on) persists it: the prompt sections and tool
 * declarations of a request, so that replaying them gives the prompt in force.
 * xcsh reads and keeps them but builds its own system prompt: they are part of
 * the context it reports (get_messages) and never sent to a provider.
 */
export interface PersistedSystemMessage {
  role: "system";
  content: string | TextContent[];
  /** Named prompt sections; a later message replaces sections by name, null removes one. */
  sections?: Record<string, string | null>;
  toolsAdded?: Array<{ name: string; description?: string; parameters?: unknown }>;
  toolsRemoved?: Array<{ name: string }>;
  timestamp: number;
}

declare module "../agent/types.ts" {
  interface CustomAgentMessages {
    system: PersistedSystemMessage;
  }
}

export const CURRENT_SESSION_VERSION = 3;

export interface SessionHeader {
  type: "session";
  version?: number;
  /** uuid */
  id: string;
  /** ISO time */
  timestamp: string;
  cwd: string;
  parentSession?: string;
}

export interface SessionEntryBase {
  type: string;
  /** 8 hex characters */
  id: string;
  parentId: string | null;
  /** ISO time */
  timestamp: string;
}

export interface SessionMessageEntry extends SessionEntryBase {
  type: "message";
  message: AgentMessage;
}

export interface ThinkingLevelChangeEntry extends SessionEntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface ModelChangeEntry extends SessionEntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface CompactionEntry<T = unknown> extends SessionEntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  /** By default `{ readFiles, modifiedFiles }`; extensions store their own. */
  details?: T;
  /** Made by an extension. */
  fromHook?: boolean;
  /** What generating the summary cost; counted in the session's totals. */
  usage?: Usage;
  /** pi's prompt and tool checkpoint at this boundary; kept, never sent (see PersistedSystemMessage). */
  systemMessage?: PersistedSystemMessage;
}

export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
  details?: T;
  fromHook?: boolean;
  /** What generating the summary cost; counted in the session's totals. */
  usage?: Usage;
}

/**
 * Model usage that is not an assistant message (cache warming, an extension's
 * own calls): counted in the session's token and cost totals, never part of
 * the conversation. `kind` is free text; unknown kinds are ordinary usage.
 */
export interface UsageEntry extends SessionEntryBase {
  type: "usage";
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
  /** A human-readable qualifier. */
  note?: string;
}

/** The content a context edit may put in place of an entry's own. */
export type ContextEditableContent =
  | UserMessage["content"]
  | AssistantMessage["content"]
  | ToolResultMessage["content"]
  | string
  | (TextContent | ImageContent)[];

/**
 * An append-only change to what one earlier entry contributes to the model's
 * context: `null` leaves the entry out, `{ content }` replaces its content
 * (role and metadata stay). It applies on the branch it is on, from where it
 * stands; the target entry itself is never changed.
 */
export interface ContextEditEntry extends SessionEntryBase {
  type: "context_edit";
  targetId: string;
  replacement: { content: ContextEditableContent } | null;
}

/** Extension state; not part of the LLM context. */
export interface CustomEntry<T = unknown> extends SessionEntryBase {
  type: "custom";
  customType: string;
  data?: T;
}

/** An extension's message that is part of the LLM context. */
export interface CustomMessageEntry<T = unknown> extends SessionEntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  details?: T;
  display: boolean;
}

export interface LabelEntry extends SessionEntryBase {
  type: "label";
  targetId: string;
  label: string | undefined;
}

export interface SessionInfoEntry extends SessionEntryBase {
  type: "session_info";
  name?: string;
}

export type SessionEntry =
  | SessionMessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | UsageEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | ContextEditEntry
  | LabelEntry
  | SessionInfoEntry;

/** Any line of a session file. Unknown entry types are kept as they are. */
export type FileEntry = SessionHeader | SessionEntry;

export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  label?: string;
  labelTimestamp?: string;
}

export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

export interface SessionInfo {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  modified: Date;
  messageCount: number;
  /**
   * Set when `messageCount` is an estimate: lists read a big file's head and tail
   * only (session-summary.ts), never all of it.
   */
  messageCountEstimated?: boolean;
  firstMessage: string;
  allMessagesText: string;
}

export interface NewSessionOptions {
  id?: string;
  parentSession?: string;
}

export type SessionListProgress = (loaded: number, total: number) => void;
