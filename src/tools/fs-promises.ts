/**
 * node:fs/promises, imported when a tool first reads or writes rather than at start-up:
 * evaluating it cost every RPC cold start ~1.7 ms before the first answer, and tools
 * and session listing are the only users.
 */
export function fsPromises(): Promise<typeof import("node:fs/promises")> {
  return import("node:fs/promises");
}
