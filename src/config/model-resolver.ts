/**
 * Picks the model and thinking level for a run from `--provider`, `--model`,
 * `--thinking` and the settings.
 *
 * `--model` accepts `provider/id`, an id, or a pattern: a case-insensitive substring of
 * a model's id or name. An exact id beats any pattern match. When several models match,
 * the one from the `--provider` given wins, then one with a configured API key, then
 * the first in registry order (built-in catalog order: newest first). A `:level` suffix
 * (`sonnet:high`) sets the thinking level; it is only taken off when it *is* a thinking
 * level, so ids such as `llama3.1:8b` stay whole, and an id that matches exactly with
 * its suffix (a model really called `foo:high`) is taken as it is.
 *
 * Without `--model`: `settings.defaultProvider`/`defaultModel`, else the first model with
 * a configured key, trying anthropic, openai, google, then the other providers (never the
 * offline faux, which is only used when named). `settings.enabledModels` narrows this to
 * the models its patterns pick (scopeModels): the default model when it is among them,
 * else the first of them.
 *
 * Thinking level, first one set wins: `--thinking`, the `:level` suffix, the suffix of the
 * enabledModels pattern that picked the model, `settings.modelThinkingLevels["provider/id"]`,
 * `settings.defaultThinkingLevel`, "off". The level is then clamped to what the model
 * supports. A warning comes back when a level the user asked for on the command line
 * (flag or suffix) had to change; levels from settings or the "off" default are
 * clamped silently, since they are not about this model in particular.
 */
import { credentialHint, findEnvKeys, getEnvApiKey } from "../ai/env-api-keys.ts";
import { DEFAULT_MODEL_IDS } from "../ai/models-catalog.ts";
import { getProviders as getBuiltinProviders, getProvidersToOffer } from "../ai/models.ts";
import { clampThinkingLevel, isThinkingLevel } from "../ai/thinking.ts";
import { THINKING_LEVELS, type Model, type ModelThinkingLevel } from "../ai/types.ts";
import { loginCommand } from "../auth/signin/providers.ts";
import { canonicalModelRef, canonicalProvider } from "../ai/provider-aliases.ts";
import type { ModelRegistry } from "./model-registry.ts";
import { nearestName } from "./nearest-name.ts";
import type { Settings } from "./settings.ts";
import { SETTINGS_THINKING_LEVELS, thinkingLevelFromSettings } from "./settings-compat.ts";

export interface ResolveModelOptions {
  provider?: string;
  model?: string;
  thinking?: string;
  settings: Pick<Settings, "defaultProvider" | "defaultModel" | "defaultThinkingLevel" | "enabledModels" | "modelThinkingLevels">;
  /** Where `settings.enabledModels` came from, for warnings: "--models" when the command line set it. */
  enabledModelsSource?: string;
}

export type ResolveModelResult =
  | { model: Model; thinkingLevel: ModelThinkingLevel; warning?: string }
  | ResolveFailure;

/** Why no model: `missingKey` when the cause is that no provider has a credential (exit 3, not a usage error). */
export interface ResolveFailure {
  error: string;
  missingKey?: true;
}

/** What the resolver needs from a registry. */
export type ModelSource = Pick<ModelRegistry, "list" | "hasAuth" | "modelsJsonPath"> & Partial<Pick<ModelRegistry, "nonChatModelNamed">>;

interface Picked {
  model: Model;
  suffix?: ModelThinkingLevel;
  /** The level of the enabledModels pattern that picked the model (clamped without a warning). */
  scopeLevel?: ModelThinkingLevel;
  warning?: string;
}

