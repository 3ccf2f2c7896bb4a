/**
 * The environment variables the configuration reads credentials from: models.json's
 * `"apiKey": "$CORP_KEY"`, `"${TOKEN}"` inside a header, or pi 0.73.1's bare `"CORP_KEY"`
 * (when that variable is set); auth.json's `"key": "$GROQ_SECRET"`. They are credentials
 * xcsh uses, so commands do not get them either, whatever their names. Read loosely: the
 * registry reports a broken file; here it yields nothing.
 */
import { readJsonFile } from "../config/json-file.ts";

const INTERPOLATED = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function variablesIn(value: unknown, env: NodeJS.ProcessEnv, into: Set<string>): void {
  if (typeof value !== "string" || value.startsWith("!")) return;
  if (value.includes("$")) {
    // `$$` is a literal dollar: drop those pairs before looking for names.
    for (const match of value.replaceAll("$$", "").matchAll(INTERPOLATED)) into.add(match[1] ?? match[2]!);
  } else if (BARE_NAME.test(value) && env[value]) into.add(value);
}

/** Variable names the providers of a parsed models.json take keys and header values from. */
export function credentialVariablesIn(modelsJson: unknown, env: NodeJS.ProcessEnv = process.env): string[] {
  const names = new Set<string>();
  const providers = isRecord(modelsJson) && isRecord(modelsJson.providers) ? modelsJson.providers : {};
  for (const provider of Object.values(providers)) {
    if (!isRecord(provider)) continue;
    variablesIn(provider.apiKey, env, names);
    const headerSets = [provider.headers, ...(Array.isArray(provider.models) ? provider.models.map((model) => (isRecord(model) ? model.headers : undefined)) : [])];
    for (const headers of headerSets) if (isRecord(headers)) for (const value of Object.values(headers)) variablesIn(value, env, names);
  }
  return [...names];
}

/**
 * Variable names the `key` of parsed auth.json entries take from the environment. A stored
 * key names variables only as `$NAME` / `${NAME}` (a bare name is the key itself, `!…` a
 * command). A name the entry's own `env` object also sets is still counted: the process's
 * variable of that name is its fallback. The `env` object's values are literals.
 */
export function credentialVariablesInAuth(authJson: unknown): string[] {
  const names = new Set<string>();
  if (!isRecord(authJson)) return [];
  for (const entry of Object.values(authJson)) {
    if (!isRecord(entry) || typeof entry.key !== "string" || entry.key.startsWith("!")) continue;
    // `$$` and `$!` are a literal dollar and bang there: drop those pairs first.
    for (const match of entry.key.replaceAll("$$", "").replaceAll("$!", "").matchAll(INTERPOLATED)) names.add(match[1] ?? match[2]!);
  }
  return [...names];
}

/** The same, read from auth.json (missing or broken: none; a missing file costs one stat). */
export function credentialVariablesInAuthFile(path: string): string[] {
  try {
    return credentialVariablesInAuth(readJsonFile(path));
  } catch {
    return [];
  }
}
