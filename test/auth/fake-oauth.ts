/**
 * A fake of the authorization servers xcsh signs in with, on one local port:
 * GitHub's device flow and Copilot token exchange, and OpenAI's authorize/token
 * endpoints. It records what it was asked (with times, so polling intervals can be
 * checked) and answers from a small script a test sets.
 */
import { createHash } from "node:crypto";

export interface DevicePoll {
  at: number;
  form: Record<string, string>;
}

export interface FakeOAuth {
  url: string;
  /** Answers of the GitHub access-token endpoint, in order; the last one repeats. */
  devicePollAnswers: Array<Record<string, unknown>>;
  devicePolls: DevicePoll[];
  /** User codes "entered" on the verification page (a POST to it); the token waits for USER_CODE. */
  enteredCodes: string[];
  deviceCodeRequests: Array<Record<string, string>>;
  /** Copilot token exchanges seen (their Authorization headers). */
  copilotTokenRequests: string[];
  /** The Host each device-code and Copilot token request was sent to (GitHub Enterprise: `api.<domain>`). */
  hostsAsked: Array<{ path: string; host: string }>;
  /** The status the Copilot token endpoint answers with (200: a fresh token). */
  copilotTokenStatus: number;
  /** Delay before the Copilot token endpoint answers (to make refreshes overlap). */
  copilotTokenDelayMs: number;
  /** The Copilot tokens issued, in order. */
  copilotTokensIssued: string[];
  /** What the Copilot API's `GET /models` answers (undefined: 404), when XCSH_TEST_OAUTH_COPILOT_API_URL points here. */
  copilotModels: unknown;
  /** The Authorization headers of the `/models` requests. */
  copilotModelsRequests: string[];
  /** OpenAI token endpoint requests (form fields). */
  openaiTokenRequests: Array<Record<string, string>>;
  /** The code_challenge the token endpoint checks a code_verifier against (set by the test). */
  expectedChallenge: string | undefined;
  openaiTokenDelayMs: number;
  /** The OpenAI access tokens issued, in order. */
  openaiAccessTokens: string[];
  close(): Promise<void>;
}

export const USER_CODE = "WDJB-MJHT";
export const GITHUB_TOKEN = "gho_fake_github_token";
export const CHATGPT_ACCOUNT = "acct-1234";
/** The client id OpenAI issues a Sign in with ChatGPT agent at sign-in (it comes back with the redirect). */
export const CHATGPT_ISSUED_CLIENT = "agent-client-issued-1";

