/**
 * The LLM call that condenses conversation history into a handover note. The
 * conversation goes to the model as one labelled transcript inside a single
 * user message: sent as real chat turns, the model would carry on the
 * conversation instead of describing it.
 *
 * A transcript too big for the model's window is summarized in parts, in
 * order, each request carrying the note so far to be updated with the next
 * part (summary-budget.ts decides the sizes), so every request fits.
 */
import { convertToLlm } from "../../agent/messages.ts";
import type { AgentMessage } from "../../agent/types.ts";
import { completeSimple } from "../../ai/stream.ts";
import type { AssistantMessage, ImageContent, Message, Model, ModelThinkingLevel, TextContent, Usage } from "../../ai/types.ts";
import { withSummaryRetry, type SummaryRetry } from "./summary-retry.ts";
import { cutToFit, describeSize, promptCharBudget, splitIntoParts, transcriptCharBudget } from "./summary-budget.ts";

/** Tool output beyond this many characters is cut from the transcript; it is mostly file contents and logs. */
export const TOOL_RESULT_CHAR_LIMIT = 2000;
/** Each tool-call argument is cut to this many characters (a `write` carries a whole file). */
const TOOL_ARGUMENT_CHAR_LIMIT = 500;

export interface SummaryOptions {
  headers?: Record<string, string>;
  /** The provider's configuration variables (auth.json's `env`), passed on to the request. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** What the user wants the summary to focus on (`/compact <instructions>`). */
  customInstructions?: string;
  /** The summary of the history before these messages, to be updated rather than rewritten. */
  previousSummary?: string;
  thinkingLevel?: ModelThinkingLevel;
  /** Called before each request of a summary made in several parts (part counts from 1). */
  onPart?: (part: number, parts: number) => void;
  /** Hears the usage of each summary request (pi 1.6.0 reports a compaction's usage). */
  onUsage?: (usage: Usage) => void;
  /** Retry a request that failed for a passing reason; unset: one try. */
  retry?: SummaryRetry;
}

function truncate(text: string, limit: number, what: string): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[… ${describeSize(text.slice(limit))} of ${what} omitted …]`;
}

function blocksToText(content: string | (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
}

function formatArguments(args: Record<string, unknown>): string {
  return Object.entries(args ?? {})
    .map(([key, value]) => `${key}=${truncate(JSON.stringify(value) ?? "undefined", TOOL_ARGUMENT_CHAR_LIMIT, "argument")}`)
    .join(", ");
}

function serializeAssistant(message: AssistantMessage): string[] {
  const thinking: string[] = [];
  const text: string[] = [];
  const calls: string[] = [];
  for (const block of message.content) {
    if (block.type === "thinking" && !block.redacted) thinking.push(block.thinking);
    else if (block.type === "text") text.push(block.text);
    else if (block.type === "toolCall") calls.push(`${block.name}(${formatArguments(block.arguments)})`);
  }
  const lines: string[] = [];
  if (thinking.length > 0) lines.push(`[Assistant thinking]: ${thinking.join("\n")}`);
  if (text.length > 0) lines.push(`[Assistant]: ${text.join("\n")}`);
  if (calls.length > 0) lines.push(`[Assistant tool calls]: ${calls.join("; ")}`);
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    lines.push(`[Assistant ${message.stopReason}]: ${message.errorMessage ?? "(no details)"}`);
  }
  return lines;
}

/** Each message as its labelled transcript text (an assistant message's lines together), in order. */
export function serializeMessages(messages: Message[]): string[] {
  const blocks: string[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      blocks.push(`[User]: ${blocksToText(message.content)}`);
    } else if (message.role === "assistant") {
      const lines = serializeAssistant(message);
      if (lines.length > 0) blocks.push(lines.join("\n\n"));
    } else {
      const output = truncate(blocksToText(message.content), TOOL_RESULT_CHAR_LIMIT, "tool output");
      blocks.push(`[Tool result]: ${message.isError ? `(error) ${output}` : output}`);
    }
  }
  return blocks;
}

/** LLM messages as a labelled plain-text transcript. */
export function serializeConversation(messages: Message[]): string {
  return serializeMessages(messages).join("\n\n");
}

export const SUMMARIZATION_SYSTEM_PROMPT = `You write handover notes for a coding assistant. You are given a transcript of an earlier part of a session between a user and an AI coding assistant. Another assistant, who has not seen the transcript, will continue the work using only your note and the most recent messages.

