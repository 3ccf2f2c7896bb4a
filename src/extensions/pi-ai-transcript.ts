/**
 * pi-ai's transcript helpers (pi 0.8x): a conversation whose `system` messages
 * carry the prompt and the tool declarations — the leading one the base, later
 * ones adding instructions, replacing named sections and adding or removing
 * tools. xcsh's providers take the older shape (`systemPrompt`, `tools` beside
 * the messages), so `toProviderContext` folds a transcript back into it; the
 * stream functions an extension imports from pi-ai call it, and either shape works.
 */
import type { Context, Message, Tool } from "../ai/types.ts";

interface TextLike {
  type: string;
  text?: string;
}

/** A pi 0.8x system message (not a message role xcsh's providers know). */
export interface SystemMessage {
  role: "system";
  content: string | TextLike[];
  sections?: Record<string, string | null>;
  toolsAdded?: Tool[];
  toolsRemoved?: { name: string }[];
  timestamp: number;
}

type AnyMessage = { role: string };
type Transcript = readonly AnyMessage[];

const isSystem = (message: AnyMessage | undefined): message is SystemMessage => message?.role === "system";

function checkMessages(messages: unknown, what: string): Transcript {
  if (!Array.isArray(messages)) throw new TypeError(`${what}: messages must be an array`);
  return messages as Transcript;
}

/** The text blocks of a content value, joined (images, thinking and tool calls are left out). */
export function contentText(content: string | readonly TextLike[], separator = "\n"): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((block) => block?.type === "text").map((block) => block.text ?? "").join(separator);
}

function sectionTexts(sections: SystemMessage["sections"]): string[] {
  return Object.values(sections ?? {}).filter((text): text is string => typeof text === "string" && text !== "");
}

/** A system message as one prompt: its content, then its sections. */
export function getSystemMessageText(message: SystemMessage): string {
  return [contentText(message?.content ?? ""), ...sectionTexts(message?.sections)].filter((part) => part !== "").join("\n\n");
}

/** A later system message as text for an API that takes system messages mid-conversation. */
export function renderSystemMessageUpdate(message: SystemMessage): string {
  const parts = [contentText(message?.content ?? "")];
  for (const [name, text] of Object.entries(message?.sections ?? {})) {
    parts.push(text === null ? `The system prompt section "${name}" no longer applies.` : `The system prompt section "${name}" now reads:\n\n${text}`);
  }
  return parts.filter((part) => part !== "").join("\n\n");
}

/** A tool as the model sees it: name, description, schema (and constrained sampling), as plain JSON. */
export function toToolDeclaration(tool: Tool): Tool {
  const { name, description, parameters } = tool;
  const constrained = (tool as { constrainedSampling?: unknown }).constrainedSampling;
  return JSON.parse(JSON.stringify({ name, description, parameters, ...(constrained !== undefined ? { constrainedSampling: constrained } : {}) }));
}

export function declarationsEqual(left: Tool, right: Tool): boolean {
  return JSON.stringify(toToolDeclaration(left)) === JSON.stringify(toToolDeclaration(right));
}

export function createInitialSystemMessage(systemPrompt: string | undefined, tools: Tool[] | undefined): SystemMessage | undefined {
  const prompt = systemPrompt ?? "";
  const declared = (tools ?? []).map(toToolDeclaration);
  if (prompt === "" && declared.length === 0) return undefined;
  return { role: "system", content: prompt, ...(declared.length > 0 ? { toolsAdded: declared } : {}), timestamp: 0 };
}

/** A context with `systemPrompt`/`tools` folded into a leading system message (unless it has one). */
export function normalizeContext(context: Context): { messages: Message[] } {
  if (!context || typeof context !== "object") throw new TypeError("normalizeContext(context): context must be an object");
  const messages = checkMessages(context.messages, "normalizeContext") as Message[];
  if (isSystem(messages[0])) return { messages: [...messages] };
  const initial = createInitialSystemMessage(context.systemPrompt, context.tools);
  return { messages: initial ? [initial as unknown as Message, ...messages] : [...messages] };
}

export function getInitialSystemMessage(messages: Transcript): SystemMessage | undefined {
  return isSystem(messages?.[0]) ? messages[0] : undefined;
}

export function withoutInitialSystemMessage<T extends AnyMessage>(messages: T[]): T[] {
  return isSystem(messages?.[0]) ? messages.slice(1) : [...(messages ?? [])];
}

/** The tools in force after every addition and removal, in the order they were (last) added. */
export function getCurrentTools(messages: Transcript): Tool[] {
  const current = new Map<string, Tool>();
  for (const message of checkMessages(messages, "getCurrentTools")) {
    if (!isSystem(message)) continue;
    for (const { name } of message.toolsRemoved ?? []) current.delete(name);
    for (const tool of message.toolsAdded ?? []) {
      current.delete(tool.name);
      current.set(tool.name, tool);
    }
  }
  return [...current.values()];
}

