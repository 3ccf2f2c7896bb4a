/**
 * `xcsh auth login|logout|status [provider]`: managing what auth.json holds.
 *
 *   login <provider>   GitHub Copilot (device code; `--enterprise <domain>` for a GitHub
 *                      Enterprise server), OpenAI Codex and, with `--chatgpt`, OpenAI
 *                      (browser, PKCE) sign in; any other provider (and OpenAI without
 *                      `--chatgpt`) takes an API key, read from the terminal (hidden) or
 *                      the first line of stdin. Instructions go to stderr.
 *   logout <provider>  removes the stored credential (not variables, not models.json,
 *                      and it revokes nothing at the provider).
 *   status [provider]  where each credential comes from (stdout); see status.ts.
 *
 * Exit codes: 0 done, 1 failed (or `status <provider>` found nothing), 2 bad usage.
 */
import { getAuthJsonPath } from "../auth/auth-file.ts";
import { renderStatus } from "../auth/cli/status.ts";
import { readHiddenLine, stdinLines } from "../auth/cli/terminal-input.ts";
import { authStoreAt } from "../auth/credentials.ts";
import { normalizeEnterpriseDomain, SIGN_IN_PROVIDERS, signInProvider, type LoginIO, type LoginOptions } from "../auth/signin/providers.ts";
import { ConfigError } from "../config/errors.ts";
import { ANTHROPIC_KEY_ONLY, loginTargets } from "../config/login-targets.ts";
import { loadModelsJson } from "../config/models-json.ts";
import { getModelsJsonPath } from "../config/paths.ts";

export const AUTH_USAGE = `Usage: xcsh auth <command> [provider]

Commands:
  login <provider>    Sign in (${SIGN_IN_PROVIDERS.map((provider) => provider.id).join(", ")}) or store an API key
                      --enterprise <domain>: GitHub Copilot at a GitHub Enterprise server
                      --chatgpt: OpenAI with a ChatGPT plan (Sign in with ChatGPT) instead of a key
                      --api-key: store an API key (read without echo) rather than sign in
                      --no-browser: accepted; xcsh never opens a browser (it prints the address)
  logout <provider>   Remove the stored credential of a provider (exit 0 when there is none)
  status [provider]   Show where each provider's credential comes from
  check --provider <p> | --model <p/m> [--json] [--credentials] [--no-refresh]
                      ready (exit 0), not_ready (1) or invalid (2)
  print-api-key --provider <p> | --model <p/m>
                      The provider's API key, on stdout
  print-bearer-token --provider <p> | --model <p/m> [--min-expiry <30m>]
                      A stored sign-in's access token, on stdout

Credentials are kept in auth.json in the config root (~/.xcsh/agent/), readable by you only.
`;