export function resolveModel(registry: ModelSource, given: ResolveModelOptions): ResolveModelResult {
  // pi 1.x's provider names (`azure`) stand for the catalog's ids wherever a user writes one.
  const options = withCanonicalProviders(given);
  // Read in place; only the chosen model is copied, so a caller may change it freely.
  const models = registry.list() as Model[];
  const providers = [...new Set(models.map((model) => model.provider))];
  const hasAuth = (model: Model) => registry.hasAuth(model);

  if (options.provider !== undefined && !providers.includes(options.provider)) {
    return { error: unknownProviderMessage(options.provider, providers) };
  }
  if (options.thinking !== undefined && !isThinkingLevel(options.thinking)) {
    // "max" is accepted too (pi's name for the highest level; the command line reads it as xhigh).
    return { error: `Invalid thinking level "${options.thinking}". Use one of: ${THINKING_LEVELS.join(", ")}, max.` };
  }

  const picked = options.model
    ? matchWithinProvider(options.model, models, options.provider, hasAuth)
    : options.settings.enabledModels?.length
      ? pickFromEnabledModels(models, options, hasAuth, registry.modelsJsonPath)
      : pickDefaultModel(models, options, hasAuth, registry.modelsJsonPath);
  if ("error" in picked) {
    // A classifier or image model: say what it is rather than "unknown model".
    const named = options.model && registry.nonChatModelNamed?.(options.provider ? `${options.provider}/${options.model}` : options.model);
    return named ? { error: named } : picked;
  }

  const model = structuredClone(picked.model);
  const fromCommandLine = (options.thinking as ModelThinkingLevel | undefined) ?? picked.suffix;
  const requested =
    fromCommandLine ??
    picked.scopeLevel ??
    options.settings.modelThinkingLevels?.[`${model.provider}/${model.id}`] ??
    options.settings.defaultThinkingLevel ??
    "off";
  const thinkingLevel = clampThinkingLevel(model, requested);
  const warnings = picked.warning ? [picked.warning] : [];
  if (fromCommandLine !== undefined && thinkingLevel !== requested) {
    // Asked for the top level ("xhigh", or "max", which arrives here as "xhigh"): say what the
    // model's highest is, not a level name the person may never have typed.
    const askedForTop = requested === "xhigh" && model.reasoning && THINKING_LEVELS.indexOf(thinkingLevel) < THINKING_LEVELS.indexOf(requested);
    warnings.push(
      !model.reasoning
        ? `Model ${model.provider}/${model.id} does not support thinking; using "${thinkingLevel}".`
        : askedForTop
          ? `Model ${model.provider}/${model.id}'s highest thinking level is "${thinkingLevel}"; using it.`
          : `Model ${model.provider}/${model.id} does not support thinking level "${requested}"; using "${thinkingLevel}".`,
    );
  }
  return warnings.length > 0 ? { model, thinkingLevel, warning: warnings.join(" ") } : { model, thinkingLevel };
}

export function unknownModelMessage(text: string, knownProviders?: ReadonlySet<string>, nearest?: string): string {
  const slash = text.indexOf("/");
  const provider = slash > 0 ? text.slice(0, slash) : undefined;
  const keyless = provider && knownProviders && !knownProviders.has(provider) ? missingKeyHint(provider) : undefined;
  const guess = nearest ? ` (did you mean "${nearest}"?)` : "";
  return `Unknown model "${text}"${guess}.${keyless ? ` ${keyless}` : ""} Run xcsh --list-models to see the available models.`;
}

function unknownProviderMessage(provider: string, known: string[]): string {
  const nearest = nearestName(provider, known);
  return missingKeyHint(provider) ?? `Unknown provider "${provider}"${nearest ? ` (did you mean "${nearest}"?)` : ""}. Known providers: ${known.join(", ")}.`;
}

/**
 * What a mistyped `--model` most likely meant: a model id, `provider/id`, or a
 * word of an id ("sonet" → "sonnet", which picks the best sonnet model).
 */
function nearestModelWord(text: string, models: readonly Model[]): string | undefined {
  const words = new Set<string>();
  for (const model of models) {
    words.add(model.id);
    words.add(`${model.provider}/${model.id}`);
    for (const part of model.id.split(/[-_.:/]/)) if (part.length >= 3 && /[a-z]/i.test(part)) words.add(part);
  }
  return nearestName(text, words);
}

/** A catalog provider's models are only offered once its key is set: say which variable. */
function missingKeyHint(provider: string): string | undefined {
  const envVars = credentialHint(provider);
  if (!envVars || getEnvApiKey(provider) !== undefined) return undefined;
  return `Provider "${provider}" has no API key: set ${envVars}, run \`${loginCommand(provider)}\`, or set "apiKey" for it in models.json.`;
}

/** The options with every provider name a user wrote in the catalog's spelling (provider-aliases.ts). */
function withCanonicalProviders(options: ResolveModelOptions): ResolveModelOptions {
  const settings = options.settings;
  const levels = settings.modelThinkingLevels;
  return {
    ...options,
    provider: canonicalProvider(options.provider),
    model: canonicalModelRef(options.model),
    settings: {
      ...settings,
      defaultProvider: canonicalProvider(settings.defaultProvider),
      ...(settings.enabledModels ? { enabledModels: settings.enabledModels.map((pattern) => canonicalModelRef(pattern)) } : {}),
      ...(levels ? { modelThinkingLevels: Object.fromEntries(Object.entries(levels).map(([ref, level]) => [canonicalModelRef(ref), level])) } : {}),
    },
  };
}

