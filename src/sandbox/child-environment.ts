/**
 * The environment of the programs xcsh starts for the model and the user (the bash
 * tool, `!cmd` / RPC `bash`, extensions' `exec`, local MCP servers): xcsh's own, without the credentials
 * xcsh itself uses to reach model providers. `echo $ANTHROPIC_API_KEY` through the bash
 * tool must not print the key: a prompt-injected command would send it anywhere.
 *
 * What counts as such a credential (decided here, documented in docs/security.md):
 *  - the key variables of the providers xcsh knows (its catalog: ANTHROPIC_API_KEY,
 *    OPENAI_API_KEY, GEMINI_API_KEY, HF_TOKEN, …) and those pi's users carry
 *    (AWS_BEARER_TOKEN_BEDROCK, COPILOT_GITHUB_TOKEN, …), and any
 *    `<PROVIDER>_…KEY/TOKEN/SECRET` of an LLM provider;
 *  - variables a models.json `apiKey` or header names (`"$CORP_LLM_KEY"`), once known.
 * With the sandbox off, the user's general-purpose credentials that the commands they ask
 * for rely on stay — GITHUB_TOKEN / GH_TOKEN (git, gh), AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN (aws, terraform), SSH_AUTH_SOCK. xcsh talks to
 * none of those services; `shellEnv.exclude` or `inherit: "core"` hides them too.
 * Under a sandbox (read-only, workspace-write) the user asked for walls, so every variable
 * whose name has a word KEY, SECRET, TOKEN or PASSWORD (hasSecretName) goes too — the
 * database password, the payment key, the registry token a command could send anywhere —
 * unless `passthrough` names it. active-policy.ts's commandEnvironment decides by the mode.
 *
 * settings.json `shellEnv` changes this: `inherit` "all" (default: everything but the
 * credentials), "core" (a short list a shell needs: PATH, HOME, locale, terminal, temp, the network's proxy and CA)
 * or "none"; `passthrough` names (globs) taken from xcsh's environment even when they
 * are credentials; `exclude` names (globs) removed too; `set` fixed values, applied last.
 * xcsh's own markers (AI_AGENT, …) are always kept; the session variables are added by
 * the bash tool afterwards (src/tools/session-environment.ts).
 */
import { CATALOG_PROVIDERS, TYPED_ONLY_PROVIDERS } from "../ai/catalog/providers.ts";

export interface ShellEnvPolicy {
  inherit: "all" | "core" | "none";
  /** Names or globs (`AWS_*`) taken from xcsh's environment whatever `inherit` says, credentials included. */
  passthrough: string[];
  /** Names or globs removed besides the credentials. */
  exclude: string[];
  /** Fixed values, applied last. */
  set: Record<string, string>;
}

export const DEFAULT_SHELL_ENV: Readonly<ShellEnvPolicy> = Object.freeze({ inherit: "all", passthrough: [], exclude: [], set: {} });

/**
 * Exact names of provider credentials: every key variable of the built-in catalog's providers
 * (ai/catalog/providers.ts, already loaded at start-up), and the tokens of providers and
 * gateways pi's users carry that the catalog has no entry for.
 */
const PROVIDER_CREDENTIALS = new Set([
  ...CATALOG_PROVIDERS.flatMap((provider) => provider.envKeys),
  ...TYPED_ONLY_PROVIDERS.flatMap((provider) => provider.envKeys),
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_OAUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GOOGLE_CLOUD_API_KEY",
  "AWS_BEARER_TOKEN_BEDROCK",
  "COPILOT_GITHUB_TOKEN",
  "AI_GATEWAY_API_KEY",
  "CLOUDFLARE_API_KEY",
]);

/**
 * Prefixes of LLM providers whose every key, token or secret variable is a model credential.
 * (Not GITHUB_, AWS_, HF_, GOOGLE_ as a whole: those serve tools people run, see the header.)
 */
