/**
 * The command that reopens this session, printed when the terminal UI quits (pi 1.6.0
 * does so): `xcsh --session <id>`, with `--session-dir <dir>` when the session is not in
 * the project's default folder. Only for a session kept in a file that exists (a
 * `--no-session` run, or one where nothing was said, has nothing to resume) and only on
 * a terminal: a script that captures stdout never gets the line.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { getDefaultSessionDir } from "../../session/session-paths.ts";
import type { SessionManager } from "../../session/session-manager.ts";

/** A word as a POSIX shell reads it back: plain when it is safe, else single-quoted. */
function shellWord(value: string): string {
  return value.length > 0 && /^[A-Za-z0-9_\-./~:@]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export function resumeCommand(sessions: Pick<SessionManager, "isPersisted" | "getSessionFile" | "getSessionDir" | "getSessionId" | "getCwd">): string | undefined {
  if (!sessions.isPersisted()) return undefined;
  const file = sessions.getSessionFile();
  if (!file || !existsSync(file)) return undefined;
  const words = ["xcsh"];
  if (resolve(sessions.getSessionDir()) !== resolve(getDefaultSessionDir(sessions.getCwd()))) words.push("--session-dir", shellWord(sessions.getSessionDir()));
  words.push("--session", sessions.getSessionId());
  return words.join(" ");
}

/** Writes the hint to a terminal's stdout, once the UI has given the screen back. */
export function printResumeHint(sessions: Parameters<typeof resumeCommand>[0]): void {
  if (!process.stdout.isTTY) return;
  const command = resumeCommand(sessions);
  // The command on a line of its own, so a triple-click selects just it.
  if (command) process.stdout.write(`\x1b[2mTo resume this session:\x1b[22m\n${command}\n`);
}
