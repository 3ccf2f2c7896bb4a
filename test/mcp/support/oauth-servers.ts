/**
 * An MCP server that wants OAuth, and the authorization server it names, both in the
 * test's process. The MCP server (http-server.ts behind a gate) answers 401 with a
 * `WWW-Authenticate` pointing at its protected-resource metadata, and takes only
 * access tokens the authorization server issued and has not expired. The authorization
 * server has metadata discovery, dynamic client registration (/register), /authorize
 * that redirects straight back with a code (no person in the loop; the test plays the
 * browser by fetching the address xcsh prints), and /token for the code (PKCE S256
 * checked) and for refresh tokens. Counters show what a client did.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { startHttpMcpServer, type HttpMcpServer } from "./http-server.ts";

export interface OAuthServers {
  /** The MCP server's endpoint (Streamable HTTP). */
  mcpUrl: string;
  mcp: HttpMcpServer;
  authUrl: string;
  registrations: number;
  codeGrants: number;
  refreshes: number;
  /** Access tokens the MCP server accepted, in order. */
  acceptedTokens: string[];
  /** How long /token takes to answer a refresh (to make two clients' refreshes overlap). */
  refreshDelayMs: number;
  /** A client registered beforehand (by hand, at the provider), as servers without /register need. */
  registerClient(clientId: string, redirectUris: string[]): void;
  /** Every refresh token issued so far is refused (revoked at the authorization server). */
  revokeRefreshTokens(): void;
  /** Every access token issued so far stops working (as if its lifetime had passed). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

async function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return new URLSearchParams(text);
}

function json(response: import("node:http").ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export async function startOAuthServers(): Promise<OAuthServers> {
  const clients = new Map<string, { redirectUris: string[] }>();
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string }>();
  const accessTokens = new Map<string, { valid: boolean }>();
  const refreshTokens = new Set<string>();
  let authUrl = "";

  const issue = () => {
    const access = `at-${randomUUID()}`;
    const refresh = `rt-${randomUUID()}`;
    accessTokens.set(access, { valid: true });
    refreshTokens.add(refresh);
    return { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: refresh };
  };

  const auth: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(response, 200, {
        issuer: authUrl,
        authorization_endpoint: `${authUrl}/authorize`,
        token_endpoint: `${authUrl}/token`,
        registration_endpoint: `${authUrl}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/register" && request.method === "POST") {
      let text = "";
      for await (const chunk of request) text += chunk;
      const metadata = JSON.parse(text);
      const clientId = `client-${randomUUID()}`;
      clients.set(clientId, { redirectUris: metadata.redirect_uris ?? [] });
      state.registrations++;
      return json(response, 201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) });
    }
    if (url.pathname === "/authorize") {
      const params = url.searchParams;
      const client = clients.get(params.get("client_id") ?? "");
      const redirectUri = params.get("redirect_uri") ?? "";
      if (!client || !client.redirectUris.includes(redirectUri) || params.get("code_challenge_method") !== "S256") {
        return json(response, 400, { error: "invalid_request" });
      }
      const code = `code-${randomUUID()}`;
      codes.set(code, { clientId: params.get("client_id")!, challenge: params.get("code_challenge") ?? "", redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", params.get("state") ?? "");
      response.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = await formBody(request);
      if (form.get("grant_type") === "authorization_code") {
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        const challenge = createHash("sha256").update(verifier).digest("base64url");
        if (!grant || grant.clientId !== form.get("client_id") || grant.challenge !== challenge || grant.redirectUri !== form.get("redirect_uri")) {
          return json(response, 400, { error: "invalid_grant" });
        }
        state.codeGrants++;
        return json(response, 200, issue());
      }
      if (form.get("grant_type") === "refresh_token") {
        const refresh = form.get("refresh_token") ?? "";
        if (state.refreshDelayMs > 0) await Bun.sleep(state.refreshDelayMs);
        if (!refreshTokens.has(refresh) || !clients.has(form.get("client_id") ?? "")) return json(response, 400, { error: "invalid_grant" });
        refreshTokens.delete(refresh);
        state.refreshes++;
        return json(response, 200, issue());
      }
      return json(response, 400, { error: "unsupported_grant_type" });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => auth.listen(0, "127.0.0.1", resolve));
  authUrl = `http://127.0.0.1:${(auth.address() as { port: number }).port}`;

  let mcpBase = "";
  const mcp = await startHttpMcpServer("locked", {
    resources: true,
    gate(request, response, path) {
      const wellKnown = "/.well-known/oauth-protected-resource";
      if (path.startsWith(wellKnown)) {
        json(response, 200, { resource: `${mcpBase}${path.slice(wellKnown.length) || "/mcp"}`, authorization_servers: [authUrl] });
        return true;
      }
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      if (token && accessTokens.get(token)?.valid) {
        state.acceptedTokens.push(token);
        return false;
      }
      response
        .writeHead(401, { "www-authenticate": `Bearer resource_metadata="${mcpBase}${wellKnown}${path}"`, "content-type": "application/json" })
        .end(JSON.stringify({ error: "invalid_token" }));
      return true;
    },
  });
  mcpBase = mcp.url;

  const state: OAuthServers = {
    mcpUrl: `${mcp.url}/mcp`,
    mcp,
    authUrl,
    registrations: 0,
    codeGrants: 0,
    refreshes: 0,
    refreshDelayMs: 0,
    acceptedTokens: [],
    registerClient(clientId, redirectUris) {
      clients.set(clientId, { redirectUris });
    },
    revokeRefreshTokens() {
      refreshTokens.clear();
    },
    expireAccessTokens() {
      for (const token of accessTokens.values()) token.valid = false;
    },
    async close() {
      await mcp.close();
      auth.closeAllConnections();
      await new Promise<void>((resolve) => auth.close(() => resolve()));
    },
  };
  return state;
}
