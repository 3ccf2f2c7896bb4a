/**
 * OAuth for remote MCP servers, as the SDK's `OAuthClientProvider`: the SDK does the
 * protocol (metadata discovery, dynamic client registration, authorization code with
 * PKCE, token refresh on a 401); this class only keeps what it is given. Tokens and the
 * registered client live in auth.json (src/auth: atomic 0600 writes under its lock),
 * one entry per server URL keyed `mcp:<url>`, in the store's `oauth` shape (access,
 * refresh, expires) with the SDK's objects kept unchanged beside them — the SDK binds
 * them to their issuer and wants them back as they were.
 *
 * A server that offers no dynamic registration takes a client registered beforehand: the
 * entry's `oauth.clientId` (and `clientSecret`) is then used as it is, and
 * `oauth.callbackPort` is where the browser comes back (pi 1.x's `oauth` object).
 *
 * Two modes. `login` (`xcsh mcp login`) may register a client and send the person to
 * the authorization page. `background` (a session connecting its servers) may only use
 * and refresh what is stored: where the SDK would need the person, it stops with
 * McpLoginNeeded, and the connection says "run `xcsh mcp login <name>`".
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthCredential } from "../auth/auth-file.ts";
import { getAuthJsonPath } from "../auth/auth-file.ts";
import { authStoreAt } from "../auth/credentials.ts";
import { testOverride } from "../auth/test-endpoints.ts";
import type { McpOAuthClientConfig } from "./config-schema.ts";

/** Where the browser comes back to; one fixed port, so a registered client's redirect URI stays valid. */
export const CALLBACK_PATH = "/mcp/oauth/callback";
const DEFAULT_CALLBACK_PORT = 19_876;

/** How long a refused refresh waits for another xcsh's refresh to land in auth.json. */
const OTHER_REFRESH_WAIT_MS = 2_000;

export function callbackPort(): number {
  const override = Number(testOverride("CALLBACK_PORT"));
  return Number.isInteger(override) && override > 0 ? override : DEFAULT_CALLBACK_PORT;
}

export function redirectUrlFor(port: number): string {
  return `http://127.0.0.1:${port}${CALLBACK_PATH}`;
}

/** The auth.json key of a server's sign-in. */
export function authKeyOf(serverUrl: string): string {
  return `mcp:${new URL(serverUrl).href}`;
}

/** The server needs the person to sign in (`xcsh mcp login`); nothing stored can do. */
export class McpLoginNeeded extends Error {
  override readonly name = "McpLoginNeeded";
}

/** What xcsh keeps of one server's sign-in, beside the store's access/refresh/expires. */
interface StoredMcpSignIn extends OAuthCredential {
  server: string;
  tokens: OAuthTokens;
  client?: OAuthClientInformationMixed;
}

export interface McpOAuthOptions {
  serverUrl: string;
  mode: "login" | "background";
  /** The configured name, for the hint a refused request carries. */
  serverName?: string;
  /** login: the `state` the callback server expects. */
  state?: string;
  /** login: called with the authorization page's address. */
  onAuthorizationUrl?(url: URL): void;
  /** The entry's OAuth client settings (pi 1.x's `oauth`), when it has some. */
  client?: McpOAuthClientConfig;
}

/** The port the browser returns to for this server: its entry's `oauth.callbackPort`, else xcsh's. */
export function callbackPortOf(client: McpOAuthClientConfig | undefined): number {
  return client?.callbackPort ?? callbackPort();
}

export class StoredMcpOAuth implements OAuthClientProvider {
  private readonly store = authStoreAt(getAuthJsonPath());
  private readonly key: string;
  /** A client registered during this login, kept until the tokens are saved with it. */
  private pendingClient: OAuthClientInformationMixed | undefined;
  private verifier: string | undefined;
  /** The stored client was refused (unknown to the server now): a login registers again. */
  private storedClientRefused = false;
  /** The tokens last handed to the SDK: what a refusal is about. */
  private lastTokens: OAuthTokens | undefined;
  /** What discovery found this time: without an authorization server there is nothing to sign in to. */
  private discovered: OAuthDiscoveryState | undefined;
  /** Set when the server asked for a sign-in this provider could not give (background mode). */
  loginNeeded = false;

  constructor(private readonly options: McpOAuthOptions) {
    this.key = authKeyOf(options.serverUrl);
  }

