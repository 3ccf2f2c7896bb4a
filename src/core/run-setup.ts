/**
 * Everything a run needs before the first model call: settings, the model
 * registry, the chosen model and thinking level, and the credentials for it.
 * Shared by every mode so they fail the same way, with the same messages.
 */
import type { Model, ModelThinkingLevel } from "../ai/types.ts";
import { ModelRegistry } from "../config/model-registry.ts";
import { resolveModel } from "../config/model-resolver.ts";
import { loadSettings, type Settings } from "../config/settings.ts";
import { getModelsJsonPath } from "../config/paths.ts";
import { findEnvKeys } from "../ai/env-api-keys.ts";
import { UserError } from "./user-error.ts";

export interface RunSetupOptions {
  cwd: string;
  provider?: string;
  model?: string;
  thinking?: string;
  apiKey?: string;
}

export interface RunSetup {
  settings: Settings;
  registry: ModelRegistry;
  model: Model;
  thinkingLevel: ModelThinkingLevel;
  apiKey: string;
  headers?: Record<string, string>;
  /** Something the user should know but that does not stop the run (a clamped thinking level). */
  warnings: string[];
}

export async function prepareRun(options: RunSetupOptions): Promise<RunSetup> {
  const settings = loadSettings(options.cwd);
  const registry = ModelRegistry.load();
  const resolved = resolveModel(registry, {
    provider: options.provider,
    model: options.model,
    thinking: options.thinking,
    settings,
  });
  if ("error" in resolved) throw new UserError(resolved.error);
  const { model } = resolved;

  const apiKey = await registry.getApiKey(model, options.apiKey);
  if (!apiKey) {
    const envVars = findEnvKeys(model.provider);
    const how = envVars
      ? `set ${envVars.join(" or ")}, or pass --api-key`
      : `set "apiKey" for provider "${model.provider}" in ${getModelsJsonPath()}, or pass --api-key`;
    throw new UserError(`No API key for ${model.provider}/${model.id}: ${how}.`);
  }
  const headers = await registry.getHeaders(model);
  return {
    settings,
    registry,
    model,
    thinkingLevel: resolved.thinkingLevel,
    apiKey,
    headers,
    warnings: resolved.warning ? [resolved.warning] : [],
  };
}
