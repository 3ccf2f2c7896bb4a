/**
 * An image the provider refuses must not brick the session. Providers refuse
 * the whole request (HTTP 400) when one image is too large, malformed or of a
 * format they cannot read, and every later request carries the same image, so
 * without this the session can never be used again.
 *
 * When a turn fails that way, the images the model has not yet accepted are
 * replaced in the context by a note saying why, the failed attempt is left
 * out, and the turn is sent again — once. The changes are `context_edit`
 * entries (pi 0.87's own entry type), so a reloaded session, in xcsh or pi,
 * never sends the image again, and the session file keeps the image itself.
 *
 * Which images: those added since the last answer the provider gave (the
 * previous requests carried the older ones and succeeded); when there are
 * none — the model was switched, say — every image in the context.
 */
import type { AssistantMessage, ImageContent, TextContent } from "../ai/types.ts";
import { isContextOverflow } from "../ai/errors.ts";
import { buildContextProjection, type ContextMessage } from "../session/build-context.ts";
import type { SessionManager } from "../session/session-manager.ts";

/** Providers' wordings for a refused image (Anthropic, OpenAI, Gemini, and servers that copy them). */
const IMAGE_REJECTION_PATTERNS: RegExp[] = [
  /image exceeds \d+(\.\d+)? ?MB maximum/i, // Anthropic: "…image.source.base64: image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes"
  /image dimensions exceed max allowed size/i, // Anthropic: "At least one of the image dimensions exceed max allowed size: 8000 pixels"
  /could not process image/i, // Anthropic
  /unsupported image/i, // OpenAI: "You uploaded an unsupported image. Please make sure your image is below 20 MB…"
  /\binvalid[ _]image\b/i, // OpenAI: "Invalid image." (code invalid_image, invalid_image_format, invalid_image_url)
  /image_parse_error/i, // OpenAI
  /unable to process input image/i, // Gemini
  /provided image is not valid/i, // Gemini
  /image (is )?too (large|big)|image size exceeds/i, // OpenAI-compatible servers
];

const MAX_REASON_CHARS = 300;

/** The provider's own message inside an error text such as `400 {"error":{"message":"…"}}`, else the text. */
function providerMessage(errorMessage: string): string {
  const start = errorMessage.indexOf("{");
  if (start >= 0) {
    try {
      const body = JSON.parse(errorMessage.slice(start)) as { error?: { message?: unknown } | unknown; message?: unknown };
      const inner = (body.error as { message?: unknown } | undefined)?.message ?? body.message;
      if (typeof inner === "string" && inner.trim()) return inner.trim();
    } catch {
      // Not JSON after all: the whole text is the reason.
    }
  }
  // "400 Invalid image.", "400 invalid_request_error: …" — the status and the error's kind say nothing the note needs.
  return errorMessage.trim().replace(/^\d{3}\s+([A-Za-z_]+:\s+)?/, "");
}

/** Why the provider refused an image in the request this reply answered, or undefined when it did not. */
export function imageRejectionReason(message: AssistantMessage, contextWindow?: number): string | undefined {
  if (message.stopReason !== "error" || !message.errorMessage) return undefined;
  if (isContextOverflow(message, contextWindow)) return undefined;
  if (!IMAGE_REJECTION_PATTERNS.some((pattern) => pattern.test(message.errorMessage!))) return undefined;
  const reason = providerMessage(message.errorMessage).replace(/\s+/g, " ");
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
}

/** The text that stands in for a dropped image. */
export function removedImageNote(reason: string): string {
  return `[image removed: the provider rejected it: ${reason}]`;
}

type Content = string | (TextContent | ImageContent)[];

function imagesIn(message: ContextMessage["message"]): number {
  if (message.role !== "user" && message.role !== "toolResult" && message.role !== "custom") return 0;
  const content = message.content as Content;
  return typeof content === "string" ? 0 : content.filter((block) => block.type === "image").length;
}

function isAcceptedAnswer(message: ContextMessage["message"]): boolean {
  return message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted";
}

