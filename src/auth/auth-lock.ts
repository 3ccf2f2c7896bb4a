/**
 * The cross-process lock around every read-modify-write of auth.json: `auth.json.lock`,
 * created with O_CREAT|O_EXCL (so exactly one process creates it) and holding
 * "<pid> <time> <nonce>". Two xcsh processes whose token expired at the same moment
 * thereby refresh it once: the second waits, then re-reads the file under the lock and
 * finds the fresh token (auth-store.ts).
 *
 * A lock whose holder died (its pid is gone) or that is older than STALE_AFTER_MS is
 * broken. Breaking renames the lock aside first — a rename succeeds for one process
 * only — and checks that what it moved is the lock it judged stale; a fresh lock moved
 * by mistake is linked back. (A third process creating a lock in that instant can still
 * overlap; the window is one rename long and needs a crashed holder to open.)
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** Longer than a refresh may take (its request times out after 15 s). */
const STALE_AFTER_MS = 30_000;
/** How long a process waits for the lock before giving up with an error. */
const WAIT_LIMIT_MS = 40_000;

export class AuthLockError extends Error {
  override readonly name = "AuthLockError";
}

/** Runs `work` while holding the lock of the auth file at `authPath`. */
export async function withAuthLock<T>(authPath: string, work: () => Promise<T>): Promise<T> {
  const lockPath = `${authPath}.lock`;
  const token = await acquire(lockPath);
  try {
    return await work();
  } finally {
    release(lockPath, token);
  }
}

async function acquire(lockPath: string): Promise<string> {
  const token = `${process.pid} ${Date.now()} ${crypto.randomUUID()}`;
  const deadline = Date.now() + WAIT_LIMIT_MS;
  // The first credential of a fresh config root: its folder may not exist yet.
  mkdirSync(dirname(lockPath), { recursive: true, mode: 0o700 });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      try {
        writeSync(fd, token);
      } finally {
        closeSync(fd);
      }
      return token;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") throw new AuthLockError(`Cannot create the lock ${lockPath}: ${(error as Error).message}`);
    }
    const held = readLock(lockPath);
    if (held !== undefined && isStale(lockPath, held)) {
      breakStaleLock(lockPath, held);
      continue;
    }
    if (Date.now() > deadline) {
      throw new AuthLockError(`Timed out waiting for ${lockPath} (held by another xcsh process). Remove the file if no xcsh is running.`);
    }
    // A little jitter, so waiting processes do not retry in lockstep.
    await Bun.sleep(Math.min(25 + attempt * 10, 200) + Math.random() * 25);
  }
}

function release(lockPath: string, token: string): void {
  // Only our own lock: after a long stall someone may have broken it and taken a new one.
  if (readLock(lockPath) === token) rmSync(lockPath, { force: true });
}

function readLock(lockPath: string): string | undefined {
  try {
    return readFileSync(lockPath, "utf8");
  } catch {
    return undefined;
  }
}

function isStale(lockPath: string, content: string): boolean {
  const [pidText, timeText] = content.split(" ");
  const pid = Number(pidText);
  const since = Number(timeText);
  // An empty or torn file: its creator died between create and write, or is writing now.
  if (!Number.isInteger(pid) || !Number.isFinite(since)) return lockAge(lockPath) > 1_000;
  if (Date.now() - since > STALE_AFTER_MS) return true;
  return pid !== process.pid && !processExists(pid);
}

function lockAge(lockPath: string): number {
  const stat = statSync(lockPath, { throwIfNoEntry: false });
  return stat ? Date.now() - stat.mtimeMs : 0;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function breakStaleLock(lockPath: string, judged: string): void {
  const aside = `${lockPath}.${process.pid}.${crypto.randomUUID()}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // someone else broke it (or released it) first
  }
  if (readLock(aside) !== judged) {
    // We moved a lock taken after our judgement: put it back unless a newer one exists.
    try {
      linkSync(aside, lockPath);
    } catch {
      // A newer lock exists; the one we moved is lost to its owner (see the header).
    }
  }
  rmSync(aside, { force: true });
}
