/**
 * Everything a run needs before the first model call: settings, the model
 * registry, the chosen model and thinking level, and a check that a key exists.
 * Shared by every mode so they fail the same way, with the same messages.
 */
import { resolve } from "node:path";
import { credentialHint, findEnvKeys } from "../ai/env-api-keys.ts";
import { getProvidersToOffer } from "../ai/models.ts";
import { loginCommand } from "../auth/signin/providers.ts";
import { clampThinkingLevel, isThinkingLevel } from "../ai/thinking.ts";
import type { Model, ModelThinkingLevel } from "../ai/types.ts";
import { ModelRegistry } from "../config/model-registry.ts";
import { resolveModel, scopeModels } from "../config/model-resolver.ts";
import { getModelsJsonPath } from "../config/paths.ts";
import { applyHttpProxySetting, loadSettingsWithTrust, type Settings } from "../config/settings.ts";
import { takeConfigWarnings } from "../config/unknown-keys.ts";
import { allToolNames, type ToolName } from "../tools/index.ts";
import { CODEMODE_TOOL_NAME } from "../codemode/index.ts";
import { TOOL_SEARCH_NAME } from "./tool-search.ts";
import { setCommandPolicy } from "../sandbox/active-policy.ts";
import { noteCredentialVariables } from "../sandbox/child-environment.ts";
import { credentialVariablesIn, credentialVariablesInAuthFile } from "../sandbox/configured-credentials.ts";
import { assertSandboxAvailable } from "../sandbox/launcher.ts";
import { resolveCommandPolicy, type CommandPolicy } from "../sandbox/policy.ts";
import { UserError } from "./user-error.ts";
import { toolEntryName } from "./tool-selection.ts";

export interface RunSetupOptions {
  cwd: string;
  provider?: string;
  model?: string;
  thinking?: string;
  apiKey?: string;
  /** false: start without a key (RPC hosts may pick another model); the provider reports it on use. */
  requireApiKey?: boolean;
  /**
   * The terminal UI's first start: with no key configured anywhere, open on the first
   * offered provider's everyday model anyway, so the person can type /login there.
   */
  openWithoutAnyKey?: boolean;
  /** A registry prepared earlier (extensions registered providers into it); loaded from models.json otherwise. */
  registry?: ModelRegistry;
  /** Whether the project's trust-gated settings apply (PROJECT_KEYS_NEEDING_TRUST); undefined: they do not. */
  projectTrusted?: boolean;
  /** --sandbox: off, read-only or workspace-write; wins over settings' `sandbox.mode`. */
  sandbox?: string;
  /**
   * --models: model patterns for startup and cycling, in settings' `enabledModels`
   * format; they stand in for that setting for this run (never written back).
   */
  models?: readonly string[];
  /** A resumed session's model and level, used when the command line names none. */
  previous?: { model?: { provider: string; modelId: string } | null; thinkingLevel?: string };
}

export interface RunSetup {
  settings: Settings;
  registry: ModelRegistry;
  model: Model;
  thinkingLevel: ModelThinkingLevel;
  /** Something the user should know but that does not stop the run (a clamped thinking level). */
  warnings: string[];
  /** Set when the run opened with no key configured anywhere (openWithoutAnyKey): what to do about it. */
  noKeyHint?: string;
}

function chooseModel(options: RunSetupOptions, settings: Settings, registry: ModelRegistry) {
  const previousModel = options.previous?.model;
  const resumed = !options.model && !options.provider && previousModel ? registry.find(previousModel.provider, previousModel.modelId) : undefined;
  if (resumed) {
    const level = options.thinking ?? options.previous?.thinkingLevel;
    const thinkingLevel = isThinkingLevel(level) ? clampThinkingLevel(resumed, level) : clampThinkingLevel(resumed, settings.defaultThinkingLevel ?? "off");
    return { model: resumed, thinkingLevel } as { model: Model; thinkingLevel: ModelThinkingLevel; warning?: string };
  }
  const resolved = resolveModel(registry, {
    provider: options.provider,
    model: options.model,
    thinking: options.thinking,
    settings,
    ...(options.models !== undefined ? { enabledModelsSource: "--models" } : {}),
  });
  if ("error" in resolved && resolved.missingKey && options.openWithoutAnyKey) return keylessStart(registry, options, settings);
  // No key anywhere is a credentials problem (exit 3), however the model was asked for (docs/headless.md).
  if ("error" in resolved) throw new UserError(resolved.error, resolved.missingKey ? 3 : 2);
  return resolved;
}

/**
 * No key anywhere, in the terminal UI: the first offered provider's everyday model, without
 * its key, and a hint. Exiting instead would leave a new user nowhere to type /login.
 */
function keylessStart(registry: ModelRegistry, options: RunSetupOptions, settings: Settings) {
  const provider = getProvidersToOffer()[0] ?? "anthropic";
  const resolved = resolveModel(registry, { provider, thinking: options.thinking, settings });
  if ("error" in resolved) throw new UserError(resolved.error, 3);
  const variable = findEnvKeys(provider)?.[0] ?? "ANTHROPIC_API_KEY";
  const noKeyHint = `No API key yet: type /login, set a key such as ${variable}, or try offline with --provider faux.`;
  return { ...resolved, noKeyHint };
}

/**
 * --models patterns that pick no model, when the start did not go through them (--model
 * given, or a resumed session's model): cycling would silently skip them.
 */
