/**
 * How much transcript one summary request may carry, and how a transcript too
 * big for that is split. A summary request is the system prompt, the prompt
 * (instructions, the summary so far, the transcript) and room for the answer;
 * all of it must fit the summarizing model's window, or the provider refuses
 * it and the session could never be compacted again. So the transcript is cut
 * into parts that each fit, and no single message may be bigger than a part:
 * an oversized one (a 20 MB tool result, a pasted log) is cut to fit with a
 * marker saying how much was left out.
 *
 * Sizes are planned in characters from the same chars/4 estimate the rest of
 * compaction uses, on a share of the window only: real tokenizers count code
 * and non-English text denser than four characters a token.
 */
import type { Model } from "../../ai/types.ts";

const CHARS_PER_TOKEN = 4;
/** Only this share of the window is planned for; the rest absorbs estimation error. */
const WINDOW_SHARE = 0.8;
/** Below this many characters of transcript per request, summarizing is pointless. */
const MIN_TRANSCRIPT_CHARS = 1000;

/**
 * Characters of prompt (system prompt included) a request may carry beside an
 * answer of `outputTokens`, or undefined when the model's window is unknown.
 */
export function promptCharBudget(model: Pick<Model, "contextWindow">, outputTokens: number): number | undefined {
  if (!model.contextWindow || model.contextWindow <= 0) return undefined;
  return Math.floor((model.contextWindow * WINDOW_SHARE - outputTokens) * CHARS_PER_TOKEN);
}

/**
 * Characters of transcript per request, once the prompt's fixed text is
 * counted. Throws when the window leaves no useful room.
 */
export function transcriptCharBudget(model: Pick<Model, "contextWindow" | "id">, outputTokens: number, fixedChars: number): number | undefined {
  const budget = promptCharBudget(model, outputTokens);
  if (budget === undefined) return undefined;
  const left = budget - fixedChars;
  if (left < MIN_TRANSCRIPT_CHARS) {
    throw new Error(
      `The context window of ${model.id} (${model.contextWindow} tokens) is too small to summarize in: ` +
        `the summary's instructions and answer leave no room for the conversation.`,
    );
  }
  return left;
}

/** "19.1 MB", "12.3 KB", "850 characters": the size of left-out text, for a reader. */
export function describeSize(text: string): string {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 10 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${text.length} characters`;
}

/**
 * `text` cut to at most `maxChars` (marker included): its beginning and end
 * kept — what a command printed first, and the error it ended with — and a
 * marker in between naming what and how much was left out.
 */
export function cutToFit(text: string, maxChars: number, what: string): string {
  if (text.length <= maxChars) return text;
  const marker = `\n[… ${describeSize(text)} of ${what} omitted …]\n`;
  const room = Math.max(0, maxChars - marker.length - 40);
  const head = Math.ceil(room * 0.75);
  const tail = room - head;
  const omitted = text.slice(head, text.length - tail);
  return `${text.slice(0, head)}\n[… ${describeSize(omitted)} of ${what} omitted …]\n${tail > 0 ? text.slice(text.length - tail) : ""}`;
}

/**
 * Consecutive blocks packed into parts of at most `maxChars` each (joined as
 * the transcript joins them). A block larger than a part is cut to fit first.
 * At least one part, even for no blocks.
 */
export function splitIntoParts(blocks: readonly string[], maxChars: number, separator = "\n\n"): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const raw of blocks) {
    const block = cutToFit(raw, maxChars, "this message");
    const added = (current.length > 0 ? separator.length : 0) + block.length;
    if (current.length > 0 && size + added > maxChars) {
      parts.push(current.join(separator));
      current = [];
      size = 0;
    }
    size += (current.length > 0 ? separator.length : 0) + block.length;
    current.push(block);
  }
  if (current.length > 0 || parts.length === 0) parts.push(current.join(separator));
  return parts;
}
