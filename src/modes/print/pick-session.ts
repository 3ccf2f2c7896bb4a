/**
 * -r/--resume outside the terminal UI (`-p`, `--mode json`): pi 0.87.1 opens its
 * session picker there too, and when nobody can answer it (no terminal on stdin)
 * it runs nothing and exits 0. xcsh does the same, saying so on stderr; on a
 * terminal it lists this project's sessions on stderr, newest first, and reads the
 * number of the one to resume. An empty answer cancels, as Esc does in pi.
 */
import { uniqueIdPrefixes } from "../../session/id-prefix.ts";
import { SessionManager } from "../../session/session-manager.ts";
import type { SessionInfo } from "../../session/types.ts";

/** The session file picked, or why none was (for the caller to say what happens instead). */
/** `noTerminal`: nobody could be asked, a usage error (exit 2) rather than a person's "none". */
export type PickedSession = { kind: "picked"; path: string } | { kind: "cancelled"; reason: string; noTerminal?: true };

const SHOWN = 20;

function describe(info: SessionInfo, index: number, prefixes: Map<string, string>): string {
  const title = (info.name ?? info.firstMessage).replace(/\s+/g, " ").trim() || "(no messages)";
  const shortTitle = title.length > 60 ? `${title.slice(0, 59)}…` : title;
  const when = info.modified.toISOString().slice(0, 16).replace("T", " ");
  // The id's shortest unique start: what `--session` takes to open this one without the picker.
  return `${String(index + 1).padStart(3)}  ${prefixes.get(info.id) ?? info.id}  ${shortTitle}  (${info.messageCountEstimated ? "~" : ""}${info.messageCount} messages, ${when})`;
}

/** Lines typed on the terminal, read one at a time. */
export interface TerminalLines {
  /** The next line, undefined at end of input. */
  next(): Promise<string | undefined>;
  /** Lets go of stdin, which would otherwise keep the process alive. */
  close(): Promise<void>;
}

/** One reader for all of a dialog, so nothing typed ahead is lost between questions. */
export function terminalLines(): TerminalLines {
  const lines = console[Symbol.asyncIterator]();
  return {
    async next() {
      const line = await lines.next();
      return line.done ? undefined : String(line.value);
    },
    async close() {
      await lines.return?.();
    },
  };
}

/** `input`: a reader the caller goes on using afterwards (plain mode); without one, stdin is let go once answered. */
export async function pickSessionOnTerminal(cwd: string, sessionDir: string | undefined, input?: TerminalLines): Promise<PickedSession> {
  if (!process.stdin.isTTY) {
    return { kind: "cancelled", reason: "standard input is not a terminal to pick a session on", noTerminal: true };
  }
  const every = await SessionManager.list(cwd, sessionDir);
  const sessions = [...every].sort((a, b) => b.modified.getTime() - a.modified.getTime()).slice(0, SHOWN);
  if (sessions.length === 0) return { kind: "cancelled", reason: "this project has no saved session" };
  const prefixes = uniqueIdPrefixes(every.map((info) => info.id));
  process.stderr.write(`Sessions of ${cwd}, newest first:\n${sessions.map((info, index) => describe(info, index, prefixes)).join("\n")}\n`);
  const typed = input ?? terminalLines();
  try {
    for (;;) {
      process.stderr.write(`Resume which one (1-${sessions.length}, Enter to cancel)? `);
      const answer = ((await typed.next()) ?? "").trim();
      if (answer === "") return { kind: "cancelled", reason: "no session was picked" };
      const index = Number(answer);
      if (Number.isInteger(index) && index >= 1 && index <= sessions.length) return { kind: "picked", path: sessions[index - 1].path };
      process.stderr.write(`"${answer}" is not a number from 1 to ${sessions.length}.\n`);
    }
  } finally {
    if (!input) await typed.close();
  }
}
