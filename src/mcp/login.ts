/**
 * `xcsh mcp login <name>` and `xcsh mcp logout <name>`: the OAuth sign-in of a remote
 * MCP server, kept in auth.json (oauth-provider.ts). Login prints the authorization
 * page's address and waits for the browser to come back to a local callback on
 * 127.0.0.1 (src/auth/signin/callback-server.ts); the SDK does discovery, dynamic
 * client registration (unless the entry names a client registered by hand), PKCE and
 * the code exchange. Sessions then use and refresh the
 * stored tokens by themselves. The server is found in the same files a session reads;
 * signing in starts no program, so a project's server can sign in before the project is
 * trusted — but then without `${VAR}` expansion (remoteServer).
 */
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { getAuthJsonPath } from "../auth/auth-file.ts";
import { getAgentDir } from "../config/paths.ts";
import { readTrustDecision } from "../extensions/trust-store.ts";
import { authStoreAt } from "../auth/credentials.ts";
import { startCallbackServer } from "../auth/signin/callback-server.ts";
import { createState } from "../auth/signin/pkce.ts";
import type { McpServerSpec } from "./config-schema.ts";
import { authKeyOf, CALLBACK_PATH, callbackPortOf, redirectUrlFor, StoredMcpOAuth } from "./oauth-provider.ts";
import { planServers, readDeclarations } from "./server-plan.ts";
import { within } from "./wait.ts";

/** How long the browser may take to come back. */
const WAIT_LIMIT_MS = 5 * 60_000;

export interface LoginOutput {
  out(text: string): void;
  err(text: string): void;
}

/** The remote server of that name, as a session would connect it; throws a sentence when there is none. */
function remoteServer(name: string, cwd: string): McpServerSpec & { transport: "http" | "sse" } {
  const read = readDeclarations({ cwd, useConfigFiles: true, cliFiles: [] });
  // A project not (yet) trusted does not get your environment: its ${VAR}s stay as written,
  // so its URL cannot carry a variable's value to a server of its choosing.
  const trusted = readTrustDecision(getAgentDir(), cwd) === true;
  const declared = read.declared.map((declaration) => (declaration.scope === "project" && !trusted ? { ...declaration, literal: true } : declaration));
  const plan = planServers({ ...read, declared }, cwd, true);
  const spec = plan.servers.find((server) => server.name === name);
  if (!spec) {
    const problem = plan.problems.find((line) => line.includes(`"${name}"`));
    throw new Error(problem ?? `no MCP server "${name}" is configured (see \`xcsh mcp list\`)`);
  }
  if (spec.transport === "stdio") throw new Error(`MCP server "${name}" is a local (stdio) server; only remote (http/sse) servers sign in`);
  return spec;
}

export async function loginMcpServer(name: string, cwd: string, output: LoginOutput): Promise<number> {
  const spec = remoteServer(name, cwd);
  const state = createState();
  const port = callbackPortOf(spec.oauth);
  const callback = startCallbackServer(port, CALLBACK_PATH, state);
  if (!callback) throw new Error(`port ${port} on 127.0.0.1 is in use, so the browser cannot come back to xcsh; free it and try again`);
  try {
    const provider = new StoredMcpOAuth({
      serverUrl: spec.url,
      mode: "login",
      state,
      ...(spec.oauth ? { client: spec.oauth } : {}),
      onAuthorizationUrl: (url) => {
        output.out(`To sign in to MCP server "${name}", open this address in a browser:\n  ${url.href}\n`);
        output.out(`Waiting for the browser to return to ${redirectUrlFor(port)} …\n`);
      },
    });
    const first = await auth(provider, { serverUrl: spec.url });
    if (first === "REDIRECT") {
      const code = await within(callback.code, WAIT_LIMIT_MS);
      if (!code.done) throw new Error(`the browser did not come back within ${WAIT_LIMIT_MS / 60_000} minutes; run \`xcsh mcp login ${name}\` again`);
      await auth(provider, { serverUrl: spec.url, authorizationCode: code.value });
    }
    output.out(`Signed in to MCP server "${name}" (${spec.url}); the sign-in is kept in ${getAuthJsonPath()}.\n`);
    if (Object.keys(spec.headers).some((header) => header.toLowerCase() === "authorization")) {
      output.err(`xcsh mcp: note: the entry of "${name}" gives an Authorization header, which sessions send instead of this sign-in; remove it to use the sign-in.\n`);
    }
    return 0;
  } finally {
    callback.close();
  }
}

export async function logoutMcpServer(name: string, cwd: string, output: LoginOutput): Promise<number> {
  const spec = remoteServer(name, cwd);
  const removed = await authStoreAt(getAuthJsonPath()).remove(authKeyOf(spec.url));
  if (removed) output.out(`Removed the sign-in of MCP server "${name}" from ${getAuthJsonPath()}.\n`);
  else output.err(`xcsh mcp: MCP server "${name}" has no stored sign-in.\n`);
  return removed ? 0 : 1;
}