/** Every system message replayed into one: contents joined, sections patched by name, the current tools. */
export function getCurrentSystemMessage(messages: Transcript): SystemMessage | undefined {
  const systems = checkMessages(messages, "getCurrentSystemMessage").filter(isSystem);
  if (systems.length === 0) return undefined;
  const contents = systems.map((message) => contentText(message.content)).filter((text) => text !== "");
  const sections: Record<string, string> = {};
  for (const message of systems) {
    for (const [name, text] of Object.entries(message.sections ?? {})) {
      if (text === null) delete sections[name];
      else sections[name] = text;
    }
  }
  const tools = getCurrentTools(systems);
  return {
    role: "system",
    content: contents.join("\n\n"),
    ...(Object.keys(sections).length > 0 ? { sections } : {}),
    ...(tools.length > 0 ? { toolsAdded: tools } : {}),
    timestamp: systems[0]!.timestamp,
  };
}

export function getCurrentSystemPrompt(messages: Transcript): string {
  const current = getCurrentSystemMessage(messages);
  return current ? getSystemMessageText(current) : "";
}

/** The transcript with one leading system message holding the replayed prompt and tools. */
export function collapseSystemMessages(context: { messages: Message[] }): { messages: Message[] } {
  const messages = checkMessages(context?.messages, "collapseSystemMessages") as Message[];
  const current = getCurrentSystemMessage(messages);
  const rest = messages.filter((message) => !isSystem(message));
  return { messages: current ? [current as unknown as Message, ...rest] : rest };
}

export function resolveTranscript(context: { messages: Message[] }, supportsMidConvoSystemMessages: boolean | undefined): { messages: Message[] } {
  return supportsMidConvoSystemMessages ? context : collapseSystemMessages(context);
}

/** What changed between two tool sets; a changed definition is a removal and an addition. */
export function getToolStateChanges(previous: readonly Tool[], current: readonly Tool[]): { toolsAdded: Tool[]; toolsRemoved: { name: string }[] } {
  const kept = (tool: Tool, others: readonly Tool[]) => others.some((other) => other.name === tool.name && declarationsEqual(tool, other));
  return {
    toolsAdded: current.filter((tool) => !kept(tool, previous)),
    toolsRemoved: previous.filter((tool) => !kept(tool, current)).map((tool) => ({ name: tool.name })),
  };
}

/** Every distinct definition the transcript declares, in first-declaration order. */
export function getDeclaredTools(messages: Transcript): Tool[] {
  const declared: Tool[] = [];
  for (const message of checkMessages(messages, "getDeclaredTools")) {
    if (!isSystem(message)) continue;
    for (const tool of message.toolsAdded ?? []) if (!declared.some((known) => declarationsEqual(known, tool))) declared.push(tool);
  }
  return declared;
}

export function hasToolRedefinitions(messages: Transcript): boolean {
  const seen = new Map<string, Tool>();
  for (const tool of getDeclaredTools(messages)) {
    if (seen.has(tool.name)) return true;
    seen.set(tool.name, tool);
  }
  return false;
}

/** A removal or a second declaration of a name: more than a transport that only adds tools can express. */
export function hasNonAdditiveToolChanges(messages: Transcript): boolean {
  const names = new Set<string>();
  for (const message of checkMessages(messages, "hasNonAdditiveToolChanges")) {
    if (!isSystem(message)) continue;
    if ((message.toolsRemoved ?? []).length > 0) return true;
    for (const tool of message.toolsAdded ?? []) {
      if (names.has(tool.name)) return true;
      names.add(tool.name);
    }
  }
  return false;
}

/** The tools for the request's own field, and whether later additions stay where the transcript adds them. */
export function resolveTranscriptTools(messages: Transcript, supportsToolAdditions: boolean): { requestTools: Tool[]; anchorsAdditions: boolean } {
  if (supportsToolAdditions && !hasNonAdditiveToolChanges(messages)) {
    return { requestTools: [...(getInitialSystemMessage(messages)?.toolsAdded ?? [])], anchorsAdditions: true };
  }
  return { requestTools: getCurrentTools(messages), anchorsAdditions: false };
}

/**
 * The shape xcsh's providers take: a transcript's system messages folded into
 * `systemPrompt` and `tools` (a given `systemPrompt` or `tools` wins), the other
 * messages as they are. A context without system messages is returned unchanged.
 */
export function toProviderContext(context: Context): Context {
  const messages = (context?.messages ?? []) as AnyMessage[];
  if (!Array.isArray(messages) || !messages.some(isSystem)) return context;
  const tools = getCurrentTools(messages);
  return {
    ...context,
    systemPrompt: context.systemPrompt ?? getCurrentSystemPrompt(messages),
    messages: messages.filter((message) => !isSystem(message)) as Message[],
    ...(context.tools ?? tools.length > 0 ? { tools: context.tools ?? tools } : {}),
  };
}
