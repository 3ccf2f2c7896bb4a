/**
 * `xcsh auth check|print-api-key|print-bearer-token` (pi 1.6.0): what a script asks
 * before it runs xcsh, or to hand a credential to another program.
 *
 *   check               `ready` (exit 0), `not_ready` (1) or `invalid` (2) for the provider
 *                       (`--provider`, or the one `--model` names); `--json` for the
 *                       structured result, `--credentials` to emit the credential when
 *                       ready, `--no-refresh` to leave an expiring sign-in as it is.
 *   print-api-key       the provider's API key, resolved as a request would (auth.json,
 *                       then models.json's apiKey, then the environment).
 *   print-bearer-token  a stored sign-in's access token (refreshed when needed);
 *                       `--min-expiry 30m` asks for one that lives at least that long.
 *
 * Secrets go to stdout only, and only from these commands: every message on stderr names
 * the provider and the reason, never a key. Lives in cli/ because it needs the model
 * registry (config/), which auth/ must not import.
 */
import { getCatalogProviders, getProviders } from "../ai/models.ts";
import { canonicalProvider } from "../ai/provider-aliases.ts";
import { ModelRegistry } from "../config/model-registry.ts";
import { getAuthJsonPath } from "../auth/auth-file.ts";
import type { OAuthCredential } from "../auth/auth-file.ts";
import { authStoreAt, storedRequestAuth } from "../auth/credentials.ts";
import { signInProvider } from "../auth/signin/providers.ts";

export const CREDENTIAL_COMMANDS = ["check", "print-api-key", "print-bearer-token"] as const;
type CredentialCommand = (typeof CREDENTIAL_COMMANDS)[number];

export function isCredentialCommand(word: string | undefined): word is CredentialCommand {
  return (CREDENTIAL_COMMANDS as readonly string[]).includes(word ?? "");
}

interface Options {
  provider?: string;
  model?: string;
  json: boolean;
  credentials: boolean;
  refresh: boolean;
  minExpiryMs: number;
}

class UsageError extends Error {}

const USAGE = `Usage: xcsh auth check --provider <provider> | --model <provider/model> [--json] [--credentials] [--no-refresh]
       xcsh auth print-api-key --provider <provider> | --model <provider/model>
       xcsh auth print-bearer-token --provider <provider> | --model <provider/model> [--min-expiry <30m>]
`;

/** Which options each command takes (beyond --provider and --model). */
const OWN_OPTIONS: Record<CredentialCommand, readonly string[]> = {
  check: ["--json", "--credentials", "--no-refresh"],
  "print-api-key": [],
  "print-bearer-token": ["--min-expiry"],
};