export async function runAuthCommand(argv: string[]): Promise<number> {
  // `--chatgpt`: OpenAI through Sign in with ChatGPT rather than an API key.
  const chatgpt = argv.includes("--chatgpt");
  // pi 1.6.0's login switches: `--api-key` stores a key rather than signing in; `--no-browser`
  // asks for a sign-in without a browser on this machine, which is how xcsh always signs in
  // (it prints the address and takes the pasted return address, never starts a browser).
  const apiKeyWanted = argv.includes("--api-key");
  // A key written into the command line is readable by every user (ps): refused without repeating it.
  if (argv.some((arg) => arg.startsWith("--api-key="))) return usageError("--api-key takes no value here: the key is read from input, without echo.");
  const noBrowser = argv.includes("--no-browser");
  const split = takeEnterprise(argv.filter((arg) => arg !== "--chatgpt" && arg !== "--api-key" && arg !== "--no-browser"));
  if (typeof split === "string") return usageError(split);
  const [command, provider, ...extra] = split.rest;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    (command === undefined ? process.stderr : process.stdout).write(AUTH_USAGE);
    return command === undefined ? 2 : 0;
  }
  if (extra.length > 0) return usageError(`Unexpected argument "${extra[0]}".`);
  const store = authStoreAt(getAuthJsonPath());
  try {
    switch (command) {
      case "status": {
        const { text, found } = renderStatus(store, modelsJsonKeys(), provider);
        process.stdout.write(text);
        return found ? 0 : 1;
      }
      case "login": {
        if (!provider) return usageError("Name the provider to sign in to.");
        if (split.enterprise !== undefined && provider !== "github-copilot") return usageError("--enterprise applies to github-copilot only.");
        if (chatgpt && provider !== "openai") return usageError("--chatgpt applies to openai only.");
        if (apiKeyWanted && (noBrowser || chatgpt)) return usageError(`--api-key cannot go with ${noBrowser ? "--no-browser" : "--chatgpt"}: a key involves no sign-in.`);
        if (apiKeyWanted && signInOnly(provider)) return usageError(`${provider} signs in with an account; it takes no API key.`);
        const options: LoginOptions = { signIn: chatgpt };
        if (split.enterprise !== undefined) {
          const domain = normalizeEnterpriseDomain(split.enterprise);
          if (!domain) return usageError(`"${split.enterprise}" is not a GitHub Enterprise domain (for example ghe.example.com).`);
          options.enterpriseDomain = domain;
        }
        return await login(provider, store, options);
      }
      case "logout":
        if (chatgpt) return usageError("--chatgpt applies to login only.");
        if (apiKeyWanted || noBrowser) return usageError(`${apiKeyWanted ? "--api-key" : "--no-browser"} applies to login only.`);
        if (split.enterprise !== undefined) return usageError("--enterprise applies to login only.");
        if (!provider) return usageError("Name the provider to sign out of.");
        return await logout(provider, store);
      default:
        return usageError(`Unknown auth command "${command}".`);
    }
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    process.stderr.write(`xcsh: ${text}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }
}

/** `--enterprise <domain>` / `--enterprise=<domain>` taken out of the arguments; a string is a usage error. */
function takeEnterprise(argv: string[]): { rest: string[]; enterprise?: string } | string {
  const rest: string[] = [];
  let enterprise: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg !== "--enterprise" && !arg.startsWith("--enterprise=")) {
      rest.push(arg);
      continue;
    }
    if (enterprise !== undefined) return "--enterprise is given twice.";
    const value = arg === "--enterprise" ? argv[++index] : arg.slice("--enterprise=".length);
    if (value === undefined || value.trim() === "" || value.startsWith("-")) return "--enterprise needs a domain (for example ghe.example.com).";
    enterprise = value;
  }
  return { rest, enterprise };
}

function usageError(text: string): number {
  process.stderr.write(`xcsh: ${text}\n\n${AUTH_USAGE}`);
  return 2;
}

/** A provider xcsh signs in to and that takes no key (GitHub Copilot, OpenAI Codex). */
function signInOnly(provider: string): boolean {
  const signIn = signInProvider(provider);
  return signIn !== undefined && signIn.alsoTakesApiKeys !== true;
}

async function login(provider: string, store: ReturnType<typeof authStoreAt>, options: LoginOptions): Promise<number> {
  const signIn = signInProvider(provider);
  // A provider that also takes a key (OpenAI) signs in only when asked to (--chatgpt).
  if (signIn && (!signIn.alsoTakesApiKeys || options.signIn)) {
    // The installation keeps its id across sign-ins (Sign in with ChatGPT names it).
    const previous = store.has(provider) ? store.get(provider) : undefined;
    if (previous?.type === "oauth" && typeof previous.deviceId === "string") options.deviceId = previous.deviceId;
    const lines = stdinLines();
    const cancel = new AbortController();
    const io: LoginIO = { say: (text) => process.stderr.write(`${text}\n`), readLine: () => lines.readLine(), signal: cancel.signal };
    try {
      const flow = await signIn.loadFlow();
      const credential = await flow.login(io, options);
      await store.set(provider, credential);
    } finally {
      lines.close();
    }
    process.stderr.write(`Saved to ${store.path}.\n`);
    return 0;
  }
  if (!loginTargets().some((target) => target.id === provider && target.kind === "api-key")) {
    process.stderr.write(
      `xcsh: Unknown provider "${provider}". Sign in to ${SIGN_IN_PROVIDERS.map((p) => p.id).join(" or ")}, ` +
        `or store a key for a provider of \`xcsh --list-models\` or of models.json.\n`,
    );
    return 1;
  }
  if (provider === "anthropic") {
    process.stderr.write(`${ANTHROPIC_KEY_ONLY}\n`);
  }
  if (signIn?.alsoTakesApiKeys) process.stderr.write(`To use a ChatGPT plan instead of a key: xcsh auth login ${provider} --chatgpt\n`);
  const key = await readApiKey(provider);
  if (!key) {
    process.stderr.write("xcsh: No key was entered; nothing was stored.\n");
    return 1;
  }
  await store.set(provider, { type: "api_key", key });
  process.stderr.write(`Stored the API key for ${provider} in ${store.path}.\n`);
  return 0;
}

async function readApiKey(provider: string): Promise<string | undefined> {
  if (process.stdin.isTTY) return (await readHiddenLine(`API key for ${provider}: `))?.trim() || undefined;
  const lines = stdinLines();
  try {
    return (await lines.readLine())?.trim() || undefined;
  } finally {
    lines.close();
  }
}

async function logout(provider: string, store: ReturnType<typeof authStoreAt>): Promise<number> {
  // Nothing stored is not a failure: logging out twice is safe to repeat, as in pi 1.6.0.
  if (!(await store.remove(provider))) {
    process.stderr.write(`No credential of ${provider} is stored in ${store.path}; nothing to remove.\n`);
    return 0;
  }
  const revoke = signInProvider(provider) ? " The sign-in is not revoked at the provider." : "";
  process.stderr.write(`Removed the credential of ${provider} from ${store.path}. Environment variables and models.json are unchanged.${revoke}\n`);
  return 0;
}

/** Providers whose models.json entry sets an apiKey (for status; the value is not resolved). */
function modelsJsonKeys(): Set<string> {
  try {
    const providers = loadModelsJson(getModelsJsonPath()).providers;
    return new Set(Object.entries(providers).filter(([, config]) => config.apiKey !== undefined).map(([name]) => name));
  } catch {
    return new Set();
  }
}
