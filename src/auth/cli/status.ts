/**
 * `xcsh auth status [provider]`: where each provider's credential comes from, in the
 * order xcsh looks (auth.json, models.json, the environment — `--api-key` is per run),
 * which one is used, and how long a signed-in token has left. Never a key or token:
 * only where it is and what kind it is. Runs no key command and makes no request.
 */
import { CATALOG_PROVIDERS } from "../../ai/catalog/providers.ts";
import { AMBIENT_CREDENTIAL, credentialHint, findEnvKeys, getEnvApiKey } from "../../ai/env-api-keys.ts";
import { authFileMode } from "../auth-file.ts";
import type { AuthStore } from "../auth-store.ts";
import { signInProvider, SIGN_IN_PROVIDERS } from "../signin/providers.ts";

interface Source {
  where: "auth.json" | "models.json" | "environment";
  text: string;
  usable: boolean;
}

export function renderStatus(store: AuthStore, modelsJsonKeys: ReadonlySet<string>, only: string | undefined): { text: string; found: boolean } {
  const lines: string[] = [];
  let fileProblem: string | undefined;
  let stored: string[] = [];
  try {
    const content = store.read();
    stored = [...content.entries.keys()];
  } catch (error) {
    fileProblem = (error as Error).message;
  }
  const mode = fileMode(store.path);
  lines.push(`auth.json: ${store.path}${mode === undefined ? " (none yet)" : ` (mode ${mode.toString(8).padStart(4, "0")})`}`);
  if (mode !== undefined && (mode & 0o077) !== 0) {
    lines.push(`  warning: others can read it; run \`chmod 600 ${store.path}\` (xcsh writes it 0600 on its next change)`);
  }
  if (fileProblem) lines.push(`  error: ${fileProblem}`);

  const providers = only !== undefined ? [only] : candidates(stored, modelsJsonKeys);
  let found = false;
  for (const provider of providers) {
    const sources = sourcesOf(store, provider, modelsJsonKeys);
    const used = sources.find((source) => source.usable);
    if (used) found = true;
    if (sources.length === 0) {
      lines.push(`${provider}: no credential. ${howToAdd(provider)}`);
      continue;
    }
    const others = sources.filter((source) => source !== used);
    const rest = others.length > 0 ? `; also ${others.map((source) => source.text).join(", ")}${used ? ` (not used: ${used.where} comes first)` : ""}` : "";
    lines.push(`${provider}: ${used ? used.text : "no usable credential"}${rest}`);
  }
  if (providers.length === 0) lines.push(`No credentials. Sign in with \`xcsh auth login <provider>\` (${SIGN_IN_PROVIDERS.map((p) => p.id).join(", ")}, or any API-key provider), or set a provider's key variable.`);
  return { text: `${lines.join("\n")}\n`, found: only === undefined || found };
}

/** Providers with anything configured: stored ones first, then models.json keys, then set variables. */
function candidates(stored: string[], modelsJsonKeys: ReadonlySet<string>): string[] {
  // MCP servers' sign-ins (`mcp:<url>`, src/mcp/oauth-provider.ts) are no provider's credential.
  const names = [...stored.filter((key) => !key.startsWith("mcp:")), ...modelsJsonKeys];
  // findEnvKeys, not the catalog's list alone: Anthropic's ANTHROPIC_AUTH_TOKEN / ANTHROPIC_OAUTH_TOKEN count too.
  for (const provider of CATALOG_PROVIDERS) if ((findEnvKeys(provider.id) ?? provider.envKeys).some((name) => process.env[name])) names.push(provider.id);
  // Bedrock and Vertex also run on their cloud's own credentials (an AWS profile, Google's ADC).
  for (const provider of CATALOG_PROVIDERS) if (getEnvApiKey(provider.id) === AMBIENT_CREDENTIAL) names.push(provider.id);
  return [...new Set(names)];
}

function sourcesOf(store: AuthStore, provider: string, modelsJsonKeys: ReadonlySet<string>): Source[] {
  const sources: Source[] = [];
  const stored = storedSource(store, provider);
  if (stored) sources.push(stored);
  if (modelsJsonKeys.has(provider)) sources.push({ where: "models.json", text: `"apiKey" in models.json`, usable: true });
  for (const name of findEnvKeys(provider) ?? []) {
    if (process.env[name]) sources.push({ where: "environment", text: `${name} set in the environment`, usable: true });
  }
  if (sources.length === 0 && getEnvApiKey(provider) === AMBIENT_CREDENTIAL) {
    sources.push({ where: "environment", text: "the cloud's own credentials in the environment", usable: true });
  }
  return sources;
}

function storedSource(store: AuthStore, provider: string): Source | undefined {
  let credential;
  try {
    credential = store.get(provider);
  } catch (error) {
    return { where: "auth.json", text: `a malformed entry in auth.json (${(error as Error).message})`, usable: false };
  }
  if (!credential) return undefined;
  if (credential.type === "api_key") {
    const key = credential.key?.trim();
    if (!key) {
      // Bedrock and Vertex need no key when the entry's `env` names their cloud's credentials (a profile, keys, a project).
      const cloud = credential.env && getEnvApiKey(provider, credential.env) !== undefined && getEnvApiKey(provider) === undefined;
      if (cloud) return { where: "auth.json", text: "credentials in the env of its auth.json entry", usable: true };
      return { where: "auth.json", text: "an auth.json entry without a key", usable: false };
    }
    const kind = key.startsWith("!") ? "an API key command" : key.includes("$") ? "an API key from variables" : "an API key";
    return { where: "auth.json", text: `${kind} in auth.json`, usable: true };
  }
  const signIn = signInProvider(provider);
  if (!signIn) {
    const note = provider === "anthropic" ? " (a Claude subscription sign-in, which xcsh does not use: Anthropic takes an API key)" : "";
    return { where: "auth.json", text: `an OAuth sign-in in auth.json that xcsh cannot use${note}`, usable: false };
  }
  return { where: "auth.json", text: `signed in to ${signIn.name} (${tokenLife(credential.expires)})`, usable: true };
}

function tokenLife(expires: number): string {
  const left = expires - Date.now();
  if (left <= 0) return `token expired ${duration(-left)} ago; refreshed on next use`;
  return `token valid for ${duration(left)}`;
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return "less than a minute";
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

function howToAdd(provider: string): string {
  if (signInProvider(provider)) return `Run \`xcsh auth login ${provider}\`.`;
  const vars = credentialHint(provider);
  return `Run \`xcsh auth login ${provider}\`${vars ? ` or set ${vars}` : ""}.`;
}

function fileMode(path: string): number | undefined {
  const mode = authFileMode(path);
  return mode === undefined ? undefined : mode & 0o777;
}
