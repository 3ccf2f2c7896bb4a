/**
 * Session-affinity headers: some servers cache prompts per replica and keep a session on
 * one replica when told its id, so the next request finds its cache (OpenRouter, Fireworks,
 * Baseten; OpenAI's own). The catalog says which servers want them and in which form
 * (`compat.sendSessionAffinityHeaders`, `compat.sessionAffinityFormat`); this module only
 * spells the forms. The id is the session's, never a credential.
 */
export type SessionAffinityFormat = "openai" | "openai-nosession" | "openrouter";

/** Whether a model is served by OpenRouter (its own provider, or a proxy pointed at it). */
export function isOpenRouterEndpoint(model: { provider: string; baseUrl: string }): boolean {
  return model.provider === "openrouter" || model.baseUrl.includes("openrouter.ai");
}

/**
 * The headers for a format: openrouter sends `x-session-id`; openai sends the session id
 * header (`sessionHeader`: `session_id` on Chat Completions, `session-id` on Responses),
 * `x-client-request-id` and, where `affinityHeader`, `x-session-affinity`; openai-nosession
 * the same without the session id header.
 */
export function sessionAffinityHeaders(
  format: SessionAffinityFormat,
  sessionId: string,
  spelling: { sessionHeader: string; affinityHeader: boolean },
): Record<string, string> {
  if (format === "openrouter") return { "x-session-id": sessionId };
  const headers: Record<string, string> = {};
  if (format === "openai") headers[spelling.sessionHeader] = sessionId;
  headers["x-client-request-id"] = sessionId;
  if (spelling.affinityHeader) headers["x-session-affinity"] = sessionId;
  return headers;
}
