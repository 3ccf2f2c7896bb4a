/**
 * A grep search worker: a thread of its own that reads and searches the local
 * files grep hands it in batches (paths relative to the search root), and
 * posts back each batch's matches (and the files too large to search). It is a build entry point of its own
 * (scripts/build-flags.ts), loaded only when a search is large enough to share
 * out (see grep-parallel.ts), and ended by the search that started it.
 *
 * Messages in:  { type: "start", query, rootPrefix, shared, slot, startedSlot }  once, first;
 *               { type: "batch", id, paths }                                     any number.
 * Messages out: { id, results } per batch, in the order received, or { id, error }.
 * `shared` is memory the pool reads without waiting for messages: once its
 * element 0 is non-zero the worker stops reading files (the search has enough
 * matches), and the worker counts each batch it finishes in element `slot`,
 * so the pool knows how busy it is even while its own thread is not taking
 * messages; it sets element `startedSlot` once it has the query, and only then
 * is it given batches (until then grep's own thread searches them).
 */
import { sep } from "node:path";
import { createLineMatcher, searchLocalFile, type FileOutcome, type GrepQuery, type LineMatcher } from "./grep-search.ts";

export interface StartMessage {
  type: "start";
  query: GrepQuery;
  /** The search root with a trailing separator. */
  rootPrefix: string;
  shared: Int32Array;
  /** The element of `shared` that counts this worker's finished batches. */
  slot: number;
  /** The element of `shared` this worker sets once it has the query, ready for batches. */
  startedSlot: number;
}

export interface BatchMessage {
  type: "batch";
  id: number;
  /**
   * `/`-separated paths relative to the root (also the paths shown), joined
   * with NUL: one string crosses to a thread much faster than an array of them.
   */
  paths: string;
}

export type BatchReply = { id: number; results: FileOutcome[] } | { id: number; error: string };

declare const self: Worker;

let start: StartMessage | undefined;
let matcher: LineMatcher | undefined;

function searchBatch(batch: BatchMessage, begun: StartMessage, lineMatcher: LineMatcher): FileOutcome[] {
  const results: FileOutcome[] = [];
  for (const path of batch.paths.split("\0")) {
    if (Atomics.load(begun.shared, 0) !== 0) break;
    const absolutePath = begun.rootPrefix + (sep === "/" ? path : path.replaceAll("/", sep));
    const found = searchLocalFile(absolutePath, path, lineMatcher, begun.query);
    if (found) results.push(found);
  }
  return results;
}

self.onmessage = (event: MessageEvent<StartMessage | BatchMessage>) => {
  const message = event.data;
  if (message.type === "start") {
    start = message;
    matcher = createLineMatcher(message.query);
    Atomics.store(message.shared, message.startedSlot, 1);
    return;
  }
  let reply: BatchReply;
  try {
    if (!start || !matcher) throw new Error("search worker: a batch arrived before its query");
    reply = { id: message.id, results: searchBatch(message, start, matcher) };
  } catch (error) {
    reply = { id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
  if (start) Atomics.add(start.shared, start.slot, 1);
  self.postMessage(reply);
};
