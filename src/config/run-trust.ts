/**
 * The project trust this process decided, by working directory, for the settings read
 * far from where trust is settled. `sessionDir` is the one today: session files are
 * found and written from many places (new session, --continue, /resume, /fork, ACP's
 * lists), and a project nobody trusted must not choose where the conversation is kept.
 *
 * A folder nobody decided about is not trusted. The decision is noted when the session
 * starts (src/modes/session-from-args.ts), and before that by commands that look for
 * sessions first (--export, --resume's list: the trust that needs no question); a project
 * trusted later in the run (the interactive question) counts from the next start, as its
 * other settings do.
 */
import { resolve } from "node:path";

const decisions = new Map<string, boolean>();

/** Notes whether the project in `cwd` is trusted for the rest of this run. */
export function noteProjectTrust(cwd: string, trusted: boolean): void {
  decisions.set(resolve(cwd), trusted);
}

/** Whether this run trusted the project in `cwd`; false when nothing was decided. */
export function isProjectTrustedThisRun(cwd: string): boolean {
  return decisions.get(resolve(cwd)) === true;
}