  get redirectUrl(): string {
    return redirectUrlFor(callbackPortOf(this.options.client));
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.client?.clientName ?? "xcsh",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.options.client?.clientSecret ? "client_secret_post" : "none",
    };
  }

  state(): string {
    return this.options.state ?? "";
  }

  hasStored(): boolean {
    return this.stored() !== undefined;
  }

  private stored(): StoredMcpSignIn | undefined {
    let credential;
    try {
      credential = this.store.get(this.key);
    } catch {
      return undefined; // a broken entry counts as none; a login replaces it
    }
    const entry = credential as Partial<StoredMcpSignIn> | undefined;
    return entry?.type === "oauth" && entry.tokens && typeof entry.tokens.access_token === "string" ? (entry as StoredMcpSignIn) : undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    // A client registered beforehand is used as configured: nothing is registered, nothing kept.
    const configured = this.options.client;
    if (configured?.clientId) return { client_id: configured.clientId, ...(configured.clientSecret ? { client_secret: configured.clientSecret } : {}) };
    const client = this.pendingClient ?? (this.storedClientRefused ? undefined : this.stored()?.client);
    if (client) return client;
    // A 401 from a server that publishes no OAuth metadata: it wants a token in "headers", not a sign-in.
    if (!this.discovered?.authorizationServerMetadata) {
      throw new Error(
        this.options.mode === "login"
          ? `no OAuth authorization server found for ${this.options.serverUrl} (its /.well-known metadata could not be fetched); a server without OAuth takes a token in "headers"`
          : "Unauthorized (401), and the server names no OAuth authorization server",
      );
    }
    if (this.options.mode === "background") return this.needLogin();
    return undefined;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    // Kept in memory until tokens arrive: a login given up leaves nothing half-made in auth.json.
    this.pendingClient = client;
  }

  tokens(): OAuthTokens | undefined {
    // A login starts afresh: the stored tokens are what it replaces.
    if (this.options.mode === "login" || this.loginNeeded) return undefined;
    this.lastTokens = this.stored()?.tokens;
    return this.lastTokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const client = this.pendingClient ?? this.stored()?.client;
    const previous = this.stored();
    const refresh = tokens.refresh_token ?? previous?.tokens.refresh_token;
    // A refresh answer may leave the refresh token out: the old one stays good.
    const kept: OAuthTokens = refresh ? { ...tokens, refresh_token: refresh } : tokens;
    const credential: StoredMcpSignIn = {
      type: "oauth",
      access: tokens.access_token,
      refresh: refresh ?? "",
      expires: tokens.expires_in !== undefined ? Date.now() + tokens.expires_in * 1000 : 0,
      server: this.options.serverUrl,
      tokens: kept,
      ...(client ? { client } : {}),
    };
    await this.store.set(this.key, credential);
    this.pendingClient = undefined;
  }

  redirectToAuthorization(url: URL): void {
    if (this.options.mode === "background") {
      this.needLogin();
      return;
    }
    this.options.onAuthorizationUrl?.(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("No sign-in was started (no PKCE code verifier)");
    return this.verifier;
  }

  /** The server said the stored credentials are no good (a refused refresh token, an unknown client). */
  /**
   * The server refused what was stored (a refresh token, the registered client). Nothing
   * is deleted from auth.json: the refusal may only mean that another xcsh refreshed at
   * the same moment (rotating the refresh token used here) — its new tokens are waited
   * for briefly, and the SDK's retry uses them. Otherwise the session needs a sign-in,
   * and the next `xcsh mcp login` replaces the dead entry.
   */
  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") this.verifier = undefined;
    if (scope === "discovery" || scope === "verifier") return;
    if (scope === "all" || scope === "client") {
      this.pendingClient = undefined;
      this.storedClientRefused = true;
    }
    if (this.options.mode === "login") return;
    if (scope === "tokens" && (await this.refreshedElsewhere())) return;
    this.loginNeeded = true;
  }

  private async refreshedElsewhere(): Promise<boolean> {
    const until = Date.now() + OTHER_REFRESH_WAIT_MS;
    for (;;) {
      const now = this.stored()?.tokens.refresh_token;
      if (now !== undefined && now !== this.lastTokens?.refresh_token) return true;
      if (Date.now() >= until) return false;
      await Bun.sleep(50);
    }
  }

  private needLogin(): never {
    this.loginNeeded = true;
    const name = this.options.serverName;
    throw new McpLoginNeeded(name ? `it needs a sign-in: run \`xcsh mcp login ${name}\` (in the terminal: /mcp login ${name})` : "it needs a sign-in");
  }
}

/** Whether auth.json holds a sign-in for the server (for /mcp). */
export function hasStoredSignIn(serverUrl: string): boolean {
  return new StoredMcpOAuth({ serverUrl, mode: "background" }).hasStored();
}