/** The context's messages that carry images the provider may be refusing (see the header). */
function suspects(context: ContextMessage[]): ContextMessage[] {
  const withImages = context.filter((item) => imagesIn(item.message) > 0);
  const lastAccepted = context.findLastIndex((item) => isAcceptedAnswer(item.message));
  const recent = withImages.filter((item) => context.indexOf(item) > lastAccepted);
  return recent.length > 0 ? recent : withImages;
}

/**
 * Replaces the suspected images in the session's context with a note and
 * leaves the failed reply (`failedEntryId`) out, as context_edit entries.
 * Returns how many images were dropped; 0 when the context has none, and then
 * nothing is written.
 */
export function dropRejectedImages(sessionManager: SessionManager, reason: string, failedEntryId: string | undefined): number {
  const branch = sessionManager.getBranch();
  const context = buildContextProjection(branch, sessionManager.getLeafId()).messages;
  const note: TextContent = { type: "text", text: removedImageNote(reason) };
  let dropped = 0;
  for (const item of suspects(context)) {
    const content = item.message.role === "user" || item.message.role === "toolResult" || item.message.role === "custom" ? (item.message.content as Content) : "";
    if (typeof content === "string") continue;
    dropped += imagesIn(item.message);
    sessionManager.appendContextEdit(item.sourceId, { content: content.map((block) => (block.type === "image" ? note : block)) });
  }
  if (dropped > 0 && failedEntryId) sessionManager.appendContextEdit(failedEntryId, null);
  return dropped;
}

/** True when the context holds an image that dropRejectedImages would drop. */
export function hasImagesToDrop(sessionManager: SessionManager): boolean {
  const context = buildContextProjection(sessionManager.getBranch(), sessionManager.getLeafId()).messages;
  return suspects(context).length > 0;
}

/** The session as image recovery needs it (AgentSession). */
export interface ImageRecoveryHost {
  readonly sessionManager: SessionManager;
  readonly agent: { state: { messages: ContextMessage["message"][]; model: { contextWindow: number } }; continue(): Promise<void> };
  emit(event: { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }): Promise<void>;
}

/**
 * The one retry after a refused image, per run: `willRetry` answers agent_end's
 * question before the retry, `retry` drops the images, reports the retry as
 * pi's auto_retry_start (attempt 1 of 1, no wait) and sends the turn again.
 */
export class ImageRecovery {
  private used = false;

  constructor(private readonly host: ImageRecoveryHost) {}

  /** A retry without images will follow this failed reply. */
  willRetry(last: AssistantMessage): boolean {
    return !this.used && imageRejectionReason(last, this.host.agent.state.model.contextWindow) !== undefined && hasImagesToDrop(this.host.sessionManager);
  }

  /** Drops the refused images and sends the turn again; false (and nothing done) when this reply is no image refusal or the retry was used. */
  async retry(last: AssistantMessage): Promise<boolean> {
    if (this.used) return false;
    const reason = imageRejectionReason(last, this.host.agent.state.model.contextWindow);
    if (!reason) return false;
    const manager = this.host.sessionManager;
    // The failed reply is the branch's last assistant message (extensions may have appended entries after it).
    const lastReply = manager.getBranch().findLast((entry) => entry.type === "message" && entry.message.role === "assistant");
    const failedId = lastReply?.type === "message" && lastReply.message.role === "assistant" && lastReply.message.stopReason === "error" ? lastReply.id : undefined;
    if (dropRejectedImages(manager, reason, failedId) === 0) return false;
    this.used = true;
    const messages = manager.buildSessionContext().messages;
    // Without the failed reply's id it is still in the rebuilt context: a retry continues from the prompt.
    const tail = messages.at(-1);
    if (tail?.role === "assistant" && tail.stopReason === "error") messages.pop();
    this.host.agent.state.messages = messages;
    await this.host.emit({ type: "auto_retry_start", attempt: 1, maxAttempts: 1, delayMs: 0, errorMessage: last.errorMessage ?? "" });
    await this.host.agent.continue();
    return true;
  }

  /** A new run may retry again. */
  reset(): void {
    this.used = false;
  }
}