Do not continue the conversation, answer questions from it, or call tools. Only write the note.`;

const SUMMARY_FORMAT = `Use this structure, with terse bullet points. Leave a section out if there is nothing to say in it.

## Goal
What the user is trying to accomplish.

## Constraints & Preferences
- Requirements, conventions and preferences the user stated.

## Progress
### Done
- [x] Completed work.
### In Progress
- [ ] Work under way.
### Blocked
- Open problems, if any.

## Key Decisions
- **Decision**: why it was made.

## Next Steps
1. What should happen next.

## Critical Context
- Exact file paths, function names, commands, error messages, values and anything else the successor needs to continue without asking again.

Prefer concrete facts over narrative. Keep exact names, paths and error texts verbatim.`;

function focusSection(customInstructions: string | undefined): string {
  const focus = customInstructions?.trim();
  return focus ? `\n\nThe user asked the note to focus on: ${focus}` : "";
}

function summaryPrompt(transcript: string, previousSummary: string | undefined, customInstructions: string | undefined): string {
  const conversation = `<conversation>\n${transcript}\n</conversation>`;
  if (previousSummary !== undefined) {
    return `${conversation}

<previous-summary>
${previousSummary}
</previous-summary>

The previous summary covers the session up to the start of the conversation above. Update it with what happened in the conversation: keep what still holds, move finished work to Done, record new decisions, and drop what is no longer relevant. Output the complete updated note.

${SUMMARY_FORMAT}${focusSection(customInstructions)}`;
  }
  return `${conversation}

Write the handover note for this conversation.

${SUMMARY_FORMAT}${focusSection(customInstructions)}`;
}

function turnPrefixPrompt(transcript: string, earlierNote: string | undefined, customInstructions: string | undefined): string {
  if (earlierNote !== undefined) {
    return `<conversation>
${transcript}
</conversation>

<note-so-far>
${earlierNote}
</note-so-far>

This continues the beginning of a turn that is still in progress; the note so far covers what came before the conversation above. The rest of the turn is kept verbatim and follows your note. Output the complete note, updated with the conversation above: a few bullet points on what the user asked for in this turn, what the assistant has done so far, and the exact files, commands and findings the rest of the turn builds on.${focusSection(customInstructions)}`;
  }
  return `<conversation>
${transcript}
</conversation>

This is the beginning of a turn that is still in progress: the user's request and the assistant's first steps. The rest of the turn is kept verbatim and follows your note, so describe only what the later part needs in order to make sense.

