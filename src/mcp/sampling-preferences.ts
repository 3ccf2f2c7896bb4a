/**
 * The two choices a server's sampling request leaves to the client, decided here as
 * plain functions (core's sampler applies them; the person still says yes to the
 * result, in a dialog that names the model and the context going along):
 *
 * - Which model (`modelPreferences`). The MCP spec makes hints substrings of model
 *   names, tried in order, the first that names a model winning. A hint that names the
 *   session's model keeps it; else the available models it names are candidates, and
 *   the priorities choose among them: cost or speed first takes the cheapest,
 *   intelligence first the dearest (price is what the catalog knows of both), no
 *   leaning the first in the catalog's order. No hint names an available model (or
 *   there are none): the session's model, whatever the priorities say — the person
 *   chose it, and priorities alone are too vague to overrule that.
 * - Which context (`includeContext`): "thisServer" sends the results of the calls of
 *   this server's tools in the session so far, "allServers" those of every MCP server's
 *   tools, the latest first up to a budget; "none" (or nothing) sends none.
 */

export interface ModelPreferences {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

export interface CandidateModel {
  provider: string;
  id: string;
  name?: string;
  cost?: { input: number; output: number };
}

/** What a sampling request gets of the session's MCP tool results, at most. */
const CONTEXT_CHARS = 16_000;

function names(model: CandidateModel, hint: string): boolean {
  const wanted = hint.toLowerCase();
  return [model.id, model.name ?? "", `${model.provider}/${model.id}`].some((name) => name.toLowerCase().includes(wanted));
}

function price(model: CandidateModel): number {
  return (model.cost?.input ?? 0) + (model.cost?.output ?? 0);
}

/** The model a request goes to: one a hint names, else the session's. */
export function pickSamplingModel<M extends CandidateModel>(preferences: ModelPreferences | undefined, current: M, available: readonly M[]): M {
  const hints = (preferences?.hints ?? []).map((hint) => hint.name?.trim() ?? "").filter(Boolean);
  const thrift = Math.max(preferences?.costPriority ?? 0, preferences?.speedPriority ?? 0);
  const intelligence = preferences?.intelligencePriority ?? 0;
  for (const hint of hints) {
    if (names(current, hint)) return current;
    const matches = available.filter((model) => names(model, hint));
    if (matches.length === 0) continue;
    if (thrift === intelligence) return matches[0]!;
    const sorted = [...matches].sort((a, b) => price(a) - price(b));
    return thrift > intelligence ? sorted[0]! : sorted.at(-1)!;
  }
  return current;
}

/** A session message as far as context is concerned: MCP tool results carry their server in `details`. */
export interface ContextMessage {
  role: string;
  toolName?: string;
  content?: unknown;
  details?: unknown;
}

export interface SamplingContext {
  /** The results, as one block for the system prompt; empty when none go along. */
  text: string;
  /** How many results went along (for the dialog). */
  results: number;
}

/** The MCP tool results `includeContext` asks for, newest kept first within the budget, in the order they came. */
export function samplingContext(includeContext: string | undefined, server: string, messages: readonly ContextMessage[]): SamplingContext {
  if (includeContext !== "thisServer" && includeContext !== "allServers") return { text: "", results: 0 };
  const blocks: string[] = [];
  let used = 0;
  for (const message of [...messages].reverse()) {
    if (message.role !== "toolResult") continue;
    const from = (message.details as { server?: unknown } | undefined)?.server;
    if (typeof from !== "string" || (includeContext === "thisServer" && from !== server)) continue;
    const text = Array.isArray(message.content)
      ? message.content.flatMap((block: { type?: string; text?: string }) => (block.type === "text" && block.text ? [block.text] : [])).join("\n")
      : "";
    if (!text) continue;
    const block = `<result server="${from}" tool="${message.toolName ?? ""}">\n${text}\n</result>`;
    if (used + block.length > CONTEXT_CHARS) break;
    used += block.length;
    blocks.unshift(block);
  }
  if (blocks.length === 0) return { text: "", results: 0 };
  const whose = includeContext === "thisServer" ? `MCP server "${server}"` : "MCP servers";
  return { text: `Results of the tools of ${whose} earlier in this session:\n${blocks.join("\n")}`, results: blocks.length };
}
