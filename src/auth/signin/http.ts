/**
 * The HTTP the sign-in flows make: form posts and JSON reads against authorization
 * servers, with errors that say which server failed and how, and never echo a token.
 */

export interface JsonReply {
  status: number;
  /** The parsed JSON body; undefined when the body was not JSON. */
  json: Record<string, unknown> | undefined;
  /** The body as text, shortened, for error messages (only from error replies). */
  text: string;
}

/** POSTs `form` as application/x-www-form-urlencoded and reads the JSON reply. */
export function postForm(url: string, form: Record<string, string>, signal: AbortSignal, headers: Record<string, string> = {}): Promise<JsonReply> {
  return requestJson(url, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
    signal,
  });
}

export function getJson(url: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<JsonReply> {
  return requestJson(url, { method: "GET", headers: { Accept: "application/json", ...headers }, signal });
}

async function requestJson(url: string, init: RequestInit): Promise<JsonReply> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw new Error(`No answer from ${new URL(url).host} in time.`);
    throw new Error(`Cannot reach ${new URL(url).host}: ${(error as Error).message}`);
  }
  const body = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(body);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  // Only error bodies are kept as text: a success body holds tokens.
  return { status: response.status, json, text: response.ok ? "" : body.slice(0, 300) };
}

/** "HTTP 401: bad_refresh_token (The token was revoked)" — the reason a server gave, never tokens. */
export function describeFailure(reply: JsonReply): string {
  const error = reply.json?.error;
  const code = typeof error === "string" ? error : typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : undefined;
  const description = reply.json?.error_description ?? (error as { message?: unknown })?.message ?? reply.json?.message;
  if (code) return `HTTP ${reply.status}: ${code}${typeof description === "string" ? ` (${description})` : ""}`;
  return `HTTP ${reply.status}${reply.text ? `: ${reply.text}` : ""}`;
}
