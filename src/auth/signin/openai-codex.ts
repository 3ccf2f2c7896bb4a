/**
 * Signing in to OpenAI Codex with a ChatGPT plan: the authorization code flow with
 * PKCE (RFC 7636) against auth.openai.com. The browser comes back to a local server on
 * 127.0.0.1 (port 1455, the redirect OpenAI registered for this client); when the
 * browser runs elsewhere (ssh, a container), the person pastes the address it was sent
 * to instead. Either way the `state` must match this sign-in's, and the token request
 * proves the code with the verifier. The account id the Codex API wants with each
 * request is read from the access token's claims.
 */
import type { OAuthCredential } from "../auth-file.ts";
import { endpoint, testOverride } from "../test-endpoints.ts";
import { startCallbackServer } from "./callback-server.ts";
import { describeFailure, postForm } from "./http.ts";
import { createPkce, createState } from "./pkce.ts";
import { loginCommand, type LoginIO } from "./providers.ts";

/** The public client id of OpenAI's Codex CLI, the client ChatGPT plans sign in with. */
const CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
const SCOPE = "openid profile email offline_access";
const CALLBACK_PATH = "/auth/callback";
const DEFAULT_CALLBACK_PORT = 1455;
const ACCOUNT_CLAIM = "https://api.openai.com/auth";
const WAIT_LIMIT_MS = 10 * 60_000;
const REQUEST_TIMEOUT_MS = 20_000;

export async function login(io: LoginIO): Promise<OAuthCredential> {
  const { verifier, challenge } = await createPkce();
  const state = createState();
  const port = Number(testOverride("CALLBACK_PORT")) || DEFAULT_CALLBACK_PORT;
  const redirectUri = `http://localhost:${port}${CALLBACK_PATH}`;
  const authorizeUrl = new URL(`${endpoint("OPENAI_AUTH_URL")}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    id_token_add_organizations: "true",
    codex_cli_simplified_flow: "true",
    originator: "xcsh",
  })) {
    authorizeUrl.searchParams.set(name, value);
  }

  const server = startCallbackServer(port, CALLBACK_PATH, state);
  const done = new AbortController();
  const signal = AbortSignal.any([io.signal, done.signal, AbortSignal.timeout(WAIT_LIMIT_MS)]);
  try {
    io.say("To sign in with your ChatGPT plan, open this address in a browser:");
    io.say(`  ${authorizeUrl.href}`);
    io.say(
      server
        ? `Waiting for the browser to return to ${redirectUri}. If the browser runs on another machine, paste the address it was sent to (starting with ${redirectUri}) here.`
        : `Port ${port} is in use, so the browser cannot return here: after signing in, paste the address the browser was sent to (starting with ${redirectUri}) here.`,
    );
    const code = await Promise.race([
      server?.code ?? new Promise<string>(() => {}),
      pastedCode(io, state, server !== undefined),
      aborted(signal),
    ]);
    const credential = await exchangeCode(code, verifier, redirectUri, AbortSignal.any([io.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]));
    io.say("Signed in to OpenAI Codex.");
    return credential;
  } finally {
    done.abort();
    server?.close();
  }
}

export async function refresh(credential: OAuthCredential, signal: AbortSignal): Promise<OAuthCredential> {
  const reply = await postForm(
    `${endpoint("OPENAI_AUTH_URL")}/oauth/token`,
    { grant_type: "refresh_token", refresh_token: credential.refresh, client_id: CLIENT_ID },
    signal,
  );
  return { ...credential, ...tokenCredential(reply, "refresh") };
}

/** Lines pasted on stdin until one carries a code for this sign-in. */
async function pastedCode(io: LoginIO, state: string, serverListening: boolean): Promise<string> {
  while (true) {
    const line = await io.readLine();
    if (line === undefined) {
      // Input ended (not a terminal, or Ctrl-D): the browser may still come back.
      if (serverListening) return new Promise<string>(() => {});
      throw new Error(`No redirect address was pasted. Run \`${loginCommand("openai-codex")}\` again.`);
    }
    const pasted = parsePasted(line);
    if (!pasted) continue;
    if (pasted.state !== undefined && pasted.state !== state) {
      io.say("That address belongs to another sign-in (its state does not match this one); paste the address from this sign-in.");
      continue;
    }
    return pasted.code;
  }
}

/** A pasted redirect address, query string, or bare code. */
function parsePasted(line: string): { code: string; state?: string } | undefined {
  const text = line.trim();
  if (text === "") return undefined;
  const query = URL.canParse(text) ? new URL(text).searchParams : text.includes("code=") ? new URLSearchParams(text.replace(/^[^?]*\?/, "")) : undefined;
  if (!query) return { code: text };
  const error = query.get("error");
  if (error) throw new Error(`The sign-in failed at OpenAI: ${error}${query.get("error_description") ? ` (${query.get("error_description")})` : ""}.`);
  const code = query.get("code");
  return code ? { code, state: query.get("state") ?? undefined } : undefined;
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(new Error(signal.reason?.name === "TimeoutError" ? "No sign-in arrived within 10 minutes." : "Sign-in cancelled."));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

async function exchangeCode(code: string, verifier: string, redirectUri: string, signal: AbortSignal): Promise<OAuthCredential> {
  const reply = await postForm(
    `${endpoint("OPENAI_AUTH_URL")}/oauth/token`,
    { grant_type: "authorization_code", client_id: CLIENT_ID, code, code_verifier: verifier, redirect_uri: redirectUri },
    signal,
  );
  return tokenCredential(reply, "exchange");
}

function tokenCredential(reply: Awaited<ReturnType<typeof postForm>>, step: "exchange" | "refresh"): OAuthCredential {
  const json = reply.json;
  const access = json?.access_token;
  const refresh = json?.refresh_token;
  const expiresIn = json?.expires_in;
  if (reply.status !== 200 || typeof access !== "string" || typeof refresh !== "string" || typeof expiresIn !== "number") {
    throw new Error(`OpenAI did not issue tokens (${step === "exchange" ? "code exchange" : "refresh"}): ${describeFailure(reply)}.`);
  }
  const accountId = chatgptAccountId(access);
  if (!accountId) throw new Error("OpenAI's access token names no ChatGPT account; is the account on a ChatGPT plan?");
  return { type: "oauth", access, refresh, expires: Date.now() + expiresIn * 1000, accountId };
}

/** The ChatGPT account id from the access token (a JWT) — read, not verified: it is our own token. */
function chatgptAccountId(accessToken: string): string | undefined {
  const payload = accessToken.split(".")[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const id = claims?.[ACCOUNT_CLAIM]?.chatgpt_account_id;
    return typeof id === "string" && id !== "" ? id : undefined;
  } catch {
    return undefined;
  }
}
