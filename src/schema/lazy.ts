/**
 * A schema built the first time it is asked for. Building one is cheap, but start-up
 * builds many: settings.json's alone is ~250 nodes, and a builder called that often
 * gets compiled by JavaScriptCore's optimizing tiers, whose code costs the process
 * ~2 MiB of resident memory before the first RPC answer. A schema nobody needs yet
 * (no settings file, a command not sent yet) is not built.
 */
export function lazySchema<T>(build: () => T): () => T {
  let schema: T | undefined;
  return () => (schema ??= build());
}
