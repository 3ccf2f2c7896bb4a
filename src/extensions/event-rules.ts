/**
 * How the handlers of one event combine, as a table rather than eight copies of
 * the same loop (seed 003 per event): notify-only events ignore results; cancel
 * events stop at the first cancel; chains hand each handler the previous one's
 * output; first-decision events stop at the first handler that decides.
 * The runner applies the rule; nothing else knows these semantics.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { ImageContent } from "../ai/types.ts";
import { isUsage } from "../session/entry-shapes.ts";
import { checkBoundaryDrafts } from "./boundary-drafts.ts";
import type {
  BeforeAgentStartResult,
  BoundaryContextPreview,
  BoundaryState,
  CustomMessageInput,
  ExtensionEventMap,
  ExtensionEventName,
  ResourcesDiscoverResult,
  SessionBoundaryDraft,
  ToolResultPatch,
} from "./types.ts";

/** What a rule does with each handler's return value. `stop` ends the dispatch early. */
export interface EventRule<E extends ExtensionEventName, Outcome> {
  start(event: ExtensionEventMap[E][0]): Outcome;
  /** Folds one handler's result in; may update the event the next handler sees. */
  apply(outcome: Outcome, result: unknown, event: ExtensionEventMap[E][0]): { outcome: Outcome; stop?: boolean };
  /** A thrown handler: by default reported and skipped; `tool_call` fails closed. */
  onThrow?(outcome: Outcome, error: Error): { outcome: Outcome; stop: boolean };
}

const isObject = (value: unknown): value is Record<string, any> => typeof value === "object" && value !== null;

/** Messages carry text or a list of blocks; summaries and bash records have their own fields. */
function hasContent(message: Record<string, any>): boolean {
  if (!("content" in message)) return message.role !== "user" && message.role !== "assistant" && message.role !== "toolResult";
  return typeof message.content === "string" || (Array.isArray(message.content) && message.content.every(isObject));
}

const notify: EventRule<any, void> = {
  start: () => undefined,
  apply: () => ({ outcome: undefined }),
};

/** session_before_*: the first `{cancel: true}` wins; otherwise the first result that decides something is kept. */
const cancellable: EventRule<any, Record<string, any> | undefined> = {
  start: () => undefined,
  apply(outcome, result) {
    if (!isObject(result)) return { outcome };
    if (result.cancel === true) return { outcome: result, stop: true };
    return { outcome: outcome ?? result };
  },
};

export interface BeforeAgentStartOutcome {
  systemPrompt: string;
  messages: CustomMessageInput[];
}

export interface InputOutcome {
  action: "continue" | "handled";
  text: string;
  images: ImageContent[] | undefined;
  changed: boolean;
}

export interface ToolCallOutcome {
  block: boolean;
  reason?: string;
}

export type ToolResultOutcome = Required<Pick<ToolResultPatch, "content" | "isError">> & {
  details: unknown;
  changed: boolean;
  structuredContent?: unknown;
  /** A handler set structuredContent (or replaced content without it, which drops it). */
  structuredChanged?: boolean;
  usage?: ToolResultPatch["usage"];
};

export interface ProjectTrustOutcome {
  trusted: "yes" | "no" | "undecided";
  remember: boolean;
}

/**
 * Where a boundary event (turn_end, agent_before_settle) keeps the session's preview: given
 * the drafts chained so far it returns the context they would make, or throws when a draft
 * names an entry that does not exist. Not enumerable, so handlers never see it.
 */
export const BOUNDARY_PREVIEW = Symbol("boundaryPreview");
export type BoundaryPreview = (entries: SessionBoundaryDraft[]) => BoundaryContextPreview;

export interface BoundaryOutcome {
  entries: SessionBoundaryDraft[];
  continue: boolean;
}

/**
 * Each handler sees the drafts and `continue` earlier handlers left, and the context they
 * would make; its `entries` replace the list (return `[...event.entries, draft]` to add)
 * and its `continue` replaces the flag. A bad result is reported against the handler's
 * extension and skipped, so it cannot undo what earlier handlers chained.
 */
const boundary: EventRule<any, BoundaryOutcome> = {
  start: (event: BoundaryState): BoundaryOutcome => ({ entries: event.entries, continue: event.continue }),
  apply(outcome: BoundaryOutcome, result, event: BoundaryState & { [BOUNDARY_PREVIEW]?: BoundaryPreview }) {
    if (!isObject(result)) return { outcome };
    const entries = result.entries === undefined ? outcome.entries : checkBoundaryDrafts(result.entries);
    if (result.continue !== undefined && typeof result.continue !== "boolean") throw new Error(`"continue" must be true or false, not ${typeof result.continue}`);
    const next: BoundaryOutcome = { entries, continue: result.continue ?? outcome.continue };
    const context = event[BOUNDARY_PREVIEW]?.(entries);
    event.entries = next.entries;
    event.continue = next.continue;
    if (context) event.context = context;
    return { outcome: next };
  },
};

/** Throws, naming the first element that is no message: it would otherwise fail deep inside a provider. */
function checkMessages(messages: unknown[]): void {
  messages.forEach((message, index) => {
    if (!isObject(message) || typeof message.role !== "string") throw new Error(`messages[${index}] is not a message (an object with a role)`);
    if (!hasContent(message)) throw new Error(`messages[${index}] (${message.role}) needs content: text, or a list of content blocks`);
  });
}

