/**
 * The hand-written part of the built-in catalog: Anthropic's, OpenAI's and Google's
 * models (checked against each provider's own pages), and the offline faux model. The
 * other providers' models are generated from models.dev (catalog/, models.ts).
 *
 * Prices are USD per million tokens as published by each provider (the base tier:
 * prompts under 200K tokens where a provider charges more above that). Anthropic's
 * cacheWrite is the 5-minute cache write (1.25x input); OpenAI and Google bill no
 * separate cache write, so it is 0.
 *
 * Each provider's array is ordered newest and most capable first: a `--model`
 * pattern that matches several models picks the earliest one.
 */
import { CATALOG_PROVIDERS, type CatalogProviderInfo } from "./catalog/providers.ts";
import type { Model, ThinkingLevelMap } from "./types.ts";

/** What a catalog entry states; the provider's api and baseUrl are filled in per array. */
type CatalogEntry = Omit<Model, "api" | "provider" | "baseUrl">;

const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
const OPENAI_BASE_URL = "https://api.openai.com/v1";
const GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

function anthropic(entry: CatalogEntry): Model<"anthropic-messages"> {
  return { ...entry, api: "anthropic-messages", provider: "anthropic", baseUrl: ANTHROPIC_BASE_URL };
}

function openai(entry: CatalogEntry): Model<"openai-responses"> {
  return { ...entry, api: "openai-responses", provider: "openai", baseUrl: OPENAI_BASE_URL };
}

function google(entry: CatalogEntry): Model<"google-generative-ai"> {
  return { ...entry, api: "google-generative-ai", provider: "google", baseUrl: GOOGLE_BASE_URL };
}

/** Anthropic prices follow one rule: cache writes cost 1.25x input, cache reads 0.1x. */
function claudeCost(input: number, output: number): Model["cost"] {
  return { input, output, cacheRead: input / 10, cacheWrite: input * 1.25 };
}

const TEXT_AND_IMAGE: Model["input"] = ["text", "image"];

// Reasoning models whose thinking cannot be switched off: "off" is clamped up.
const ALWAYS_THINKS: ThinkingLevelMap = { off: null };
// o-series: effort low/medium/high only.
const O_SERIES_LEVELS: ThinkingLevelMap = { off: null, minimal: null };
// GPT-5.1 and later accept effort "none" (thinking off) but not "minimal".
const GPT_5_1_LEVELS: ThinkingLevelMap = { off: "none", minimal: null };

export const ANTHROPIC_MODELS: readonly Model<"anthropic-messages">[] = [
  anthropic({
    id: "claude-opus-4-7",
    name: "Claude Opus 4.7",
    reasoning: true,
    thinkingLevelMap: { xhigh: "xhigh" },
    input: TEXT_AND_IMAGE,
    cost: claudeCost(5, 25),
    contextWindow: 1_000_000,
    maxTokens: 128_000,
  }),
  anthropic({
    id: "claude-opus-4-6",
    name: "Claude Opus 4.6",
    reasoning: true,
    // Opus 4.6 has an effort level above "high", called "max".
    thinkingLevelMap: { xhigh: "max" },
    input: TEXT_AND_IMAGE,
    cost: claudeCost(5, 25),
    contextWindow: 1_000_000,
    maxTokens: 128_000,
  }),
  anthropic({
    id: "claude-sonnet-4-6",
    name: "Claude Sonnet 4.6",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(3, 15),
    contextWindow: 1_000_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-opus-4-5",
    name: "Claude Opus 4.5",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(5, 25),
    contextWindow: 200_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-opus-4-5-20251101",
    name: "Claude Opus 4.5 (2025-11-01)",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(5, 25),
    contextWindow: 200_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-sonnet-4-5",
    name: "Claude Sonnet 4.5",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(3, 15),
    contextWindow: 200_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-sonnet-4-5-20250929",
    name: "Claude Sonnet 4.5 (2025-09-29)",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(3, 15),
    contextWindow: 200_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-haiku-4-5",
    name: "Claude Haiku 4.5",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(1, 5),
    contextWindow: 200_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-haiku-4-5-20251001",
    name: "Claude Haiku 4.5 (2025-10-01)",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(1, 5),
    contextWindow: 200_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-opus-4-1-20250805",
    name: "Claude Opus 4.1",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(15, 75),
    contextWindow: 200_000,
    maxTokens: 32_000,
  }),
  anthropic({
    id: "claude-sonnet-4-20250514",
    name: "Claude Sonnet 4",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(3, 15),
    contextWindow: 200_000,
    maxTokens: 64_000,
  }),
  anthropic({
    id: "claude-opus-4-20250514",
    name: "Claude Opus 4",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: claudeCost(15, 75),
    contextWindow: 200_000,
    maxTokens: 32_000,
  }),
];

