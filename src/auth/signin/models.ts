/**
 * The models of the sign-in providers, offered once the user has signed in (the
 * registry asks for them only then). A plan pays for them, so they cost nothing per
 * token here. Each array is ordered everyday model first: naming only the provider
 * picks it.
 *
 * GitHub Copilot serves each model family over its own API at the account's endpoint
 * (the registry puts the endpoint from the token in `baseUrl`); OpenAI Codex serves the
 * Responses API at ChatGPT's backend, which takes no `max_output_tokens`.
 */
import type { Model, ModelCompat, ThinkingLevelMap } from "../../ai/types.ts";
import { COPILOT_DEFAULT_API } from "./providers.ts";

type Entry = Pick<Model, "id" | "name" | "api" | "reasoning" | "input" | "contextWindow" | "maxTokens"> & {
  compat?: ModelCompat;
  thinkingLevelMap?: ThinkingLevelMap;
};

const FREE: Model["cost"] = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const TEXT_AND_IMAGE: Model["input"] = ["text", "image"];

/** Every Copilot request says whether the user or the agent started it (premium-request accounting). */
const COPILOT: ModelCompat = { copilotRequestHeaders: true };
/** Copilot's Chat Completions imitation: no `store`, no developer role, no reasoning_effort. */
const COPILOT_COMPLETIONS: ModelCompat = { ...COPILOT, supportsStore: false, supportsDeveloperRole: false, supportsReasoningEffort: false };

const COPILOT_MODELS: readonly Entry[] = [
  { id: "claude-sonnet-4.6", name: "Claude Sonnet 4.6", api: "anthropic-messages", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 1_000_000, maxTokens: 32_000, compat: COPILOT },
  { id: "claude-opus-4.8", name: "Claude Opus 4.8", api: "anthropic-messages", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 1_000_000, maxTokens: 64_000, compat: COPILOT },
  { id: "claude-haiku-4.5", name: "Claude Haiku 4.5", api: "anthropic-messages", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 200_000, maxTokens: 64_000, compat: COPILOT },
  { id: "gpt-5.5", name: "GPT-5.5", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 1_000_000, maxTokens: 128_000, compat: COPILOT },
  { id: "gpt-5.4-mini", name: "GPT-5.4 mini", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 400_000, maxTokens: 128_000, compat: COPILOT },
  { id: "gpt-5-mini", name: "GPT-5 mini", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 264_000, maxTokens: 64_000, compat: COPILOT },
  { id: "grok-4.5", name: "Grok 4.5", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 500_000, maxTokens: 128_000, compat: COPILOT },
  { id: "gemini-3.5-flash", name: "Gemini 3.5 Flash", api: "openai-completions", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 200_000, maxTokens: 64_000, compat: COPILOT_COMPLETIONS },
];

const CODEX: ModelCompat = { supportsMaxOutputTokens: false };
const CODEX_LEVELS: ThinkingLevelMap = { minimal: "low" };

const CODEX_MODELS: readonly Entry[] = [
  { id: "gpt-5.5", name: "GPT-5.5", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 272_000, maxTokens: 128_000, compat: CODEX, thinkingLevelMap: CODEX_LEVELS },
  { id: "gpt-6-sol", name: "GPT-6 Sol", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 272_000, maxTokens: 128_000, compat: CODEX, thinkingLevelMap: { ...CODEX_LEVELS, off: "none" } },
  { id: "gpt-5.6-sol", name: "GPT-5.6 Sol", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 272_000, maxTokens: 128_000, compat: CODEX, thinkingLevelMap: CODEX_LEVELS },
  { id: "gpt-5.6-luna", name: "GPT-5.6 Luna", api: "openai-responses", reasoning: true, input: TEXT_AND_IMAGE, contextWindow: 272_000, maxTokens: 128_000, compat: CODEX, thinkingLevelMap: CODEX_LEVELS },
  { id: "gpt-5.3-codex-spark", name: "GPT-5.3 Codex Spark", api: "openai-responses", reasoning: true, input: ["text"], contextWindow: 128_000, maxTokens: 128_000, compat: CODEX, thinkingLevelMap: CODEX_LEVELS },
];

const MODELS: Record<string, { baseUrl: string; entries: readonly Entry[] }> = {
  "github-copilot": { baseUrl: COPILOT_DEFAULT_API, entries: COPILOT_MODELS },
  "openai-codex": { baseUrl: "https://chatgpt.com/backend-api/codex", entries: CODEX_MODELS },
};

/**
 * The provider's models (copies), at `baseUrl` when given (the signed-in account's
 * endpoint); only those in `accountModelIds` when the account's list is known and names
 * any of them (a list of only unknown ids says nothing about the ones known here).
 */
export function signInModels(provider: string, baseUrl?: string, accountModelIds?: readonly string[]): Model[] {
  const list = MODELS[provider];
  if (!list) return [];
  const allowed = accountModelIds ? list.entries.filter((entry) => accountModelIds.includes(entry.id)) : [];
  return (allowed.length > 0 ? allowed : list.entries).map((entry) => ({
    ...structuredClone(entry),
    provider,
    baseUrl: baseUrl ?? list.baseUrl,
    cost: { ...FREE },
  }));
}