/** A JWT-shaped token (unsigned: xcsh only reads its claims) naming a ChatGPT account. */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part(claims)}.sig`;
}

export function startFakeOAuth(): FakeOAuth {
  let copilotSerial = 0;
  let openaiSerial = 0;
  const state: FakeOAuth = {
    url: "",
    devicePollAnswers: [{ access_token: GITHUB_TOKEN, token_type: "bearer", scope: "read:user" }],
    devicePolls: [],
    enteredCodes: [],
    deviceCodeRequests: [],
    copilotTokenRequests: [],
    hostsAsked: [],
    copilotTokenStatus: 200,
    copilotTokenDelayMs: 0,
    copilotTokensIssued: [],
    copilotModels: undefined,
    copilotModelsRequests: [],
    openaiTokenRequests: [],
    expectedChallenge: undefined,
    openaiTokenDelayMs: 0,
    openaiAccessTokens: [],
    close: async () => {},
  };
  const json = (body: unknown, status = 200) => Response.json(body, { status });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const form = request.method === "POST" ? Object.fromEntries(new URLSearchParams(await request.text())) : {};
      state.hostsAsked.push({ path: url.pathname, host: request.headers.get("host") ?? "" });
      switch (url.pathname) {
        case "/login/device/code":
          state.deviceCodeRequests.push(form);
          return json({ device_code: "dev-code-1", user_code: USER_CODE, verification_uri: `${state.url}/login/device`, interval: 1, expires_in: 900 });
        case "/login/device":
          state.enteredCodes.push(form.user_code ?? "");
          return new Response("Device authorized");
        case "/login/oauth/access_token": {
          state.devicePolls.push({ at: Date.now(), form });
          if (state.devicePollAnswers.length > 1) return json(state.devicePollAnswers.shift());
          // The last answer (a token, usually) only once the person has entered the code.
          if (!state.enteredCodes.includes(USER_CODE)) return json({ error: "authorization_pending" });
          return json(state.devicePollAnswers[0]);
        }
        case "/copilot_internal/v2/token": {
          state.copilotTokenRequests.push(request.headers.get("authorization") ?? "");
          if (state.copilotTokenDelayMs) await Bun.sleep(state.copilotTokenDelayMs);
          if (state.copilotTokenStatus !== 200) return json({ message: "Bad credentials" }, state.copilotTokenStatus);
          const token = `tid=t${++copilotSerial};exp=9;proxy-ep=proxy.business.githubcopilot.com;sku=x`;
          state.copilotTokensIssued.push(token);
          return json({ token, expires_at: Math.floor(Date.now() / 1000) + 1800, refresh_in: 1500 });
        }
        case "/models":
          state.copilotModelsRequests.push(request.headers.get("authorization") ?? "");
          return state.copilotModels === undefined ? json({ error: "not_found" }, 404) : json(state.copilotModels);
        case "/oauth/token": {
          state.openaiTokenRequests.push(form);
          if (state.openaiTokenDelayMs) await Bun.sleep(state.openaiTokenDelayMs);
          if (form.grant_type === "authorization_code") {
            const challenge = form.code_verifier ? createHash("sha256").update(form.code_verifier).digest("base64url") : undefined;
            if (form.code !== "auth-code-1" || !challenge || challenge !== state.expectedChallenge) {
              return json({ error: "invalid_grant", error_description: "code or code_verifier does not match" }, 400);
            }
          } else if (form.grant_type !== "refresh_token") {
            return json({ error: "unsupported_grant_type" }, 400);
          }
          const access = fakeJwt({ n: ++openaiSerial, "https://api.openai.com/auth": { chatgpt_account_id: CHATGPT_ACCOUNT } });
          state.openaiAccessTokens.push(access);
          return json({ access_token: access, refresh_token: `refresh-${openaiSerial}`, id_token: "x.y.z", expires_in: 3600 });
        }
        case "/api/accounts/oauth/token": {
          // Sign in with ChatGPT for the API: a client registered at sign-in, tokens for api.openai.com.
          state.openaiTokenRequests.push(form);
          if (form.client_id !== CHATGPT_ISSUED_CLIENT || form.resource !== "https://api.openai.com/v1") {
            return json({ error: "invalid_client", error_description: "unknown client or resource" }, 400);
          }
          if (form.grant_type === "authorization_code") {
            const challenge = form.code_verifier ? createHash("sha256").update(form.code_verifier).digest("base64url") : undefined;
            if (form.code !== "auth-code-1" || !challenge || challenge !== state.expectedChallenge) {
              return json({ error: "invalid_grant", error_description: "code or code_verifier does not match" }, 400);
            }
          } else if (form.grant_type !== "refresh_token") {
            return json({ error: "unsupported_grant_type" }, 400);
          }
          const access = `chatgpt-api-token-${++openaiSerial}`;
          state.openaiAccessTokens.push(access);
          return json({
            access_token: access,
            refresh_token: `refresh-${openaiSerial}`,
            id_token: "x.y.z",
            scope: "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct",
            expires_in: 3600,
          });
        }
        default:
          return json({ error: "not_found" }, 404);
      }
    },
  });
  state.url = `http://127.0.0.1:${server.port}`;
  state.close = async () => {
    await server.stop(true);
  };
  return state;
}

/** The environment that points xcsh's sign-in flows at the fake (test-only overrides). */
export function fakeOAuthEnv(oauth: FakeOAuth, extra: Record<string, string> = {}): Record<string, string> {
  return {
    XCSH_TEST_OAUTH_GITHUB_URL: oauth.url,
    XCSH_TEST_OAUTH_GITHUB_API_URL: oauth.url,
    XCSH_TEST_OAUTH_OPENAI_AUTH_URL: oauth.url,
    ...extra,
  };
}
