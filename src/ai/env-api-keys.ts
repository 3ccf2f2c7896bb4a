/**
 * API keys from the environment: each provider of the catalog's index names its
 * variables (pi's names), so a key set for any of them is found without models.json.
 */
import { canonicalProvider } from "./provider-aliases.ts";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { CATALOG_PROVIDERS, TYPED_ONLY_PROVIDERS } from "./catalog/providers.ts";
import { processEnv, providerEnvReader, type EnvReader } from "./providers/provider-env.ts";

/** Environment variables that hold API keys, by provider, as shown to the user (the usual one first). */
const ENV_KEYS: ReadonlyMap<string, readonly string[]> = new Map([...CATALOG_PROVIDERS, ...TYPED_ONLY_PROVIDERS].map((provider) => [provider.id, provider.envKeys]));

/**
 * Anthropic's token variables, as pi 0.87.1 reads them. ANTHROPIC_AUTH_TOKEN is a bearer
 * token (sent as `Authorization: Bearer`, without `x-api-key`: what gateways in front of
 * Claude expect) and wins over the key variables; ANTHROPIC_OAUTH_TOKEN is a key like
 * ANTHROPIC_API_KEY and wins over it.
 */
const ANTHROPIC_AUTH_TOKEN = "ANTHROPIC_AUTH_TOKEN";
const EXTRA_ENV_KEYS: Record<string, readonly string[]> = { anthropic: ["ANTHROPIC_OAUTH_TOKEN", ANTHROPIC_AUTH_TOKEN] };
/** Where the order of preference differs from the order shown. */
const PREFERENCE: Record<string, readonly string[]> = { anthropic: [ANTHROPIC_AUTH_TOKEN, "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"] };

/**
 * Providers that run in this process and need no credential. Their "key" is this
 * placeholder, so every check for a key (registry, run setup, providers) passes.
 */
const KEYLESS_PROVIDERS: Record<string, string> = {
  faux: "faux",
};

/**
 * The key that stands for a cloud's own credentials (pi's placeholder): the provider
 * finds them itself (AWS keys or profile, Google's Application Default Credentials).
 */
export const AMBIENT_CREDENTIAL = "<authenticated>";

/** Google's Application Default Credentials: a key file named by the variable, or gcloud's own. */
function hasGoogleAdc(env: EnvReader): boolean {
  const file = env("GOOGLE_APPLICATION_CREDENTIALS") ?? join(homedir(), ".config", "gcloud", "application_default_credentials.json");
  return existsSync(file);
}

/**
 * Providers reachable without a key, through their cloud's credentials, and how to say
 * what is missing. The variables are pi's; none of them is read at start-up beyond
 * this presence check.
 */
const AMBIENT: Record<string, { present(env: EnvReader): boolean; howToSet: string }> = {
  "amazon-bedrock": {
    present: (env) =>
      Boolean(
        env("AWS_PROFILE") ||
          (env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) ||
          env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") ||
          env("AWS_CONTAINER_CREDENTIALS_FULL_URI") ||
          env("AWS_WEB_IDENTITY_TOKEN_FILE") ||
          env("AWS_BEDROCK_SKIP_AUTH") === "1",
      ),
    howToSet: "AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN for temporary keys), or AWS_BEARER_TOKEN_BEDROCK",
  },
  "google-vertex": {
    present: (env) => Boolean((env("GOOGLE_CLOUD_PROJECT") || env("GCLOUD_PROJECT")) && env("GOOGLE_CLOUD_LOCATION") && hasGoogleAdc(env)),
    howToSet: "GOOGLE_CLOUD_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION with Application Default Credentials (gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS)",
  },
};

/** The variables the cloud providers' own credentials are found by (tests clear them for a clean slate). */
export const AMBIENT_CREDENTIAL_VARIABLES: readonly string[] = [
  "AWS_PROFILE",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "AWS_BEDROCK_SKIP_AUTH",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_ROLE_ARN",
  "AWS_ENDPOINT_URL_STS",
  "AWS_CONFIG_FILE",
  "GOOGLE_CLOUD_PROJECT",
  "GCLOUD_PROJECT",
  "GOOGLE_CLOUD_LOCATION",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_OPENAI_BASE_URL",
  "AZURE_OPENAI_RESOURCE_NAME",
  "AZURE_OPENAI_API_VERSION",
  "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
];

/** What to set for a provider's credential, as one phrase ("A or B"); undefined for providers the catalog does not know. */
export function credentialHint(provider: string): string | undefined {
  if (Object.hasOwn(AMBIENT, provider)) return AMBIENT[provider].howToSet;
  return findEnvKeys(provider)?.join(" or ");
}

export function findEnvKeys(given: string): string[] | undefined {
  const provider = canonicalProvider(given);
  const names = ENV_KEYS.get(provider);
  return names ? [...new Set([...names, ...(EXTRA_ENV_KEYS[provider] ?? [])])] : undefined;
}

/**
 * The API key for a known provider from its environment variable (a placeholder for keyless
 * ones), if set. `env` (pi-ai's argument: the `env` of the provider's auth.json entry) is
 * looked in before the process environment.
 */
export function getEnvApiKey(given: string, env?: Readonly<Record<string, string>>): string | undefined {
  const provider = canonicalProvider(given);
  if (Object.hasOwn(KEYLESS_PROVIDERS, provider)) return KEYLESS_PROVIDERS[provider];
  const names = Object.hasOwn(PREFERENCE, provider) ? PREFERENCE[provider] : (ENV_KEYS.get(provider) ?? []);
  for (const name of names) {
    // Keys as they are written (not trimmed), as before there was an `env`.
    const value = env?.[name] || process.env[name];
    if (value) return value;
  }
  if (Object.hasOwn(AMBIENT, provider) && AMBIENT[provider].present(env ? providerEnvReader(env) : processEnv)) return AMBIENT_CREDENTIAL;
  return undefined;
}

/**
 * Whether `key`, about to be sent to `provider`, is the bearer token of ANTHROPIC_AUTH_TOKEN
 * (reached through the usual order: --api-key, auth.json and models.json come first, and
 * any of them gives a key of its own). The key carries no mark of where it came from, so
 * this compares values: a key equal to the token is the token.
 */
export function isEnvBearerToken(provider: string, key: string, env?: Readonly<Record<string, string>>): boolean {
  return provider === "anthropic" && key !== "" && (env?.[ANTHROPIC_AUTH_TOKEN] || process.env[ANTHROPIC_AUTH_TOKEN]) === key;
}