export const OPENAI_MODELS: readonly Model<"openai-responses">[] = [
  openai({
    id: "gpt-5.2",
    name: "GPT-5.2",
    reasoning: true,
    thinkingLevelMap: { ...GPT_5_1_LEVELS, xhigh: "xhigh" },
    input: TEXT_AND_IMAGE,
    cost: { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 0 },
    contextWindow: 400_000,
    maxTokens: 128_000,
  }),
  openai({
    id: "gpt-5.1",
    name: "GPT-5.1",
    reasoning: true,
    thinkingLevelMap: GPT_5_1_LEVELS,
    input: TEXT_AND_IMAGE,
    cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    contextWindow: 400_000,
    maxTokens: 128_000,
  }),
  openai({
    id: "gpt-5",
    name: "GPT-5",
    reasoning: true,
    thinkingLevelMap: ALWAYS_THINKS,
    input: TEXT_AND_IMAGE,
    cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    contextWindow: 400_000,
    maxTokens: 128_000,
  }),
  openai({
    id: "gpt-5-mini",
    name: "GPT-5 mini",
    reasoning: true,
    thinkingLevelMap: ALWAYS_THINKS,
    input: TEXT_AND_IMAGE,
    cost: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
    contextWindow: 400_000,
    maxTokens: 128_000,
  }),
  openai({
    id: "gpt-5-nano",
    name: "GPT-5 nano",
    reasoning: true,
    thinkingLevelMap: ALWAYS_THINKS,
    input: TEXT_AND_IMAGE,
    cost: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 },
    contextWindow: 400_000,
    maxTokens: 128_000,
  }),
  openai({
    id: "gpt-4.1",
    name: "GPT-4.1",
    reasoning: false,
    input: TEXT_AND_IMAGE,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    contextWindow: 1_047_576,
    maxTokens: 32_768,
  }),
  openai({
    id: "o3",
    name: "o3",
    reasoning: true,
    thinkingLevelMap: O_SERIES_LEVELS,
    input: TEXT_AND_IMAGE,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 100_000,
  }),
  openai({
    id: "o4-mini",
    name: "o4-mini",
    reasoning: true,
    thinkingLevelMap: O_SERIES_LEVELS,
    input: TEXT_AND_IMAGE,
    cost: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 100_000,
  }),
  openai({
    id: "gpt-4o",
    name: "GPT-4o",
    reasoning: false,
    input: TEXT_AND_IMAGE,
    cost: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 16_384,
  }),
];

export const GOOGLE_MODELS: readonly Model<"google-generative-ai">[] = [
  google({
    id: "gemini-3-pro-preview",
    name: "Gemini 3 Pro Preview",
    reasoning: true,
    // Gemini 3 takes a thinking level rather than a budget, and only LOW or HIGH.
    thinkingLevelMap: { off: null, minimal: null, low: "LOW", medium: null, high: "HIGH" },
    input: TEXT_AND_IMAGE,
    cost: { input: 2, output: 12, cacheRead: 0.2, cacheWrite: 0 },
    contextWindow: 1_048_576,
    maxTokens: 65_536,
  }),
  google({
    id: "gemini-2.5-pro",
    name: "Gemini 2.5 Pro",
    reasoning: true,
    thinkingLevelMap: ALWAYS_THINKS,
    input: TEXT_AND_IMAGE,
    cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    contextWindow: 1_048_576,
    maxTokens: 65_536,
  }),
  google({
    id: "gemini-2.5-flash",
    name: "Gemini 2.5 Flash",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 },
    contextWindow: 1_048_576,
    maxTokens: 65_536,
  }),
  google({
    id: "gemini-2.5-flash-lite",
    name: "Gemini 2.5 Flash-Lite",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: { input: 0.1, output: 0.4, cacheRead: 0.01, cacheWrite: 0 },
    contextWindow: 1_048_576,
    maxTokens: 65_536,
  }),
];

/**
 * The offline model (providers/faux.ts): replays a script, needs no key or network.
 * Listed last and never picked as a default on its own (model-resolver.ts).
 */
export const FAUX_MODELS: readonly Model<"faux">[] = [
  {
    id: "faux-1",
    name: "Faux (offline)",
    api: "faux",
    provider: "faux",
    baseUrl: "faux://local",
    reasoning: true,
    input: TEXT_AND_IMAGE,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 16_384,
  },
];

/** The hand-written part of the catalog; the other providers' models are generated (./catalog/). */
export const HAND_WRITTEN_MODELS: Readonly<Record<"anthropic" | "openai" | "google" | "faux", readonly Model[]>> = {
  anthropic: ANTHROPIC_MODELS,
  openai: OPENAI_MODELS,
  google: GOOGLE_MODELS,
  faux: FAUX_MODELS,
};

/**
 * The model picked for a provider when no model is named: a capable everyday model
 * rather than the newest and most expensive one. The generated providers name theirs
 * in the provider index; one missing from the data falls back to the provider's first.
 */
export const DEFAULT_MODEL_IDS: Readonly<Record<string, string>> = {
  anthropic: "claude-sonnet-4-6",
  openai: "gpt-5.1",
  google: "gemini-2.5-pro",
  faux: "faux-1",
  ...Object.fromEntries(
    (CATALOG_PROVIDERS as readonly CatalogProviderInfo[]).flatMap((provider) => (provider.defaultModel ? [[provider.id, provider.defaultModel]] : [])),
  ),
};