function unmatchedModelsWarning(patterns: readonly string[], registry: ModelRegistry): string | undefined {
  const { unmatched } = scopeModels(registry.getAvailable(), patterns, (model) => registry.hasAuth(model));
  if (unmatched.length === 0) return undefined;
  return `--models: ${unmatched.map((pattern) => `"${pattern}"`).join(", ")} ${unmatched.length > 1 ? "match" : "matches"} no model with an API key.`;
}

/**
 * The key checked before a run starts. A key that cannot be resolved (a models.json
 * `${VAR}` unset, a failing `!command`) stops a run that needs one, as a credentials
 * error; a host that may pick another model (RPC) starts anyway and hears of it on use.
 */
async function startupApiKey(registry: ModelRegistry, model: Model, options: RunSetupOptions): Promise<string | undefined> {
  try {
    return await registry.getApiKey(model, options.apiKey);
  } catch (error) {
    if (options.requireApiKey === false) return undefined;
    throw new UserError((error as Error).message, 3); // exit code 3: missing credentials (docs/headless.md)
  }
}

/**
 * The faux provider's script, read and checked before anything runs: a wrong
 * path or a bad entry is a usage error at start (exit 2), not a failure at the
 * first request. The module loads only when a script is set.
 */
async function checkFauxScript(): Promise<void> {
  const file = process.env.XCSH_FAUX_SCRIPT;
  if (!file) return;
  const { fauxScriptCursor, FauxScriptError } = await import("../ai/faux-script.ts");
  try {
    fauxScriptCursor(file);
  } catch (error) {
    if (error instanceof FauxScriptError) throw new UserError(`${error.message} (--faux-script, the fauxScript setting or XCSH_FAUX_SCRIPT).`, 2);
    throw error;
  }
}

/** What the settings ask for that xcsh cannot give, found once the settings are merged. */
function settingsWarnings(settings: Settings): string[] {
  // `+name`/`-name` change the default selection (tool-selection.ts); the names are what may be missing.
  // An extension's tool is judged later, once extensions loaded: here only built-ins are known.
  const missingTools = [...new Set((settings.defaultTools ?? []).map(toolEntryName))].filter((name) => !allToolNames.has(name as ToolName) && name !== CODEMODE_TOOL_NAME && name !== TOOL_SEARCH_NAME);
  if (missingTools.length === 0) return [];
  return [`settings defaultTools: xcsh has no built-in tool ${missingTools.map((name) => `"${name}"`).join(", ")}; unless an extension provides it, it is left out and the other entries apply.`];
}

/**
 * What the programs xcsh starts may reach (src/sandbox/): set for the whole process before
 * any tool exists. A sandbox that was asked for but cannot run stops the run here, saying
 * what to install, rather than letting commands run without it.
 */
function applyCommandPolicy(settings: Settings, options: RunSetupOptions, registry: ModelRegistry): void {
  let policy: CommandPolicy;
  try {
    policy = resolveCommandPolicy(settings, options.sandbox, options.cwd);
    assertSandboxAvailable(policy.sandbox);
  } catch (error) {
    throw new UserError((error as Error).message);
  }
  setCommandPolicy(policy);
  // Variables models.json and auth.json take keys from are credentials too, whatever their names
  // (models.json as the registry already parsed it, not read again).
  noteCredentialVariables(credentialVariablesIn({ providers: registry.modelsJsonProviders }));
  noteCredentialVariables(credentialVariablesInAuthFile(registry.authJsonPath));
}

export async function prepareRun(options: RunSetupOptions): Promise<RunSetup> {
  const { settings } = loadSettingsWithTrust(options.cwd, options.projectTrusted ?? false);
  if (options.models !== undefined) settings.enabledModels = [...options.models];
  // The faux provider reads its script from the environment; --faux-script (set in main.ts) wins.
  if (settings.fauxScript && !process.env.XCSH_FAUX_SCRIPT) process.env.XCSH_FAUX_SCRIPT = resolve(options.cwd, settings.fauxScript);
  await checkFauxScript();
  applyHttpProxySetting(settings);
  const registry = options.registry ?? ModelRegistry.load();
  applyCommandPolicy(settings, options, registry);
  const chosen: { model: Model; thinkingLevel: ModelThinkingLevel; warning?: string; noKeyHint?: string } = chooseModel(options, settings, registry);
  const { model, thinkingLevel, warning, noKeyHint } = chosen;
  const scopeWarning = options.models !== undefined && (options.model !== undefined || options.previous?.model) ? unmatchedModelsWarning(options.models, registry) : undefined;

  const apiKey = await startupApiKey(registry, model, options);
  if (!apiKey && options.requireApiKey !== false && !noKeyHint) {
    const envVars = credentialHint(model.provider);
    const signIn = `run \`${loginCommand(model.provider)}\``;
    const how = envVars
      ? `set ${envVars}, ${signIn}, or pass --api-key`
      : `${signIn}, set "apiKey" for provider "${model.provider}" in ${getModelsJsonPath()}, or pass --api-key`;
    throw new UserError(`No API key for ${model.provider}/${model.id}: ${how}.`, 3); // exit code 3: missing credentials (docs/headless.md)
  }
  // Keys and headers are resolved again for every request (a `!command` may hand out short-lived tokens).
  // Unknown keys in settings.json / models.json (typos, most likely) are shown with the run's other warnings.
  return { settings, registry, model, thinkingLevel, warnings: [...takeConfigWarnings(), ...settingsWarnings(settings), ...(warning ? [warning] : []), ...(scopeWarning ? [scopeWarning] : [])], ...(noKeyHint ? { noKeyHint } : {}) };
}
