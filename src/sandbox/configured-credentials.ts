/**
 * The environment variables models.json reads credentials from: `"apiKey": "$CORP_KEY"`,
 * `"${TOKEN}"` inside a header, or pi 0.73.1's bare `"CORP_KEY"` (when that variable is
 * set). They are credentials xcsh uses, so commands do not get them either, whatever
 * their names. Read loosely: the registry reports a broken file; here it yields nothing.
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

/** The same, read from the file (missing or broken: none). */
export function credentialVariablesInFile(path: string): string[] {
  try {
    return credentialVariablesIn(readJsonFile(path));
  } catch {
    return [];
  }
}