/**
 * `--model` with `--provider`: only that provider's models, unless the text names another
 * provider itself ("openai/gpt-5"). Matching "sonnet" in every provider would quietly move
 * a `--provider faux` run to Anthropic (and to a key it may not have).
 */
function matchWithinProvider(text: string, models: Model[], provider: string | undefined, hasAuth: (model: Model) => boolean): Picked | { error: string } {
  if (provider === undefined) return matchModelArgument(text, models, provider, hasAuth);
  const slash = text.indexOf("/");
  const named = slash > 0 ? text.slice(0, slash) : undefined;
  if (named !== undefined && named !== provider && models.some((model) => model.provider === named)) return matchModelArgument(text, models, provider, hasAuth);
  const own = models.filter((model) => model.provider === provider);
  const picked = matchModelArgument(text, own, provider, hasAuth);
  if (!("error" in picked)) return picked;
  // A bad level, or a near miss among the provider's own models ("did you mean"), says enough.
  if (picked.error.includes("is not a thinking level") || picked.error.includes("did you mean")) return picked;
  const ids = own.map((model) => model.id);
  const shown = ids.length > 8 ? `${ids.slice(0, 8).join(", ")}, …` : ids.join(", ");
  return { error: `Provider "${provider}" has no model matching "${text}" (--provider limits --model to its models: ${shown}). Drop --provider, or give "<provider>/<model>".` };
}

/** Resolves a `--model` argument (or a settings defaultModel) to one model and an optional suffix level. */
function matchModelArgument(
  text: string,
  models: Model[],
  preferredProvider: string | undefined,
  hasAuth: (model: Model) => boolean,
): Picked | { error: string } {
  // The text as given first; then without a trailing `:level`, if it has one.
  const readings: { query: string; suffix?: ModelThinkingLevel }[] = [{ query: text }];
  const colon = text.lastIndexOf(":");
  const tail = text.slice(colon + 1);
  if (colon > 0 && isThinkingLevel(tail)) readings.push({ query: text.slice(0, colon), suffix: tail });

  const providers = new Set(models.map((model) => model.provider));
  // `provider/rest` narrows the search to that provider; the whole text is still tried
  // as an id afterwards, because ids may contain "/" (e.g. "anthropic/claude-sonnet-4").
  const scopes = (query: string) => {
    const list: { pool: Model[]; query: string }[] = [];
    const slash = query.indexOf("/");
    if (slash > 0 && providers.has(query.slice(0, slash))) {
      const provider = query.slice(0, slash);
      list.push({ pool: models.filter((model) => model.provider === provider), query: query.slice(slash + 1) });
    }
    list.push({ pool: models, query });
    return list;
  };

  for (const exact of [true, false]) {
    for (const { query, suffix } of readings) {
      for (const scope of scopes(query)) {
        const matches = scope.pool.filter((model) => (exact ? isExactMatch(model, scope.query) : isPatternMatch(model, scope.query)));
        if (matches.length > 0) return { model: choose(matches, preferredProvider, hasAuth), suffix };
      }
    }
  }
  // "faux-1:ultra": the model is there, the level is not — say that rather than "unknown model".
  if (colon > 0 && !isThinkingLevel(tail)) {
    const base = matchModelArgument(text.slice(0, colon), models, preferredProvider, hasAuth);
    if (!("error" in base)) return { error: `"${text}": "${tail}" is not a thinking level. Use one of: ${THINKING_LEVELS.join(", ")}.` };
  }
  return { error: unknownModelMessage(text, providers, nearestModelWord(text, models)) };
}

function isExactMatch(model: Model, query: string): boolean {
  return model.id.toLowerCase() === query.toLowerCase();
}

function isPatternMatch(model: Model, query: string): boolean {
  const needle = query.toLowerCase();
  return needle !== "" && (model.id.toLowerCase().includes(needle) || model.name.toLowerCase().includes(needle));
}

/** Among several matches: the preferred provider's, then an authenticated one, then registry order. */
function choose(matches: Model[], preferredProvider: string | undefined, hasAuth: (model: Model) => boolean): Model {
  const fromPreferred = matches.filter((model) => model.provider === preferredProvider);
  const pool = fromPreferred.length > 0 ? fromPreferred : matches;
  return pool.find(hasAuth) ?? pool[0];
}

