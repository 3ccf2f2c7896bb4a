/**
 * grep over a directory: the walk, the reads and the order results are
 * reported in. Results always arrive in walk order (sorted paths), however
 * the reading is spread out, and the walk stops once the sink has enough.
 *
 * Local trees are searched on this thread while small; past
 * PARALLEL_AFTER_FILES files, search workers (grep-parallel.ts) are started,
 * and once one is running batches go to it, to read and search while this
 * thread walks — and searches the batches no running worker has room for. Trees behind custom operations are read through them,
 * several files ahead.
 */
import { sep } from "node:path";
import { STOP_WALK, walkDirectory, type DirectorySource, type WalkEntry } from "./file-walker.ts";
import { SearchPool, searchWorkerCount } from "./grep-parallel.ts";
import { searchLocalFile, type FileOutcome, type GrepQuery, type LineMatcher } from "./grep-search.ts";

/** Takes each file's matches (or word that it was too large to search) in order; false once it wants no more. */
export interface MatchSink {
  add(file: FileOutcome): boolean;
}

/** Files searched ahead of the one being reported through custom operations, so slow (remote) reads overlap. */
const READ_CONCURRENCY = 32;
/**
 * Local files searched on this thread before search workers are started for
 * the rest. Early, because a worker takes tens of milliseconds to start, and
 * on a large tree every one of them it is not there costs a core's share of
 * the search (on 44 000 files of real code, starting at 100 files instead of
 * 2000 took the search from ~1.13× ripgrep's time to ~1.03×). A tree that ends
 * before a worker is ready is searched here alone — workers are given batches
 * only once started — so a small project pays only for starting the thread
 * (2–6 ms of this thread's time).
 */
export const PARALLEL_AFTER_FILES = 100;
/** Files per batch handed to a worker. */
const BATCH_FILES = 256;
/** Batches searched but not yet reported, at most: bounds memory and the work past an early stop. */
const MAX_QUEUED_BATCHES = 16;

function abortError(): Error {
  return new Error("Operation aborted");
}

/** A batch's results, in walk order among the others; `files` is set once it is searched. */
interface QueuedBatch {
  files?: FileOutcome[];
  settled: Promise<void>;
}

/**
 * Searches a local tree. The first PARALLEL_AFTER_FILES files are searched
 * here as the walk meets them; past that, with more than one core, the rest
 * go out in batches of BATCH_FILES: to a started worker when one has room,
 * else searched here between steps of the walk. Results are taken in walk order as
 * soon as they are in, so the walk stops as soon as the sink has enough. An
 * abort terminates the workers at once.
 */
export async function searchLocalTree(
  root: string,
  sink: MatchSink,
  query: GrepQuery,
  matcher: LineMatcher,
  includeFile: (entry: WalkEntry) => boolean,
  signal: AbortSignal | undefined,
  skipPaths: readonly string[] = [],
): Promise<void> {
  const rootPrefix = root.endsWith(sep) ? root : root + sep;
  const workerCount = searchWorkerCount();
  const searchHere = (paths: string[]): FileOutcome[] => {
    const found: FileOutcome[] = [];
    for (const path of paths) {
      const file = searchLocalFile(rootPrefix + (sep === "/" ? path : path.replaceAll("/", sep)), path, matcher, query);
      if (file) found.push(file);
    }
    return found;
  };

  let pool: SearchPool | undefined;
  let searchedHere = 0;
  let done = false;
  let batch: string[] = [];
  const queue: QueuedBatch[] = [];
  const addAll = (files: FileOutcome[]): void => {
    for (const file of files) {
      if (sink.add(file)) continue;
      done = true;
      pool?.cancel();
      return;
    }
  };
  /** Hands the finished batches at the head of the queue to the sink. */
  const drain = (): void => {
    while (!done && queue.length > 0 && queue[0].files) addAll(queue.shift()!.files!);
  };
  const dispatch = (): void => {
    const paths = batch;
    batch = [];
    const submitted = pool!.trySubmit(paths);
    if (!submitted) {
      queue.push({ files: searchHere(paths), settled: Promise.resolve() });
    } else {
      const queued: QueuedBatch = { settled: Promise.resolve() };
      // A rejection (abort) is seen by whoever awaits the batch, not reported as unhandled.
      queued.settled = submitted.then((files) => {
        queued.files = files;
      });
      queued.settled.catch(() => {});
      queue.push(queued);
    }
    drain();
  };
  /** Waits for the oldest batch, then takes what is ready. */
  const awaitOldest = async (): Promise<void> => {
    await queue[0].settled;
    drain();
  };
  const onAbort = (): void => pool?.close(abortError());
  signal?.addEventListener("abort", onAbort, { once: true });

  try {
    await walkDirectory(
      root,
      (entry) => {
        if (entry.isDirectory || !includeFile(entry)) return;
        if (!pool) {
          const file = searchLocalFile(entry.absolutePath, entry.path, matcher, query);
          if (file && !sink.add(file)) {
            done = true;
            return STOP_WALK;
          }
          if (++searchedHere === PARALLEL_AFTER_FILES && workerCount > 0) pool = new SearchPool(workerCount, query, rootPrefix, searchHere);
          return;
        }
        batch.push(entry.path);
        if (batch.length < BATCH_FILES) return;
        dispatch();
        if (done) return STOP_WALK;
        if (queue.length < MAX_QUEUED_BATCHES) return;
        return awaitOldest().then(() => (done ? STOP_WALK : undefined));
      },
      { signal, skipPaths },
    );
    if (!done && pool && batch.length > 0) dispatch();
    while (queue.length > 0 && !done) {
      if (signal?.aborted) throw abortError();
      await awaitOldest();
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    pool?.close();
  }
}

/**
 * Searches a tree through custom operations: walked through `source` when
 * they can list directories (else locally), each file loaded by `search`.
 * Up to READ_CONCURRENCY files are read ahead, but results are reported in
 * walk order.
 */
export async function searchTreeThrough(
  root: string,
  sink: MatchSink,
  search: (entry: WalkEntry) => Promise<FileOutcome | undefined>,
  includeFile: (entry: WalkEntry) => boolean,
  source: DirectorySource | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const pending: Promise<FileOutcome | undefined>[] = [];
  let done = false;
  const reportOldest = async (): Promise<void> => {
    const file = await pending.shift();
    if (file && !done && !sink.add(file)) done = true;
  };

  await walkDirectory(
    root,
    (entry) => {
      if (entry.isDirectory || !includeFile(entry)) return;
      pending.push(search(entry));
      if (pending.length < READ_CONCURRENCY) return;
      return reportOldest().then(() => (done ? STOP_WALK : undefined));
    },
    { signal, source },
  );
  while (pending.length > 0 && !done) {
    if (signal?.aborted) throw abortError();
    await reportOldest();
  }
}
