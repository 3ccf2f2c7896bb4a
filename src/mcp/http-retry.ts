/**
 * The fetch a remote MCP transport (Streamable HTTP, SSE) sends its messages with: a
 * message the server turned away with a transient status (408, 429, or a 5xx other than
 * 501) is sent again, at most twice, after 250 ms and then 1 s, or after the server's
 * `Retry-After` when it gives one (pi 1.6.0 retries these statuses twice too). Only
 * messages that cannot do a thing twice are sent again: the handshake, lists, reads,
 * prompts, pings and notifications, and a tool call answered 429 (refused before it
 * ran). A tool call answered 5xx is not: the server may have run the tool before it
 * failed (pi does not send it again either). A connection that cannot be made is tried
 * again only for the handshake; later calls have the reconnect path of connection.ts.
 *
 * It lives in fetch because only here are the status and its headers at hand. When the
 * attempts run out the error says how many were made; a request the SDK cancels
 * meanwhile (its timeout, the user's Escape: `notifications/cancelled`) is not sent again.
 */
import { readBodyStart } from "../ai/service-error.ts";
import { inertText } from "../tools/inert-text.ts";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The waits before the second and third attempts, when the server names none. */
const RETRY_DELAYS_MS = [250, 1_000];
/** A Retry-After longer than this is not waited for: the call fails at once, saying how long the server asked for. */
const MAX_RETRY_AFTER_MS = 10_000;

/** Messages that change nothing on the server, or whose second delivery changes nothing more. */
const REPEATABLE_METHODS = new Set([
  "initialize",
  "ping",
  "tools/list",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
  "logging/setLevel",
]);

/** A status that says "not now" rather than "no". */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status < 600);
}

/** The remote server kept turning a message away; `attempts` counts every send. */
export class McpHttpRetriesExhausted extends Error {
  constructor(
    readonly status: number,
    readonly attempts: number,
    /** The server's answer, and why it was not sent (again); empty ones are left out. */
    ...details: string[]
  ) {
    const detail = details.filter(Boolean).join("; ");
    super(`HTTP ${status}${detail ? ` (${detail})` : ""}, ${attempts === 1 ? "not sent again" : `still after ${attempts} attempts`}`);
  }
}

interface Message {
  method?: string;
  id?: string | number;
  params?: { requestId?: string | number };
}

function parseMessage(body: RequestInit["body"]): Message | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const message = JSON.parse(body) as unknown;
    return message && typeof message === "object" && !Array.isArray(message) ? (message as Message) : undefined;
  } catch {
    return undefined;
  }
}

/** Retry-After in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its day and month in words. Date.parse also reads "-1", "1.5" or "12"
  // as dates in 2001, which made a server's garbage mean "send again at once".
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms`, or less when the transport closes or `wake` is called (the request was cancelled). */
function sleep(ms: number, signal: AbortSignal | null | undefined, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
    onWake(done);
  });
}


/**
 * Short enough for one line of an error: the first line of the server's answer. Only the
 * first 8 KiB are read (readBodyStart): a server may send no end.
 */
async function answerText(response: Response): Promise<string> {
  const { text } = await readBodyStart(response);
  // Escape sequences and control characters are dropped: the line reaches the terminal (stderr) and the model.
  const line = inertText(text.trim().split("\n")[0] ?? "");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A fetch for one transport (one connection attempt): it remembers which requests were cancelled. */
export function retryingFetch(base: Fetch = fetch): Fetch {
  const cancelled = new Set<string | number>();
  /** Requests waiting to be sent again, by id: a cancellation ends the wait at once. */
  const waiting = new Map<string | number, () => void>();
  return async (url, init) => {
    const message = init?.method === "POST" ? parseMessage(init.body) : undefined;
    if (!message) return base(url, init);
    const cancelledId = message.method === "notifications/cancelled" ? message.params?.requestId : undefined;
    if (cancelledId !== undefined) {
      cancelled.add(cancelledId);
      waiting.get(cancelledId)?.();
    }
    const isNotification = message.method?.startsWith("notifications/") ?? false;
    const repeatable = isNotification || (message.method !== undefined && REPEATABLE_METHODS.has(message.method));
    const isToolCall = message.method === "tools/call";
    if (!repeatable && !isToolCall) return base(url, init);
    const signal = init?.signal;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await base(url, init);
      } catch (error) {
        // Only the handshake is dialled again here: a call's lost connection is connection.ts's to handle.
        const last = attempt > RETRY_DELAYS_MS.length || message.method !== "initialize" || signal?.aborted;
        if (last) throw error;
        await sleep(RETRY_DELAYS_MS[attempt - 1]!, signal, () => {});
        continue;
      }
      if (response.ok || !isTransientStatus(response.status)) return response;
      // A tool call turned away with 429 never ran; any other refusal of one may have come after it ran.
      if (isToolCall && response.status !== 429) {
        throw new McpHttpRetriesExhausted(response.status, 1, await answerText(response), "the server may have run the tool");
      }
      const asked = retryAfterMs(response.headers.get("retry-after"));
      if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) {
        throw new McpHttpRetriesExhausted(response.status, attempt, await answerText(response), `the server asks to wait ${Math.ceil(asked / 1000)} s`);
      }
      if (attempt > RETRY_DELAYS_MS.length || signal?.aborted) throw new McpHttpRetriesExhausted(response.status, attempt, await answerText(response));
      await response.body?.cancel().catch(() => {});
      const id = message.id;
      await sleep(asked ?? RETRY_DELAYS_MS[attempt - 1]!, signal, (wake) => id !== undefined && waiting.set(id, wake));
      if (id !== undefined) waiting.delete(id);
      if (signal?.aborted || (id !== undefined && cancelled.has(id))) {
        throw new McpHttpRetriesExhausted(response.status, attempt, "cancelled while waiting to be sent again");
      }
    }
  };
}