function pickDefaultModel(
  models: Model[],
  options: ResolveModelOptions,
  hasAuth: (model: Model) => boolean,
  modelsJsonPath: string,
): Picked | ResolveFailure {
  const { settings } = options;

  if (options.provider !== undefined) {
    // `--provider` alone: the settings' model if it belongs to that provider, else the provider's default.
    const inProvider = models.filter((model) => model.provider === options.provider);
    const fromSettings =
      settings.defaultProvider === options.provider && settings.defaultModel
        ? inProvider.find((model) => model.id === settings.defaultModel)
        : undefined;
    return { model: fromSettings ?? providerDefault(inProvider, hasAuth) ?? providerDefault(inProvider, hasAuth, false)! };
  }

  let warning: string | undefined;
  if (settings.defaultModel) {
    const scoped = settings.defaultProvider
      ? models.filter((model) => model.provider === settings.defaultProvider)
      : models;
    const picked = matchModelArgument(settings.defaultModel, scoped, settings.defaultProvider, hasAuth);
    if (!("error" in picked)) return picked;
    const where = settings.defaultProvider ? `${settings.defaultProvider}/${settings.defaultModel}` : settings.defaultModel;
    warning = `The default model "${where}" from settings was not found.`;
  } else if (settings.defaultProvider) {
    const inProvider = models.filter((model) => model.provider === settings.defaultProvider);
    const picked = providerDefault(inProvider, hasAuth);
    if (picked) return { model: picked };
    warning = inProvider.length === 0
      ? `The default provider "${settings.defaultProvider}" from settings is unknown.`
      : `The default provider "${settings.defaultProvider}" from settings has no API key configured.`;
  }

  const model = firstAvailable(models, hasAuth);
  if (!model) return { error: noModelAvailableMessage(modelsJsonPath, warning), missingKey: true };
  return { model, warning: warning && `${warning} Using ${model.provider}/${model.id}.` };
}

/** A model settings' enabledModels picked, with the level its pattern asks for. */
export interface ScopedModel {
  model: Model;
  thinkingLevel?: ModelThinkingLevel;
}

/**
 * The models settings' `enabledModels` picks, for startup and for cycling: a pattern with
 * `*` or `?` is a glob, case-insensitive, over `provider/id` and over the id, and picks
 * every match; any other pattern picks one model as `--model` would (exact id or
 * `provider/id`, else a substring of id or name). A `:level` suffix (pi's "max" included)
 * is the level that model starts with. Models come in pattern order, each once; patterns
 * that pick nothing are returned apart, for a warning.
 */
export function scopeModels(models: readonly Model[], patterns: readonly string[], hasAuth: (model: Model) => boolean = () => true): { scoped: ScopedModel[]; unmatched: string[] } {
  const scoped: ScopedModel[] = [];
  const unmatched: string[] = [];
  const add = (model: Model, thinkingLevel: ModelThinkingLevel | undefined) => {
    if (scoped.some((entry) => entry.model.provider === model.provider && entry.model.id === model.id)) return;
    scoped.push(thinkingLevel === undefined ? { model } : { model, thinkingLevel });
  };
  for (const pattern of patterns.map((given) => canonicalModelRef(given))) {
    const { query, level } = splitLevelSuffix(pattern.trim());
    if (query === "") continue;
    if (query.includes("*") || query.includes("?")) {
      const glob = new Bun.Glob(query.toLowerCase());
      const matches = models.filter((model) => glob.match(`${model.provider}/${model.id}`.toLowerCase()) || glob.match(model.id.toLowerCase()));
      for (const model of matches) add(model, level);
      if (matches.length === 0) unmatched.push(pattern);
      continue;
    }
    // The whole text first, so an id that ends in ":high" is still found; then without the suffix.
    const whole = matchModelArgument(pattern.trim(), models as Model[], undefined, hasAuth);
    const picked = "error" in whole && level !== undefined ? matchModelArgument(query, models as Model[], undefined, hasAuth) : whole;
    if ("error" in picked) unmatched.push(pattern);
    else add(picked.model, picked === whole ? picked.suffix : level);
  }
  return { scoped, unmatched };
}

function splitLevelSuffix(text: string): { query: string; level?: ModelThinkingLevel } {
  const colon = text.lastIndexOf(":");
  const tail = text.slice(colon + 1);
  if (colon > 0 && SETTINGS_THINKING_LEVELS.includes(tail)) return { query: text.slice(0, colon), level: thinkingLevelFromSettings(tail) };
  return { query: text };
}

