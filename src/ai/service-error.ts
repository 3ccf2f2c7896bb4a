/**
 * A typed service's refusal (classifier, image generation: classify.ts's postJson) as one
 * error line. Only the first 8 KiB of the refusal's body is read — its message is at the
 * start, and a hostile or broken service may send megabytes, or a body with no end, which
 * would hold the script's call (and memory) for as long as it flows. The line is the
 * service's own `error.message` when it gives one, credentials redacted (before it is cut,
 * so no part of a key survives the cut), control characters and line breaks taken out: it
 * goes back to the script, so to the model and the session file. Without its ESC and BEL an
 * escape sequence is inert text; the terminal UI and print mode drop what is left of one as
 * they draw (tools/inert-text.ts, a layer above this one).
 */
import { redactCredentials } from "./verbose-error-body.ts";

/** How much of a refusal's body is read. */
export const MAX_ERROR_BODY_BYTES = 8 * 1024;
/** How long the service's words may be on the error line. */
const MAX_WORDS = 300;

/** The start of the body, at most MAX_ERROR_BODY_BYTES; the rest is not read. `complete`: the body ended within them. */
export async function readBodyStart(response: Response): Promise<{ text: string; complete: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: "", complete: true };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = false;
  try {
    while (size <= MAX_ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // a body cut off: what came is enough
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = Buffer.concat(chunks);
  return { text: new TextDecoder().decode(bytes.subarray(0, MAX_ERROR_BODY_BYTES)), complete: complete && bytes.byteLength <= MAX_ERROR_BODY_BYTES };
}

/** `error.message` (or `error`, or `message`) of a JSON body; of a body cut short, the message as far as it came. */
function messageOf(body: string, complete: boolean): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    return typeof message === "string" && message ? message : undefined;
  } catch {
    if (complete) return undefined;
  }
  // Cut inside the JSON: the message string as far as it got (its closing quote may be past the cut).
  const start = /"message"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(body)?.[1];
  if (!start) return undefined;
  try {
    return JSON.parse(`"${start}"`) as string;
  } catch {
    return start; // an escape cut in half
  }
}

/** The service's words as one line: credentials redacted, control characters out, cut short. */
export function serviceWords(body: string, complete: boolean, secrets: readonly (string | undefined)[]): string {
  const words = messageOf(body, complete) ?? (body.trim() || "no response body");
  const line = redactCredentials(words, secrets).replace(/[\s\x00-\x1f\x7f-\x9f]+/g, " ").trim();
  return line.length > MAX_WORDS ? `${line.slice(0, MAX_WORDS)}…` : line;
}

/** An HTTP failure of a typed service, its message one line with the service's words. */
export class ServiceError extends Error {
  constructor(
    label: string,
    readonly status: number,
    words: string,
  ) {
    super(`${label} error (${status}): ${words}`);
  }
}