export async function runCredentialCommand(command: CredentialCommand, argv: string[]): Promise<number> {
  let options: Options;
  try {
    options = parse(command, argv);
  } catch (error) {
    process.stderr.write(`xcsh auth ${command}: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  let registry: ModelRegistry;
  try {
    registry = ModelRegistry.load();
  } catch (error) {
    process.stderr.write(`xcsh: ${(error as Error).message}\n`);
    return 2;
  }
  const target = providerOf(options, registry);
  if (command === "check") return check(target, options, registry);
  if (!target.provider) return fail(target.reason ?? "no provider");
  if (command === "print-api-key") return printApiKey(target.provider, registry);
  return printBearerToken(target.provider, options.minExpiryMs);
}

function parse(command: CredentialCommand, argv: string[]): Options {
  const options: Options = { json: false, credentials: false, refresh: true, minExpiryMs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => {
      const given = inline ?? argv[++i];
      if (given === undefined || given === "") throw new UsageError(`${flag} needs a value`);
      return given;
    };
    if (flag === "--provider") options.provider = value();
    else if (flag === "--model") options.model = value();
    else if (!OWN_OPTIONS[command].includes(flag)) throw new UsageError(`unknown option ${arg}`);
    else if (flag === "--json") options.json = true;
    else if (flag === "--credentials") options.credentials = true;
    else if (flag === "--no-refresh") options.refresh = false;
    else if (flag === "--min-expiry") options.minExpiryMs = duration(value());
  }
  if (options.provider === undefined && options.model === undefined) throw new UsageError("give --provider <provider> or --model <provider/model>");
  return options;
}

/** `90s`, `30m`, `2h`, `500ms`. */
function duration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new UsageError(`--min-expiry takes a duration such as 30m, 90s or 2h (got "${text}")`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
}

interface Target {
  provider?: string;
  /** When no provider can be had: "provider_not_found" (not ready) or "invalid_model" (invalid). */
  reason?: string;
  status?: "not_ready" | "invalid";
  shown: string;
}

/** The provider the options name: --provider wins; --model gives `provider/id`, or an id some provider has. */
function providerOf(options: Options, registry: ModelRegistry): Target {
  const known = new Set<string>([...registry.getProviders(), ...getProviders(), ...getCatalogProviders().map((provider) => provider.id)]);
  // pi 1.x's `azure` is the catalog's `azure-openai-responses` (provider-aliases.ts).
  let provider = canonicalProvider(options.provider);
  if (provider === undefined && options.model !== undefined) {
    const slash = options.model.indexOf("/");
    const prefix = slash > 0 ? canonicalProvider(options.model.slice(0, slash)) : undefined;
    if (prefix !== undefined && known.has(prefix)) provider = prefix;
    else {
      const byId = registry.getAll().find((model) => model.id === options.model);
      if (!byId) return { status: "invalid", reason: "invalid_model", shown: options.model };
      provider = byId.provider;
    }
  }
  if (!known.has(provider!)) return { status: "not_ready", reason: "provider_not_found", shown: provider! };
  return { provider, shown: provider! };
}

interface CheckResult {
  status: "ready" | "not_ready" | "invalid";
  provider: string;
  authType?: "api_key" | "oauth";
  reason?: string;
  message?: string;
  credentials?: string;
}

const EXIT = { ready: 0, not_ready: 1, invalid: 2 } as const;

async function check(target: Target, options: Options, registry: ModelRegistry): Promise<number> {
  const result: CheckResult = target.provider ? await resolveForCheck(target.provider, options, registry) : { status: target.status!, provider: target.shown, reason: target.reason };
  if (!options.credentials) delete result.credentials;
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    process.stdout.write(`${result.status === "ready" && result.credentials !== undefined ? result.credentials : result.status}\n`);
    if (result.message) process.stderr.write(`xcsh: ${result.message}\n`);
  }
  return EXIT[result.status];
}

async function resolveForCheck(provider: string, options: Options, registry: ModelRegistry): Promise<CheckResult> {
  const store = authStoreAt(getAuthJsonPath());
  try {
    const stored = store.get(provider);
    if (stored?.type === "oauth") {
      // A sign-in xcsh has no flow for (a Claude subscription copied from pi) serves no request here.
      if (!signInProvider(provider)) return { status: "not_ready", provider, reason: "sign_in_not_supported", message: `xcsh cannot use the sign-in stored for provider "${provider}"; set an API key instead` };
      const token = options.refresh ? await bearerToken(provider, 0) : (stored as OAuthCredential).access;
      return token ? { status: "ready", provider, authType: "oauth", credentials: token } : { status: "not_ready", provider, reason: "credentials_not_configured" };
    }
    const key = await apiKeyOrNothing(provider, registry);
    return key ? { status: "ready", provider, authType: "api_key", credentials: key } : { status: "not_ready", provider, reason: "credentials_not_configured" };
  } catch (error) {
    return { status: "invalid", provider, reason: "credential_error", message: (error as Error).message };
  }
}

/** The API key a request would use; undefined when none is configured (a sign-in provider's "not signed in" included). */
async function apiKeyOrNothing(provider: string, registry: ModelRegistry): Promise<string | undefined> {
  try {
    return (await registry.getApiKey({ provider })) || undefined;
  } catch (error) {
    if (signInProvider(provider) && !authStoreAt(getAuthJsonPath()).has(provider)) return undefined;
    throw error;
  }
}

/**
 * A stored sign-in's access token living at least `minExpiryMs` more: refreshed through
 * the provider's sign-in when xcsh has one; a sign-in xcsh cannot refresh (copied from
 * pi) is used while it lasts. Undefined when auth.json holds no sign-in for the provider.
 */
async function bearerToken(provider: string, minExpiryMs: number): Promise<string | undefined> {
  const store = authStoreAt(getAuthJsonPath());
  const stored = store.get(provider);
  if (stored?.type !== "oauth") return undefined;
  const signIn = signInProvider(provider);
  if (signIn && minExpiryMs === 0) return (await storedRequestAuth(store, provider))?.apiKey;
  const lastsLongEnough = (credential: OAuthCredential) => Date.now() + Math.max(minExpiryMs, signIn?.refreshMarginMs ?? 0) < credential.expires;
  if (signIn) {
    const fresh = await store.freshOAuth(provider, lastsLongEnough, async (expiring) => (await signIn.loadFlow()).refresh(expiring, AbortSignal.timeout(15_000)));
    if (fresh && lastsLongEnough(fresh)) return signIn.requestAuth(fresh).apiKey;
    throw new Error(`the ${signIn.name} sign-in of provider "${provider}" does not last ${minExpiryMs / 60_000} more minutes, even after a refresh`);
  }
  const credential = stored as OAuthCredential;
  if (lastsLongEnough(credential)) return credential.access;
  throw new Error(`the sign-in of provider "${provider}" in ${store.path} ${credential.expires <= Date.now() ? "has expired" : "expires too soon"}, and xcsh cannot refresh it; sign in again`);
}

async function printApiKey(provider: string, registry: ModelRegistry): Promise<number> {
  try {
    if (authStoreAt(getAuthJsonPath()).get(provider)?.type === "oauth") return fail(`provider "${provider}" is configured with a sign-in (OAuth), not an API key; use xcsh auth print-bearer-token`);
    const key = await apiKeyOrNothing(provider, registry);
    if (!key) return fail(`no API key is configured for provider "${provider}" (auth.json, models.json or its environment variable)`);
    // The one place a key is written out: on purpose, to stdout, nowhere else.
    process.stdout.write(`${key}\n`);
    return 0;
  } catch (error) {
    return fail((error as Error).message);
  }
}

async function printBearerToken(provider: string, minExpiryMs: number): Promise<number> {
  try {
    const token = await bearerToken(provider, minExpiryMs);
    if (!token) return fail(`provider "${provider}" has no sign-in (OAuth bearer token) in auth.json`);
    process.stdout.write(`${token}\n`);
    return 0;
  } catch (error) {
    return fail((error as Error).message);
  }
}

function fail(message: string): number {
  process.stderr.write(`xcsh: ${message}\n`);
  return 1;
}