/**
 * Startup with `enabledModels`: the settings' default model when the patterns pick it,
 * else the first model they pick; without any, the usual default with a warning.
 */
function pickFromEnabledModels(
  models: Model[],
  options: ResolveModelOptions,
  hasAuth: (model: Model) => boolean,
  modelsJsonPath: string,
): Picked | { error: string } {
  const found = scopeModels(models.filter(hasAuth), options.settings.enabledModels ?? [], hasAuth);
  const { unmatched } = found;
  // --provider narrows the scope to that provider's models (pi 0.87.1).
  const scoped = options.provider === undefined ? found.scoped : found.scoped.filter(({ model }) => model.provider === options.provider);
  const warning =
    unmatched.length > 0
      ? `${options.enabledModelsSource ?? "settings enabledModels"}: ${unmatched.map((pattern) => `"${pattern}"`).join(", ")} ${unmatched.length > 1 ? "match" : "matches"} no model with an API key.`
      : undefined;
  const withWarning = (picked: Picked): Picked => {
    const warnings = [warning, picked.warning].filter((text) => text !== undefined);
    return warnings.length > 0 ? { ...picked, warning: warnings.join(" ") } : picked;
  };
  if (scoped.length === 0) {
    const fallback = pickDefaultModel(models, options, hasAuth, modelsJsonPath);
    return "error" in fallback ? fallback : withWarning(fallback);
  }
  if (options.settings.defaultModel) {
    const preferred = pickDefaultModel(models, options, hasAuth, modelsJsonPath);
    const entry = "error" in preferred ? undefined : scoped.find(({ model }) => model.provider === preferred.model.provider && model.id === preferred.model.id);
    if (entry) return withWarning({ model: entry.model, scopeLevel: entry.thinkingLevel });
  }
  return withWarning({ model: scoped[0].model, scopeLevel: scoped[0].thinkingLevel });
}

/**
 * A provider's everyday model (DEFAULT_MODEL_IDS), else its first model; only among
 * models with a configured key unless `requireAuth` is false.
 */
function providerDefault(inProvider: Model[], hasAuth: (model: Model) => boolean, requireAuth = true): Model | undefined {
  const pool = requireAuth ? inProvider.filter(hasAuth) : inProvider;
  const preferredId = (DEFAULT_MODEL_IDS as Record<string, string | undefined>)[pool[0]?.provider ?? ""];
  return pool.find((model) => model.id === preferredId) ?? pool[0];
}

/**
 * Providers only used when named: the offline faux model always "has a key", and
 * answering a real prompt with its canned reply would hide a missing API key.
 */
const NEVER_DEFAULT_PROVIDERS = new Set(["faux"]);

/** The first provider with a configured key, trying anthropic, openai, google, then the rest in order. */
function firstAvailable(models: Model[], hasAuth: (model: Model) => boolean): Model | undefined {
  // Grouped in one pass: filtering the whole catalog once per provider ran a callback
  // often enough at start-up for JavaScriptCore's optimizing compiler to step in (~2 MiB).
  const byProvider = new Map<string, Model[]>();
  for (const model of models) {
    if (NEVER_DEFAULT_PROVIDERS.has(model.provider)) continue;
    const group = byProvider.get(model.provider);
    if (group) group.push(model);
    else byProvider.set(model.provider, [model]);
  }
  const builtins: string[] = getBuiltinProviders();
  const order = [...builtins.filter((provider) => byProvider.has(provider)), ...[...byProvider.keys()].filter((provider) => !builtins.includes(provider))];
  for (const provider of order) {
    const picked = providerDefault(byProvider.get(provider)!, hasAuth);
    if (picked) return picked;
  }
  return undefined;
}

function noModelAvailableMessage(modelsJsonPath: string, warning: string | undefined): string {
  // The providers offered without a key set: the other catalog providers' variables are in --list-models.
  const envVars = getProvidersToOffer().map((provider) => findEnvKeys(provider)?.[0]).filter((name) => name !== undefined);
  const list = envVars.length > 1 ? `${envVars.slice(0, -1).join(", ")} or ${envVars.at(-1)}` : envVars.join("");
  const advice = `No model available: no API key is configured. Set ${list}, or add a provider with an "apiKey" to ${modelsJsonPath}. To try xcsh without a key: xcsh --provider faux.`;
  return warning ? `${warning} ${advice}` : advice;
}
