/**
 * The providers xcsh signs in to rather than taking an API key for: what a request to
 * each needs from a stored OAuth credential (its token, endpoint and headers), decided
 * here without network, and where the sign-in flow itself lives (loaded only when a
 * user signs in or a token is refreshed).
 *
 * Anthropic is deliberately absent: its terms do not allow a Claude subscription to be
 * used from third-party tools, so Anthropic takes an API key only.
 */
import { testOverride } from "../test-endpoints.ts";
import type { OAuthCredential } from "../auth-file.ts";

/** What a request needs from a credential. */
export interface RequestAuth {
  apiKey: string;
  headers?: Record<string, string>;
  /** Send the key as `Authorization: Bearer` too, whatever the API's own key header (Copilot's Anthropic models). */
  bearerHeader?: boolean;
  /** The endpoint the credential's account is served at, when it is not the provider's default. */
  baseUrl?: string;
}

/** How a sign-in flow talks to the person signing in (the `xcsh auth login` terminal). */
export interface LoginIO {
  /** A line of instructions for the person (stderr). */
  say(text: string): void;
  /** The next line the person types or pastes; undefined when input has ended. */
  readLine(): Promise<string | undefined>;
  signal: AbortSignal;
}

/** Choices made before a sign-in starts. */
export interface LoginOptions {
  /** GitHub Copilot: the GitHub Enterprise Server domain to sign in at (default github.com). */
  enterpriseDomain?: string;
  /** For a provider that also takes an API key: sign in rather than store a key (`--chatgpt`). */
  signIn?: boolean;
  /** Sign in with ChatGPT: this installation's id (a UUID), kept from the previous sign-in. */
  deviceId?: string;
}

/** The network part of a sign-in provider, loaded on demand. */
export interface SignInFlow {
  login(io: LoginIO, options?: LoginOptions): Promise<OAuthCredential>;
  /** A fresh credential from the refresh token; throws when the provider refuses it. */
  refresh(credential: OAuthCredential, signal: AbortSignal): Promise<OAuthCredential>;
}

export interface SignInProvider {
  id: string;
  name: string;
  /** Refresh when the access token has less than this left. */
  refreshMarginMs: number;
  requestAuth(credential: OAuthCredential): RequestAuth;
  loadFlow(): Promise<SignInFlow>;
  /**
   * A provider that takes an API key as well (OpenAI): its models stay the catalog's,
   * and without either credential the error is the usual missing key, not "not signed in".
   */
  alsoTakesApiKeys?: boolean;
}

// Facts about GitHub Copilot's API: it wants to know which editor integration calls it.
export const COPILOT_STATIC_HEADERS: Readonly<Record<string, string>> = {
  "User-Agent": "GitHubCopilotChat/0.35.0",
  "Editor-Version": "vscode/1.107.0",
  "Editor-Plugin-Version": "copilot-chat/0.35.0",
  "Copilot-Integration-Id": "vscode-chat",
};

export const COPILOT_DEFAULT_API = "https://api.individual.githubcopilot.com";

/**
 * The Copilot token names the proxy serving the account (`…;proxy-ep=proxy.business.githubcopilot.com;…`);
 * its API host is the same name with `api.` for `proxy.`.
 */
export function copilotApiFromToken(token: string): string | undefined {
  const host = /(?:^|;)proxy-ep=([^;]+)/.exec(token)?.[1]?.trim();
  if (!host || !/^[A-Za-z0-9.-]+(?::\d+)?$/.test(host)) return undefined;
  return `https://${host.replace(/^proxy\./, "api.")}`;
}

/** What a request to the Copilot API needs from a signed-in account: its token, headers and endpoint. */
export function copilotRequestAuth(credential: OAuthCredential): RequestAuth {
  return {
    apiKey: credential.access,
    headers: { ...COPILOT_STATIC_HEADERS, "Openai-Intent": "conversation-edits" },
    // The Anthropic-API models read the token from Authorization, not x-api-key.
    bearerHeader: true,
    baseUrl: testOverride("COPILOT_API_URL") ?? copilotApiFromToken(credential.access) ?? copilotEnterpriseApi(credential) ?? COPILOT_DEFAULT_API,
  };
}

/**
 * A GitHub Enterprise Server domain as typed (`ghe.example.com`, `https://ghe.example.com/`),
 * reduced to its host (and port); undefined when it is not one.
 */
export function normalizeEnterpriseDomain(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`).host.toLowerCase();
  } catch {
    return undefined;
  }
  const name = host.replace(/:\d+$/, "");
  // A dotted host name (or localhost, which a test's fake server answers at); never a path or a user.
  return /^[a-z0-9.-]+(?::\d+)?$/.test(host) && (name.includes(".") || name === "localhost") ? host : undefined;
}

/** An Enterprise account's Copilot API when its token names no proxy: `copilot-api.<domain>`. */
function copilotEnterpriseApi(credential: OAuthCredential): string | undefined {
  const domain = typeof credential.enterpriseUrl === "string" ? normalizeEnterpriseDomain(credential.enterpriseUrl) : undefined;
  return domain ? `https://copilot-api.${domain}` : undefined;
}

const githubCopilot: SignInProvider = {
  id: "github-copilot",
  name: "GitHub Copilot",
  refreshMarginMs: 5 * 60_000,
  requestAuth: (credential) => copilotRequestAuth(credential),
  loadFlow: () => import("./github-copilot.ts"),
};

const openaiCodex: SignInProvider = {
  id: "openai-codex",
  name: "OpenAI Codex (ChatGPT plan)",
  refreshMarginMs: 5 * 60_000,
  requestAuth(credential) {
    const headers: Record<string, string> = { originator: "xcsh", "OpenAI-Beta": "responses=experimental" };
    if (typeof credential.accountId === "string") headers["chatgpt-account-id"] = credential.accountId;
    return { apiKey: credential.access, headers, baseUrl: testOverride("CODEX_API_URL") };
  },
  loadFlow: () => import("./openai-codex.ts"),
};

/** Sign in with ChatGPT on `openai` (pi 0.99): the plan's token goes to api.openai.com as the key. */
const openaiChatGPT: SignInProvider = {
  id: "openai",
  name: "OpenAI (Sign in with ChatGPT)",
  refreshMarginMs: 3 * 60_000,
  requestAuth: (credential) => ({ apiKey: credential.access }),
  loadFlow: () => import("./openai-chatgpt.ts"),
  alsoTakesApiKeys: true,
};

export const SIGN_IN_PROVIDERS: readonly SignInProvider[] = [githubCopilot, openaiCodex, openaiChatGPT];

export function signInProvider(id: string): SignInProvider | undefined {
  return SIGN_IN_PROVIDERS.find((provider) => provider.id === id);
}

/** The command that signs in to a provider, for error messages. */
export function loginCommand(provider: string): string {
  return `xcsh auth login ${provider}`;
}
