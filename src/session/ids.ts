/**
 * Identifiers in a session file: 8 hex characters for entries (short enough to
 * type in `/tree` and `--session` look-ups, unique within one file), a uuid for
 * the session itself.
 */

/** `bytes` random bytes as hex, from Web Crypto: loading node:crypto would cost start-up several milliseconds. */
export function randomHex(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = "";
  for (const byte of buffer) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** Anything that can say whether an id is already taken (a Map or Set of ids). */
export interface IdSet {
  has(id: string): boolean;
}

/** A fresh 8-hex id not in `taken`. Collisions are rare (1 in 4 billion), so retrying is cheap. */
export function generateEntryId(taken: IdSet): string {
  for (;;) {
    const id = randomHex(4);
    if (!taken.has(id)) return id;
  }
}

/**
 * A session id. Time-ordered (uuid v7) like the reference agent's, so ids of
 * sessions sort by creation time.
 */
export function generateSessionId(): string {
  return Bun.randomUUIDv7();
}
