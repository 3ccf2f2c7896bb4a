/**
 * Proof Key for Code Exchange (RFC 7636): the client keeps a random `code_verifier`
 * and sends only its S256 `code_challenge` (BASE64URL(SHA-256(verifier)), no padding)
 * with the authorization request; the token request must then show the verifier, so a
 * code intercepted on its way back is useless to anyone else. 32 random bytes give a
 * 43-character verifier, the shortest the RFC allows, from its unreserved alphabet.
 */

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function base64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

export async function createPkce(): Promise<Pkce> {
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64Url(new Uint8Array(digest)) };
}

/** An unguessable `state`, which the redirect must bring back unchanged (CSRF protection). */
export function createState(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
}