Write a short note (a few bullet points): what the user asked for in this turn, what the assistant has done so far, and the exact files, commands and findings the rest of the turn builds on.${focusSection(customInstructions)}`;
}

/** Output budget: a share of the reserve, never more than the model can produce. */
function outputBudget(model: Model, reserveTokens: number, share: number): number {
  const budget = Math.max(256, Math.floor(share * reserveTokens));
  return model.maxTokens > 0 ? Math.min(budget, model.maxTokens) : budget;
}

async function requestSummary(
  model: Model,
  prompt: string,
  maxTokens: number,
  apiKey: string | undefined,
  options: SummaryOptions,
): Promise<string> {
  const level = options.thinkingLevel;
  const send = () =>
    completeSimple(
      model,
      {
        systemPrompt: SUMMARIZATION_SYSTEM_PROMPT,
        messages: [{ role: "user", content: [{ type: "text", text: prompt }], timestamp: Date.now() }],
      },
      {
        apiKey,
        headers: options.headers,
        env: options.env,
        signal: options.signal,
        maxTokens,
        reasoning: level && level !== "off" ? level : undefined,
        // A one-off request: a cache entry written for it would never be read, and writing costs more than plain input.
        cacheRetention: "none",
      },
    );
  const response = await withSummaryRetry(send, options.retry, model.contextWindow, options.signal, options.onUsage);
  if (response.stopReason === "error" || response.stopReason === "aborted") {
    throw new Error(response.errorMessage ?? (response.stopReason === "aborted" ? "Summarization was aborted" : "Summarization failed"));
  }
  const text = response.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("")
    .trim();
  // An empty summary would silently erase the history it replaces.
  if (!text) throw new Error("Summarization returned no text");
  return text;
}

/** Builds one request's prompt from its part of the transcript and the note so far. */
type PromptBuilder = (transcript: string, noteSoFar: string | undefined) => string;

/**
 * The note for `messages`: one request when the transcript fits the model's
 * window, otherwise one per part, in order, each updating the note so far
 * (a summary of the summaries before it). `initialNote` is the note the first
 * request updates; it is shortened if it alone would crowd out the transcript.
 */
async function summarizeTranscript(
  messages: AgentMessage[],
  model: Model,
  maxTokens: number,
  apiKey: string | undefined,
  options: SummaryOptions,
  buildPrompt: PromptBuilder,
  initialNote: string | undefined,
): Promise<string> {
  const blocks = serializeMessages(convertToLlm(messages));
  const noteLimit = maxTokens * 4;
  const promptBudget = promptCharBudget(model, maxTokens);
  if (promptBudget === undefined) return requestSummary(model, buildPrompt(blocks.join("\n\n"), initialNote), maxTokens, apiKey, options);

  // An earlier note longer than any answer could be (an extension's, another model's) would crowd out the transcript.
  const note0 = initialNote !== undefined && initialNote.length > Math.max(noteLimit, promptBudget / 3) ? cutToFit(initialNote, noteLimit, "the earlier summary") : initialNote;
  // The note carried between parts is an answer: at most maxTokens long.
  const noteRoom = Math.max(note0?.length ?? 0, noteLimit);
  const fixedChars = SUMMARIZATION_SYSTEM_PROMPT.length + buildPrompt("", "x".repeat(noteRoom)).length;
  const parts = splitIntoParts(blocks, transcriptCharBudget(model, maxTokens, fixedChars)!);
  let note = note0;
  for (let index = 0; index < parts.length; index++) {
    if (parts.length > 1) options.onPart?.(index + 1, parts.length);
    note = await requestSummary(model, buildPrompt(parts[index], note), maxTokens, apiKey, options);
  }
  return note!;
}

/** Summarizes `messages`, updating `options.previousSummary` when given. */
export async function generateSummary(
  messages: AgentMessage[],
  model: Model,
  reserveTokens: number,
  apiKey: string | undefined,
  options: SummaryOptions = {},
): Promise<string> {
  const build: PromptBuilder = (transcript, noteSoFar) => summaryPrompt(transcript, noteSoFar, options.customInstructions);
  return summarizeTranscript(messages, model, outputBudget(model, reserveTokens, 0.8), apiKey, options, build, options.previousSummary);
}

/** A short note on the beginning of a turn whose end is kept verbatim. */
export async function generateTurnPrefixSummary(
  messages: AgentMessage[],
  model: Model,
  reserveTokens: number,
  apiKey: string | undefined,
  options: Omit<SummaryOptions, "previousSummary"> = {},
): Promise<string> {
  const build: PromptBuilder = (transcript, noteSoFar) => turnPrefixPrompt(transcript, noteSoFar, options.customInstructions);
  return summarizeTranscript(messages, model, outputBudget(model, reserveTokens, 0.5), apiKey, options, build, undefined);
}
