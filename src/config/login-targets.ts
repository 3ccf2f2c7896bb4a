/**
 * What a person can sign in to or store a key for, shared by `xcsh auth login` and the
 * interactive /login: the sign-in providers (GitHub Copilot, OpenAI Codex), then every
 * provider that takes an API key — the built-in catalog's and those models.json defines.
 * Anthropic is an API-key provider only; its note says why (its terms keep Claude
 * subscriptions out of third-party tools).
 */
import { CATALOG_PROVIDERS } from "../ai/catalog/providers.ts";
import { SIGN_IN_PROVIDERS } from "../auth/signin/providers.ts";
import { loadModelsJson } from "./models-json.ts";
import { getModelsJsonPath } from "./paths.ts";

export interface LoginTarget {
  id: string;
  name: string;
  kind: "sign-in" | "api-key";
  /** Environment variables that hold the provider's key (for "or set …" advice). */
  envKeys: readonly string[];
}

export const ANTHROPIC_KEY_ONLY =
  "xcsh does not sign in with a Claude subscription: Anthropic's terms do not allow it in third-party tools. Use an API key from console.anthropic.com.";

/** Sign-in providers first, then the catalog's API-key providers, then models.json's own. */
export function loginTargets(modelsJsonPath = getModelsJsonPath()): LoginTarget[] {
  const targets: LoginTarget[] = SIGN_IN_PROVIDERS.map((provider) => ({ id: provider.id, name: provider.name, kind: "sign-in", envKeys: [] }));
  // A provider that signs in and takes a key (OpenAI) is offered both ways.
  const taken = new Set(SIGN_IN_PROVIDERS.filter((provider) => !provider.alsoTakesApiKeys).map((provider) => provider.id));
  for (const provider of CATALOG_PROVIDERS) {
    if (taken.has(provider.id)) continue;
    taken.add(provider.id);
    targets.push({ id: provider.id, name: provider.name, kind: "api-key", envKeys: provider.envKeys });
  }
  for (const name of modelsJsonProviderNames(modelsJsonPath)) {
    if (taken.has(name)) continue;
    taken.add(name);
    targets.push({ id: name, name, kind: "api-key", envKeys: [] });
  }
  return targets;
}

export function loginTarget(id: string, modelsJsonPath?: string): LoginTarget | undefined {
  return loginTargets(modelsJsonPath).find((target) => target.id === id);
}

function modelsJsonProviderNames(path: string): string[] {
  try {
    return Object.keys(loadModelsJson(path).providers);
  } catch {
    return []; // A broken models.json does not stop storing a key for a catalog provider.
  }
}
