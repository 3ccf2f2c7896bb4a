/**
 * Serializes changes to one file. Tool calls run in parallel by default; two
 * edits of one file must not both read the old text and overwrite each other.
 * Built-in edit/write and extension tools share this queue, keyed by the real
 * path, so symlinked aliases of a file wait for each other too.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

const tails = new Map<string, Promise<unknown>>();

function queueKey(filePath: string): string {
  const absolute = resolve(filePath);
  try {
    return realpathSync(absolute);
  } catch {
    // A file that does not exist yet has no real path; its absolute path is the key.
    return absolute;
  }
}

/** Runs `fn` after every earlier mutation of the same file has settled. */
export function withFileMutationQueue<T>(filePath: string, fn: () => Promise<T>): Promise<T> {
  const key = queueKey(filePath);
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  // Forget the file once its queue drains, so the map does not grow forever.
  tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