const PROVIDER_PREFIXES = [
  "ANTHROPIC", "OPENAI", "AZURE_OPENAI", "GEMINI", "GROQ", "CEREBRAS", "XAI", "OPENROUTER", "ZAI", "MISTRAL",
  "MINIMAX", "DEEPSEEK", "FIREWORKS", "TOGETHER", "KIMI", "MOONSHOT", "OPENCODE", "BASETEN", "NVIDIA", "META",
  "XIAOMI", "QWEN", "ANT_LING", "RADIUS", "PERPLEXITY", "COHERE", "DASHSCOPE", "VOYAGE", "XCSH", "PI",
];
const SECRET_SUFFIX = /(?:^|_)(?:API_KEY|KEY|TOKEN|SECRET|PASSWORD)$/;

/** The variables a shell and the usual tools need to work, for `inherit: "core"`. */
const CORE_VARIABLES = [
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "LC_*", "TZ",
  "TMPDIR", "TMP", "TEMP", "PWD", "XDG_*", "DISPLAY", "WAYLAND_DISPLAY", "NO_COLOR", "FORCE_COLOR",
  // A company network's proxy and CA: without them curl, npm, pip and git cannot reach anything.
  "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
  "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
];

/** Markers xcsh sets on itself so every child knows what runs it (session-environment.ts); never removed. */
const AGENT_MARKERS = ["AI_AGENT", "PI_CODING_AGENT", "XCSH_CODING_AGENT"];

/** Credentials named by the configuration (models.json `$VAR` key and header values), added once read. */
const configuredCredentials = new Set<string>();

/** Tells the filter about variables the configuration reads keys from (`"apiKey": "$CORP_KEY"`). */
export function noteCredentialVariables(names: Iterable<string>): void {
  for (const name of names) configuredCredentials.add(name);
}

/** Whether `name` holds a credential xcsh uses for its model providers. */
export function isProviderCredential(name: string): boolean {
  if (PROVIDER_CREDENTIALS.has(name) || configuredCredentials.has(name)) return true;
  if (!SECRET_SUFFIX.test(name)) return false;
  return PROVIDER_PREFIXES.some((prefix) => name.startsWith(`${prefix}_`));
}

const globCache = new Map<string, RegExp>();
/** `*` matches any run of characters; everything else literally. Names are case-sensitive, as the kernel's are. */
function matchesGlob(name: string, pattern: string): boolean {
  if (!pattern.includes("*")) return name === pattern;
  let regex = globCache.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    globCache.set(pattern, regex);
  }
  return regex.test(name);
}

const matchesAny = (name: string, patterns: readonly string[]) => patterns.some((pattern) => matchesGlob(name, pattern));

/** The words that make a name a secret's; a plural counts too (`SSH_KEYS`). */
const SECRET_WORDS = new Set(["KEY", "KEYS", "SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD", "PASSWORDS"]);

/**
 * Whether a variable's name says it holds a secret: split at every character that is not a
 * letter or digit (`_` mostly), case ignored, one of its words is KEY, SECRET, TOKEN or
 * PASSWORD (or their plural), or a word ends in PASSWORD (postgres' PGPASSWORD).
 * Whole words, so that KEYBOARD_LAYOUT, MONKEY and TOKENIZERS_PARALLELISM are not secrets.
 */
export function hasSecretName(name: string): boolean {
  for (const word of name.toUpperCase().split(/[^A-Z0-9]+/)) {
    if (SECRET_WORDS.has(word) || word.endsWith("PASSWORD")) return true;
  }
  return false;
}

export interface ChildEnvironmentOptions {
  /** Also hide every variable with a secret's name (hasSecretName): a sandbox is on. */
  hideSecretNames?: boolean;
}

/** The environment for a child process, from `base` (xcsh's own) and the policy. Never changes `base`. */
export function childEnvironment(base: NodeJS.ProcessEnv, policy: ShellEnvPolicy = DEFAULT_SHELL_ENV, options: ChildEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const hidden = (name: string) => isProviderCredential(name) || (options.hideSecretNames === true && hasSecretName(name));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const passed = matchesAny(name, policy.passthrough);
    const inherited =
      AGENT_MARKERS.includes(name) ||
      passed ||
      (policy.inherit === "all" && !hidden(name)) ||
      (policy.inherit === "core" && matchesAny(name, CORE_VARIABLES) && !hidden(name));
    if (!inherited) continue;
    if (!passed && matchesAny(name, policy.exclude)) continue;
    env[name] = value;
  }
  return Object.assign(env, policy.set);
}