/** `context` and `context_with_system`: each handler gets the previous one's messages. */
const messageChain: EventRule<any, AgentMessage[]> = {
  start: (event): AgentMessage[] => event.messages,
  apply(outcome: AgentMessage[], result, event) {
    if (isObject(result) && Array.isArray(result.messages)) {
      checkMessages(result.messages);
      event.messages = result.messages;
      return { outcome: result.messages };
    }
    return { outcome };
  },
};

/** The rule of every event; events not listed here are notify-only. */
export const EVENT_RULES: { [E in ExtensionEventName]?: EventRule<E, any> } = {
  project_trust: {
    start: (): ProjectTrustOutcome => ({ trusted: "undecided", remember: false }),
    apply(outcome: ProjectTrustOutcome, result) {
      if (isObject(result) && (result.trusted === "yes" || result.trusted === "no")) {
        return { outcome: { trusted: result.trusted, remember: result.remember === true }, stop: true };
      }
      return { outcome };
    },
  },
  resources_discover: {
    start: (): Required<ResourcesDiscoverResult> => ({ skillPaths: [], promptPaths: [], themePaths: [] }),
    apply(outcome: Required<ResourcesDiscoverResult>, result) {
      if (!isObject(result)) return { outcome };
      for (const key of ["skillPaths", "promptPaths", "themePaths"] as const) {
        if (Array.isArray(result[key])) outcome[key].push(...result[key].filter((path: unknown) => typeof path === "string"));
      }
      return { outcome };
    },
  },
  session_before_switch: cancellable,
  session_before_fork: cancellable,
  session_before_compact: cancellable,
  session_before_tree: cancellable,
  before_agent_start: {
    start: (event): BeforeAgentStartOutcome => ({ systemPrompt: event.systemPrompt, messages: [] }),
    apply(outcome: BeforeAgentStartOutcome, result, event) {
      if (!isObject(result)) return { outcome };
      const typed = result as BeforeAgentStartResult;
      if (typeof typed.systemPrompt === "string") {
        outcome.systemPrompt = typed.systemPrompt;
        // The next handler sees the chained prompt (seed 003).
        event.systemPrompt = typed.systemPrompt;
      }
      if (isObject(typed.message) && typeof typed.message.customType === "string") outcome.messages.push(typed.message);
      return { outcome };
    },
  },
  message_end: {
    start: (event): AgentMessage => event.message,
    apply(outcome: AgentMessage, result, event) {
      // A replacement must keep the role and have content; anything else is ignored rather than corrupting the transcript.
      if (isObject(result) && isObject(result.message) && result.message.role === outcome.role && hasContent(result.message)) {
        event.message = result.message as AgentMessage;
        return { outcome: result.message as AgentMessage };
      }
      return { outcome };
    },
  },
  context: messageChain,
  context_with_system: messageChain,
  turn_end: boundary,
  agent_before_settle: boundary,
  before_provider_request: {
    start: (event): unknown => event.payload,
    apply(outcome: unknown, result, event) {
      if (result === undefined) return { outcome };
      event.payload = result;
      return { outcome: result };
    },
  },
  tool_call: {
    start: (): ToolCallOutcome => ({ block: false }),
    apply(outcome: ToolCallOutcome, result) {
      if (isObject(result) && result.block === true) {
        return { outcome: { block: true, reason: typeof result.reason === "string" ? result.reason : undefined }, stop: true };
      }
      return { outcome };
    },
    // Fail closed: a gate that crashes must not wave the call through.
    onThrow: (_outcome, error) => ({ outcome: { block: true, reason: `Blocked: a tool_call handler failed (${error.message})` }, stop: true }),
  },
  tool_result: {
    start: (event): ToolResultOutcome => ({
      content: event.content,
      details: event.details,
      isError: event.isError,
      structuredContent: event.structuredContent,
      ...(event.usage ? { usage: event.usage } : {}),
      changed: false,
    }),
    apply(outcome: ToolResultOutcome, result, event) {
      if (!isObject(result)) return { outcome };
      const patch = result as ToolResultPatch;
      if (Array.isArray(patch.content)) outcome.content = event.content = patch.content;
      if ("structuredContent" in patch || Array.isArray(patch.content)) {
        // New content without a structured result drops the old one: it may no longer match.
        outcome.structuredContent = event.structuredContent = "structuredContent" in patch ? patch.structuredContent : undefined;
        outcome.structuredChanged = true;
      }
      if ("details" in patch && patch.details !== undefined) outcome.details = event.details = patch.details;
      if (typeof patch.isError === "boolean") outcome.isError = event.isError = patch.isError;
      if (isUsage(patch.usage)) outcome.usage = event.usage = patch.usage;
      outcome.changed = true;
      return { outcome };
    },
  },
  user_bash: {
    start: (): Record<string, any> | undefined => undefined,
    apply(outcome, result) {
      if (isObject(result) && (isObject(result.result) || isObject(result.operations))) return { outcome: result, stop: true };
      return { outcome };
    },
  },
  input: {
    start: (event): InputOutcome => ({ action: "continue", text: event.text, images: event.images, changed: false }),
    apply(outcome: InputOutcome, result, event) {
      if (!isObject(result)) return { outcome };
      if (result.action === "handled") return { outcome: { ...outcome, action: "handled" }, stop: true };
      if (result.action === "transform" && typeof result.text === "string") {
        outcome.text = event.text = result.text;
        if (Array.isArray(result.images)) outcome.images = event.images = result.images;
        outcome.changed = true;
      }
      return { outcome };
    },
  },
};

export function ruleFor<E extends ExtensionEventName>(event: E): EventRule<E, any> {
  return (EVENT_RULES[event] as EventRule<E, any> | undefined) ?? notify;
}
