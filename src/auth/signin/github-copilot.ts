/**
 * Signing in to GitHub Copilot: the device flow (RFC 8628) against github.com gives a
 * GitHub token; that token, exchanged at api.github.com, gives a Copilot API token that
 * lives about half an hour. auth.json keeps both as pi does — `refresh` is the GitHub
 * token, `access` the Copilot token, `expires` five minutes before the Copilot token
 * runs out — so "refreshing" is simply exchanging the GitHub token again.
 *
 * GitHub Enterprise Server: the same flow at `https://<domain>` and `https://api.<domain>`;
 * the domain is kept as `enterpriseUrl` (pi's field) so that refreshes go back there.
 *
 * At sign-in the account's Copilot API is asked which models it may pick (`GET /models`);
 * their ids are kept as `availableModelIds` (pi's field) and the model list offers only
 * those. The sign-in never fails for want of that list: without it, every model is offered.
 */
import type { OAuthCredential } from "../auth-file.ts";
import { endpoint, testOverride } from "../test-endpoints.ts";
import { parseDeviceGrant, pollDeviceGrant, type PollOutcome } from "./device-code.ts";
import { describeFailure, getJson, postForm } from "./http.ts";
import { COPILOT_STATIC_HEADERS, copilotRequestAuth, loginCommand, normalizeEnterpriseDomain, type LoginIO, type LoginOptions } from "./providers.ts";

/** The public OAuth app id of GitHub's Copilot editor integrations. */
const CLIENT_ID = "Iv1.b507a08c87ecfe98";
const DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";
const EXPIRY_MARGIN_MS = 5 * 60_000;
const REQUEST_TIMEOUT_MS = 20_000;

/** Where to sign in: github.com (or its test override), or an Enterprise server's domain. */
interface GitHubHost {
  web: string;
  api: string;
  enterpriseDomain?: string;
}

function githubHost(enterpriseUrl: unknown): GitHubHost {
  if (typeof enterpriseUrl !== "string" || enterpriseUrl === "") return { web: endpoint("GITHUB_URL"), api: endpoint("GITHUB_API_URL") };
  const domain = normalizeEnterpriseDomain(enterpriseUrl);
  if (!domain) throw new Error(`"${enterpriseUrl}" is not a GitHub Enterprise domain (for example ghe.example.com).`);
  // Test-only: the fake Enterprise server speaks plain HTTP.
  const scheme = testOverride("ENTERPRISE_SCHEME") === "http" ? "http" : "https";
  return { web: `${scheme}://${domain}`, api: `${scheme}://api.${domain}`, enterpriseDomain: domain };
}

export async function login(io: LoginIO, options: LoginOptions = {}): Promise<OAuthCredential> {
  const host = githubHost(options.enterpriseDomain);
  const github = host.web;
  const started = await postForm(`${github}/login/device/code`, { client_id: CLIENT_ID, scope: "read:user" }, withTimeout(io.signal), {
    "User-Agent": COPILOT_STATIC_HEADERS["User-Agent"],
  });
  if (started.status !== 200) throw new Error(`GitHub refused to start the sign-in: ${describeFailure(started)}.`);
  const grant = parseDeviceGrant(started.json, "GitHub");

  io.say(`To sign in to GitHub Copilot, open ${grant.verificationUri} and enter the code ${grant.userCode}`);
  io.say("Waiting for you to authorize xcsh…");

  const githubToken = await pollDeviceGrant(grant, () => pollAccessToken(github, grant.deviceCode, io.signal), io.signal);
  const exchanged = await exchangeForCopilotToken(host, githubToken, withTimeout(io.signal));
  const credential: OAuthCredential = host.enterpriseDomain ? { ...exchanged, enterpriseUrl: host.enterpriseDomain } : exchanged;
  const modelIds = await accountModelIds(credential, withTimeout(io.signal));
  io.say("Signed in to GitHub Copilot.");
  return modelIds ? { ...credential, availableModelIds: modelIds } : credential;
}

