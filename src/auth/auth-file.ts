/**
 * auth.json in the config root: the credentials xcsh stores, one per provider, in pi's
 * shape so a pi user's file works when copied over:
 *
 *   { "groq":           { "type": "api_key", "key": "gsk_…" | "!command" | "$VAR", "env": { … } },
 *     "github-copilot": { "type": "oauth", "access": "…", "refresh": "…", "expires": <ms>, … } }
 *
 * This module reads and writes the file and nothing else. Reading checks each entry on
 * its own: a bad entry is an error for its provider only (naming the provider, the field
 * and the file), the other providers keep working. Writing is atomic (a private temp file
 * renamed over the old one) and leaves the file mode 0600 whatever it was before; callers
 * that read-modify-write hold the lock of auth-lock.ts around it.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Static, TSchema } from "typebox";
import { Type } from "../schema/type.ts";
import { ConfigError } from "../files/errors.ts";
import { assertMatchesSchema, readJsonFile } from "../files/json-file.ts";
import { getAgentDir } from "../files/paths.ts";
import { writePrivateFileAtomically } from "../files/private-files.ts";

const ApiKeyCredentialSchema = Type.Object({
  type: Type.Literal("api_key"),
  key: Type.Optional(Type.String()),
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
});

/** Other fields (accountId, enterpriseUrl, …) are the provider's and are kept as they are. */
const OAuthCredentialSchema = Type.Object({
  type: Type.Literal("oauth"),
  access: Type.String(),
  refresh: Type.String(),
  expires: Type.Number(),
});

export type ApiKeyCredential = Static<typeof ApiKeyCredentialSchema>;
export type OAuthCredential = Static<typeof OAuthCredentialSchema> & Record<string, unknown>;
export type Credential = ApiKeyCredential | OAuthCredential;

/** What auth.json holds: the credentials that passed their check, and why the others did not. */
export interface AuthFileContent {
  /** Every entry as it is in the file, valid or not, in file order (what a rewrite keeps). */
  entries: Map<string, unknown>;
  credentials: Map<string, Credential>;
  /** provider → the error its entry gives when used (the file and field named). */
  invalid: Map<string, ConfigError>;
}

const HINT = "Fix auth.json, or run `xcsh auth logout <provider>` and sign in again.";

export function getAuthJsonPath(): string {
  return join(getAgentDir(), "auth.json");
}

/**
 * The file's credentials; an empty content when it does not exist. Throws ConfigError
 * when the file as a whole is unusable (not JSON, not an object).
 */
export function readAuthFile(path: string): AuthFileContent {
  const content: AuthFileContent = { entries: new Map(), credentials: new Map(), invalid: new Map() };
  const raw = readJsonFile(path, HINT);
  if (raw === undefined) return content;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(path, "expected an object with one entry per provider", HINT);
  }
  for (const [provider, entry] of Object.entries(raw)) {
    content.entries.set(provider, entry);
    try {
      content.credentials.set(provider, checkedCredential(provider, entry, path));
    } catch (error) {
      content.invalid.set(provider, error as ConfigError);
    }
  }
  return content;
}

function checkedCredential(provider: string, entry: unknown, path: string): Credential {
  const type = (entry as { type?: unknown } | null)?.type;
  const schema: TSchema | undefined = type === "api_key" ? ApiKeyCredentialSchema : type === "oauth" ? OAuthCredentialSchema : undefined;
  if (!schema) throw new ConfigError(path, `${provider}.type: expected "api_key" or "oauth"`, HINT);
  // Wrapped in the provider's name, so the error's field path reads `groq.key`.
  assertMatchesSchema(Type.Object({ [provider]: schema }), { [provider]: entry }, path, HINT);
  return entry as Credential;
}

/** The JSON auth.json is written as: the entries in the given order, two-space indented. */
export function renderAuthFile(entries: ReadonlyMap<string, unknown>): string {
  return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
}

/**
 * Replaces the file atomically: the text goes to a temp file (created 0600, so the secret
 * is never readable by others, not even for a moment) in the same folder, is flushed,
 * then renamed over auth.json. A reader sees the old file or the new one, never half.
 */
export function writeAuthFile(path: string, text: string): void {
  try {
    writePrivateFileAtomically(path, text, true);
  } catch (error) {
    throw new Error(`Cannot write ${path}: ${(error as Error).message}`);
  }
}

/** The file's mode bits (0o600 …), or undefined when it does not exist. */
export function authFileMode(path: string): number | undefined {
  return statSync(path, { throwIfNoEntry: false })?.mode;
}
