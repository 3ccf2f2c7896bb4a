/**
 * What config/ asks auth/ for: the stored credential of a provider turned into what a
 * request needs — an API key (a `!command` run once per process, `$VAR`s filled in) or
 * a signed-in account's token, refreshed first when it is about to expire, with the
 * endpoint and headers that account needs. Key order (pi's): `--api-key`, then this,
 * then models.json, then the environment; the registry applies it.
 */
import type { ConfigError } from "../files/errors.ts";
import type { OAuthCredential } from "./auth-file.ts";
import { AuthStore } from "./auth-store.ts";
import { isStoredKeyConfigured, resolveStoredKey, StoredKeyError } from "./stored-key.ts";
import { loginCommand, signInProvider, type RequestAuth } from "./signin/providers.ts";

export type { RequestAuth } from "./signin/providers.ts";

const REFRESH_TIMEOUT_MS = 15_000;

/** Stores by path: every registry of the process shares one (one cache, one in-process refresh). */
const stores = new Map<string, AuthStore>();

export function authStoreAt(path: string): AuthStore {
  let store = stores.get(path);
  if (!store) {
    store = new AuthStore(path);
    stores.set(path, store);
  }
  return store;
}

/**
 * Whether auth.json gives the provider a credential xcsh can use, decided without
 * running a command or the network. Never throws (a broken file counts as none here;
 * `storedRequestAuth` reports it).
 */
export function hasStoredCredential(store: AuthStore, provider: string): boolean {
  if (!store.has(provider)) return false;
  let credential;
  try {
    credential = store.get(provider);
  } catch {
    return false; // the file changed under us into something broken: the request will say so
  }
  if (credential?.type === "api_key") return isStoredKeyConfigured(credential.key);
  return credential?.type === "oauth" && signInProvider(provider) !== undefined;
}

/**
 * The provider's stored credential, ready for a request; undefined when auth.json has
 * none xcsh can use (no entry, an entry without a key, or a sign-in xcsh does not offer,
 * such as a Claude subscription copied from pi). Throws an Error naming the provider and
 * the file when the entry is broken, its key command fails or a refresh is refused.
 */
export async function storedRequestAuth(store: AuthStore, provider: string): Promise<RequestAuth | undefined> {
  let credential;
  try {
    credential = store.get(provider);
  } catch (error) {
    throw new StoredKeyError(`Cannot use the credential of provider "${provider}": ${(error as ConfigError).message}`);
  }
  if (!credential) return undefined;
  if (credential.type === "api_key") {
    if (!isStoredKeyConfigured(credential.key)) return undefined;
    return { apiKey: await resolveStoredKey(credential.key!, credential.env, `provider "${provider}" in ${store.path}`) };
  }
  const signIn = signInProvider(provider);
  if (!signIn) return undefined;
  const isFresh = (candidate: OAuthCredential) => Date.now() + signIn.refreshMarginMs < candidate.expires;
  let fresh: OAuthCredential | undefined;
  try {
    fresh = await store.freshOAuth(provider, isFresh, async (expiring) => {
      const flow = await signIn.loadFlow();
      return flow.refresh(expiring, AbortSignal.timeout(REFRESH_TIMEOUT_MS));
    });
  } catch (error) {
    throw new StoredKeyError(
      `Refreshing the ${signIn.name} sign-in stored in ${store.path} failed: ${(error as Error).message.replace(/\.$/, "")}. ` +
        `Run \`${loginCommand(provider)}\` to sign in again.`,
    );
  }
  if (!fresh) return undefined;
  return signIn.requestAuth(fresh);
}

/**
 * The `env` object of the provider's stored API-key entry: configuration variables
 * (AZURE_OPENAI_BASE_URL, AWS_REGION, …) that win over the process environment for this
 * provider's requests only. Undefined when there is none; never throws (a broken entry is
 * reported by `storedRequestAuth`).
 */
export function storedProviderEnv(store: AuthStore, provider: string): Record<string, string> | undefined {
  if (!store.has(provider)) return undefined;
  try {
    const credential = store.get(provider);
    return credential?.type === "api_key" && credential.env && Object.keys(credential.env).length > 0 ? { ...credential.env } : undefined;
  } catch {
    return undefined;
  }
}

/** The endpoint a stored sign-in's account is served at, without refreshing (for building models). */
export function storedBaseUrl(store: AuthStore, provider: string): string | undefined {
  const signIn = signInProvider(provider);
  if (!signIn || !store.has(provider)) return undefined;
  const credential = store.get(provider);
  return credential?.type === "oauth" ? signIn.requestAuth(credential).baseUrl : undefined;
}

/**
 * The ids of the models a stored sign-in's account may pick, when the provider said at
 * sign-in (Copilot's `availableModelIds`); undefined when it did not.
 */
export function storedModelIds(store: AuthStore, provider: string): string[] | undefined {
  if (!signInProvider(provider) || !store.has(provider)) return undefined;
  const credential = store.get(provider);
  const ids = credential?.type === "oauth" ? credential.availableModelIds : undefined;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : undefined;
}