export async function refresh(credential: OAuthCredential, signal: AbortSignal): Promise<OAuthCredential> {
  const fresh = await exchangeForCopilotToken(githubHost(credential.enterpriseUrl), credential.refresh, signal);
  // Fields a pi-written entry carries (enterpriseUrl, availableModelIds) are kept.
  return { ...credential, ...fresh };
}

async function pollAccessToken(github: string, deviceCode: string, signal: AbortSignal): Promise<PollOutcome<string>> {
  const reply = await postForm(
    `${github}/login/oauth/access_token`,
    { client_id: CLIENT_ID, device_code: deviceCode, grant_type: DEVICE_GRANT_TYPE },
    withTimeout(signal),
    { "User-Agent": COPILOT_STATIC_HEADERS["User-Agent"] },
  );
  const token = reply.json?.access_token;
  if (typeof token === "string" && token !== "") return { done: token };
  // GitHub answers these with 200, RFC 8628 with 400: read the error either way.
  switch (reply.json?.error) {
    case "authorization_pending":
      return { pending: true };
    case "slow_down": {
      const interval = reply.json.interval;
      return { slowDown: true, interval: typeof interval === "number" ? interval : undefined };
    }
    case "expired_token":
      throw new Error(`The code expired before it was entered. Run \`${loginCommand("github-copilot")}\` again.`);
    case "access_denied":
      throw new Error("The sign-in was denied on GitHub.");
    default:
      throw new Error(`GitHub did not issue a token: ${describeFailure(reply)}.`);
  }
}

/** The Copilot API token for a GitHub token, as a credential to store. */
async function exchangeForCopilotToken(host: GitHubHost, githubToken: string, signal: AbortSignal): Promise<OAuthCredential> {
  const reply = await getJson(`${host.api}/copilot_internal/v2/token`, signal, {
    Authorization: `Bearer ${githubToken}`,
    ...COPILOT_STATIC_HEADERS,
  });
  if (reply.status === 401 || reply.status === 403) {
    throw new Error(`GitHub refused the Copilot token (${describeFailure(reply)}); the GitHub sign-in was revoked or the account has no Copilot plan.`);
  }
  const token = reply.json?.token;
  const expiresAt = reply.json?.expires_at;
  if (reply.status !== 200 || typeof token !== "string" || typeof expiresAt !== "number") {
    throw new Error(`GitHub did not issue a Copilot token: ${describeFailure(reply)}.`);
  }
  return { type: "oauth", refresh: githubToken, access: token, expires: expiresAt * 1000 - EXPIRY_MARGIN_MS };
}

/**
 * The ids of the models the account may pick, from its Copilot API's `/models`: those its
 * policy has not disabled and that are meant for a model picker. Undefined when the list
 * cannot be had (any failure: the sign-in itself succeeded) or names no model.
 */
async function accountModelIds(credential: OAuthCredential, signal: AbortSignal): Promise<string[] | undefined> {
  const auth = copilotRequestAuth(credential);
  let reply;
  try {
    reply = await getJson(`${auth.baseUrl}/models`, signal, { ...auth.headers, Authorization: `Bearer ${auth.apiKey}` });
  } catch {
    return undefined;
  }
  const data = reply.status === 200 ? reply.json?.data : undefined;
  if (!Array.isArray(data)) return undefined;
  const ids = data
    .filter((entry): entry is Record<string, unknown> => typeof entry === "object" && entry !== null)
    .filter((entry) => entry.model_picker_enabled !== false && (entry.policy as { state?: unknown } | undefined)?.state !== "disabled")
    .map((entry) => entry.id)
    .filter((id): id is string => typeof id === "string" && id !== "");
  return ids.length > 0 ? [...new Set(ids)] : undefined;
}

function withTimeout(signal: AbortSignal): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
}
