/**
 * Other names of a provider. pi 1.x renamed `azure-openai-responses` to `azure`; xcsh
 * keeps its catalog id and takes the new name everywhere a user writes one (models.json
 * provider keys, auth.json keys, --provider, --model, --models, settings'
 * defaultProvider / enabledModels, a session's recorded model), so a pi 1.6.0 user's
 * files and flags mean the same. Pure data and string functions: every layer may use it.
 */

/** alias → the catalog's id. */
const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  azure: "azure-openai-responses",
};

/** The catalog's id for a provider name (the name itself when it is no alias). */
export function canonicalProvider(name: string): string;
export function canonicalProvider(name: string | undefined): string | undefined;
export function canonicalProvider(name: string | undefined): string | undefined {
  return name !== undefined && Object.hasOwn(PROVIDER_ALIASES, name) ? PROVIDER_ALIASES[name] : name;
}

/** The other names of a catalog id (to find a credential stored under one of them). */
export function providerAliases(id: string): string[] {
  return Object.entries(PROVIDER_ALIASES)
    .filter(([, canonical]) => canonical === id)
    .map(([alias]) => alias);
}

/** `azure/gpt-5` → `azure-openai-responses/gpt-5`; a pattern or an id without a provider is left as it is. */
export function canonicalModelRef(text: string): string;
export function canonicalModelRef(text: string | undefined): string | undefined;
export function canonicalModelRef(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const slash = text.indexOf("/");
  if (slash <= 0) return text;
  const provider = text.slice(0, slash);
  const canonical = canonicalProvider(provider);
  return canonical === provider ? text : `${canonical}${text.slice(slash)}`;
}
