/**
 * Sign in with ChatGPT on the `openai` provider: a ChatGPT plan's own token for the
 * OpenAI API (api.openai.com), as pi 0.99 offers it beside an API key. The flow is the
 * authorization code flow with PKCE at auth.openai.com, for a client registered at
 * sign-in: the authorize request names the dynamic client and this installation (a
 * stable device id), and the browser's return to 127.0.0.1:1455 carries the client id
 * OpenAI issued, which the token requests then use. The grant must include the scope
 * that lets the token be used directly against the API.
 *
 * The device id is kept in the credential and reused by the next sign-in, so the
 * installation keeps one identity while it stays signed in.
 */
import type { OAuthCredential } from "../auth-file.ts";
import { endpoint, testOverride } from "../test-endpoints.ts";
import { startCallbackServer } from "./callback-server.ts";
import { describeFailure, postForm } from "./http.ts";
import { createPkce, createState } from "./pkce.ts";
import { loginCommand, type LoginIO, type LoginOptions } from "./providers.ts";

/** OpenAI's client id for agents that register at sign-in; the real id arrives with the redirect. */
const DYNAMIC_CLIENT = "dynamic_agent_client";
const DIRECT_USE_SCOPE = "chatgpt.tokens.use.direct";
const SCOPE = `openid profile email offline_access resource.invoke ${DIRECT_USE_SCOPE}`;
/** The API the token is for. */
const RESOURCE = "https://api.openai.com/v1";
const CALLBACK_PATH = "/auth/callback";
const DEFAULT_CALLBACK_PORT = 1455;
const WAIT_LIMIT_MS = 10 * 60_000;
const REQUEST_TIMEOUT_MS = 20_000;

interface Authorization {
  code: string;
  clientId: string;
}

export async function login(io: LoginIO, options: LoginOptions = {}): Promise<OAuthCredential> {
  const deviceId = options.deviceId ?? crypto.randomUUID();
  const { verifier, challenge } = await createPkce();
  const state = createState();
  const port = Number(testOverride("CALLBACK_PORT")) || DEFAULT_CALLBACK_PORT;
  const redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  const authorizeUrl = new URL(`${endpoint("OPENAI_AUTH_URL")}/api/accounts/authorize`);
  for (const [name, value] of Object.entries({
    client_id: DYNAMIC_CLIENT,
    agent_name_hint: "xcsh",
    ext_agent_host_id: `urn:uuid:${deviceId.toLowerCase()}`,
    response_type: "code",
    redirect_uri: redirectUri,
    resource: RESOURCE,
    scope: SCOPE,
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    nonce: createState(),
  })) {
    authorizeUrl.searchParams.set(name, value);
  }

  const server = startCallbackServer(port, CALLBACK_PATH, state);
  if (!server) {
    // The redirect carries the issued client id, so a pasted address can stand in for the server, but only when the port is ours.
    throw new Error(`Port ${port} is in use (another sign-in, or the Codex CLI, may be waiting there). Finish or cancel it, then run \`${loginCommand("openai")} --chatgpt\` again.`);
  }
  const done = new AbortController();
  const signal = AbortSignal.any([io.signal, done.signal, AbortSignal.timeout(WAIT_LIMIT_MS)]);
  try {
    io.say("To sign in with ChatGPT, open this address in a browser:");
    io.say(`  ${authorizeUrl.href}`);
    io.say(`Waiting for the browser to return to ${redirectUri}. If the browser runs on another machine, paste the address it was sent to (starting with ${redirectUri}) here.`);
    const authorization = await Promise.race([
      server.query.then((query) => authorizationFrom(query)),
      pastedAuthorization(io, state, redirectUri),
      aborted(signal),
    ]);
    const reply = await postForm(
      `${endpoint("OPENAI_AUTH_URL")}/api/accounts/oauth/token`,
      {
        grant_type: "authorization_code",
        client_id: authorization.clientId,
        code: authorization.code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        resource: RESOURCE,
      },
      AbortSignal.any([io.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    );
    const credential = tokenCredential(reply, "exchange", authorization.clientId, deviceId);
    io.say("Signed in with ChatGPT.");
    return credential;
  } finally {
    done.abort();
    server.close();
  }
}

export async function refresh(credential: OAuthCredential, signal: AbortSignal): Promise<OAuthCredential> {
  const clientId = credential.clientId;
  if (typeof clientId !== "string" || clientId === "") {
    throw new Error("the stored sign-in has no client id");
  }
  const reply = await postForm(
    `${endpoint("OPENAI_AUTH_URL")}/api/accounts/oauth/token`,
    { grant_type: "refresh_token", client_id: clientId, refresh_token: credential.refresh, resource: RESOURCE },
    signal,
  );
  return { ...credential, ...tokenCredential(reply, "refresh", clientId, credential.deviceId as string | undefined) };
}

function authorizationFrom(query: URLSearchParams): Authorization {
  const code = query.get("code");
  const clientId = query.get("client_id")?.trim();
  if (!code) throw new Error("The browser came back without an authorization code.");
  if (!clientId) throw new Error("The browser came back without the client id OpenAI issued; start the sign-in again.");
  return { code, clientId };
}

/** Lines pasted on stdin until one is this sign-in's redirect address. */
async function pastedAuthorization(io: LoginIO, state: string, redirectUri: string): Promise<Authorization> {
  while (true) {
    const line = await io.readLine();
    // Input ended (not a terminal, or Ctrl-D): the browser may still come back.
    if (line === undefined) return new Promise<Authorization>(() => {});
    const text = line.trim();
    if (text === "") continue;
    if (!URL.canParse(text) || !text.startsWith(redirectUri)) {
      io.say(`Paste the whole address the browser was sent to (it starts with ${redirectUri}).`);
      continue;
    }
    const query = new URL(text).searchParams;
    const error = query.get("error");
    if (error) throw new Error(`The sign-in failed at OpenAI: ${error}.`);
    if (query.get("state") !== state) {
      io.say("That address belongs to another sign-in (its state does not match this one); paste the address from this sign-in.");
      continue;
    }
    return authorizationFrom(query);
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(new Error(signal.reason?.name === "TimeoutError" ? "No sign-in arrived within 10 minutes." : "Sign-in cancelled."));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

function tokenCredential(
  reply: Awaited<ReturnType<typeof postForm>>,
  step: "exchange" | "refresh",
  clientId: string,
  deviceId: string | undefined,
): OAuthCredential {
  const json = reply.json;
  const access = json?.access_token;
  const refreshToken = json?.refresh_token;
  const expiresIn = json?.expires_in;
  if (reply.status !== 200 || typeof access !== "string" || typeof refreshToken !== "string" || typeof expiresIn !== "number" || expiresIn <= 0) {
    throw new Error(`OpenAI did not issue tokens (${step === "exchange" ? "code exchange" : "refresh"}): ${describeFailure(reply)}.`);
  }
  const scopes = typeof json?.scope === "string" ? json.scope.split(/\s+/).filter(Boolean) : [];
  if (!scopes.includes(DIRECT_USE_SCOPE)) {
    throw new Error(`OpenAI's grant lacks ${DIRECT_USE_SCOPE}: this ChatGPT account cannot use its token with the API.`);
  }
  return {
    type: "oauth",
    access,
    refresh: refreshToken,
    expires: Date.now() + expiresIn * 1000,
    clientId,
    scopes,
    ...(deviceId ? { deviceId } : {}),
  };
}
