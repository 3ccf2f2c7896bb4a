/**
 * grep's search workers: a pool of threads (search-worker.ts) that read and
 * search batches of local files while grep's own thread walks the tree. A pool
 * lives for one search — started when the walk has gone past enough files for
 * threads to pay, ended (every worker terminated) when the search ends, stops
 * or is aborted — so nothing of it exists before grep runs or after it returns.
 *
 * A worker that fails (its script cannot load, it crashes) costs speed, not
 * results: its batches, and any submitted after it, are searched on the
 * calling thread instead.
 */
import { dirname, join } from "node:path";
import type { FileOutcome, GrepQuery } from "./grep-search.ts";
import type { BatchMessage, BatchReply, StartMessage } from "./search-worker.ts";

/** At most this many workers, however many cores there are: past it the disk is the limit. */
const MAX_WORKERS = 8;

/**
 * Batches a worker may have queued before the calling thread searches the
 * next one itself: enough to keep it busy while that thread walks and
 * searches between two looks at its messages.
 */
const QUEUED_PER_WORKER = 4;

/**
 * How many workers a large search gets: one per core beyond the calling
 * thread's own, which walks and searches too; so none on one core.
 */
export function searchWorkerCount(): number {
  // node:os is loaded here, at the first large search, not at start-up.
  const { availableParallelism } = require("node:os") as typeof import("node:os");
  return Math.min(availableParallelism() - 1, MAX_WORKERS);
}

/**
 * Where the worker script is. From source (tests, `bun src/cli/main.ts`) it is
 * the .ts file beside this one; in the compiled executable it is the build
 * entry point `tools/search-worker.js` beside the main entry in Bun's embedded
 * file system (see WORKER_ENTRY_POINTS in scripts/build-flags.ts).
 */
function workerScript(): string {
  if (import.meta.url.endsWith(".ts")) return new URL("./search-worker.ts", import.meta.url).href;
  return join(dirname(Bun.main), "tools", "search-worker.js");
}

interface PendingBatch {
  paths: string[];
  worker: PoolWorker;
  resolve(results: FileOutcome[]): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  /** Its element of `shared`, counting the batches it has finished; slot + count is set once it has started. */
  slot: number;
  submitted: number;
  alive: boolean;
}

export class SearchPool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, PendingBatch>();
  /**
   * Element 0: the cancel flag; element i + 1: batches worker i has finished;
   * element count + i + 1: non-zero once worker i has started.
   */
  private readonly shared: Int32Array;
  private readonly count: number;
  private nextId = 0;
  private closed = false;

  /**
   * @param searchInProcess searches a batch on the calling thread, for batches
   *   whose worker failed.
   */
  constructor(
    count: number,
    query: GrepQuery,
    rootPrefix: string,
    private readonly searchInProcess: (paths: string[]) => FileOutcome[],
  ) {
    this.count = count;
    this.shared = new Int32Array(new SharedArrayBuffer(4 * (2 * count + 1)));
    for (let slot = 1; slot <= count; slot++) {
      let worker: Worker;
      try {
        worker = new Worker(workerScript());
      } catch {
        continue;
      }
      const member: PoolWorker = { worker, slot, submitted: 0, alive: true };
      worker.onmessage = (event: MessageEvent<BatchReply>) => this.settle(event.data);
      worker.onerror = () => this.fail(member);
      worker.addEventListener("close", () => this.fail(member));
      const start: StartMessage = { type: "start", query, rootPrefix, shared: this.shared, slot, startedSlot: slot + count };
      worker.postMessage(start);
      this.workers.push(member);
    }
  }

  /**
   * Searches a batch of paths (relative to the root) on the least busy
   * worker; undefined when every worker has enough queued, so the caller had
   * better search this batch itself.
   */
  trySubmit(paths: string[]): Promise<FileOutcome[]> | undefined {
    if (this.closed) return Promise.reject(new Error("search pool closed"));
    let target: PoolWorker | undefined;
    let targetQueued = QUEUED_PER_WORKER;
    for (const member of this.workers) {
      // A worker still starting (a new thread takes tens of milliseconds) gets nothing yet: the caller searches meanwhile.
      if (!member.alive || Atomics.load(this.shared, member.slot + this.count) === 0) continue;
      const queued = member.submitted - Atomics.load(this.shared, member.slot);
      if (queued < targetQueued) {
        target = member;
        targetQueued = queued;
      }
    }
    if (!target) return undefined;
    const id = this.nextId++;
    const worker = target;
    worker.submitted++;
    const message: BatchMessage = { type: "batch", id, paths: paths.join("\0") };
    const result = new Promise<FileOutcome[]>((resolve, reject) => this.pending.set(id, { paths, worker, resolve, reject }));
    worker.worker.postMessage(message);
    return result;
  }

  /** Tells the workers to stop reading files: enough has been found. */
  cancel(): void {
    Atomics.store(this.shared, 0, 1);
  }

  /** Terminates every worker; batches still out are rejected with `reason`. */
  close(reason: Error = new Error("search pool closed")): void {
    if (this.closed) return;
    this.closed = true;
    this.cancel();
    for (const member of this.workers) {
      member.alive = false;
      member.worker.terminate();
    }
    for (const batch of this.pending.values()) batch.reject(reason);
    this.pending.clear();
  }

  private settle(reply: BatchReply): void {
    const batch = this.pending.get(reply.id);
    if (!batch) return;
    this.pending.delete(reply.id);
    if ("results" in reply) batch.resolve(reply.results);
    else batch.resolve(this.searchInProcess(batch.paths));
  }

  /** A worker that errored or exited on its own: its batches are searched here. */
  private fail(member: PoolWorker): void {
    if (!member.alive || this.closed) return;
    member.alive = false;
    member.worker.terminate();
    for (const [id, batch] of this.pending) {
      if (batch.worker !== member) continue;
      this.pending.delete(id);
      batch.resolve(this.searchInProcess(batch.paths));
    }
  }
}
