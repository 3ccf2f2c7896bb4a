/**
 * /import <file>: a session file from elsewhere (another machine, `/export x.jsonl`, a
 * colleague's) copied next to the current session and opened, keeping its id and the
 * folder it was recorded in, as pi 1.6.0's /import does. xcsh writes to the copy only:
 * the file given is never changed. A session recorded in another folder is resumed there
 * (as /resume does, asking when that folder is gone).
 *
 * With --no-session nothing is kept on disk, so nothing is copied either: the session is
 * opened in memory, and the conversation that goes on is not written to the file given
 * (pi copies it all the same). A session recorded in another folder is refused then, with
 * the reason: running it there means opening that project afresh, which starts from a file.
 *
 * A path with spaces may be quoted; `~` is the home folder; a relative path is taken from
 * the working folder. A file that is missing or not a session is said so, and the current
 * session goes on.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { expandHome } from "../../../files/paths.ts";
import { ensurePrivateFolder, writePrivateFileAtomically } from "../../../files/private-files.ts";
import { loadSessionFile } from "../../../session/load-session.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { shortenHome } from "../footer.ts";

/** The path as typed, without the quotes around it. */
function typedPath(args: string): string {
  const text = args.trim();
  const quoted = /^(["'])(.*)\1$/.exec(text);
  return quoted ? quoted[2]! : text;
}

/** `name.jsonl` in `folder`, or `name-1.jsonl`, `name-2.jsonl`… when that is taken. */
function freeName(folder: string, file: string): string {
  const extension = extname(file) || ".jsonl";
  const stem = basename(file, extname(file));
  let candidate = join(folder, `${stem}${extension}`);
  for (let counter = 1; existsSync(candidate); counter++) candidate = join(folder, `${stem}-${counter}${extension}`);
  return candidate;
}

async function importSession(app: App, args: string): Promise<void> {
  const typed = typedPath(args);
  if (!typed) return app.say("✗ /import needs a session file", "/import <path to a .jsonl session>", "error");
  const source = resolve(app.cwd, expandHome(typed));
  let recordedCwd: string;
  try {
    const loaded = loadSessionFile(source);
    if (loaded.kind === "missing") return app.say(`✗ No file ${shortenHome(source)}`, "", "error");
    if (loaded.kind === "fresh") return app.say(`✗ ${shortenHome(source)} is not a session`, "it has no session header line", "error");
    recordedCwd = loaded.header.cwd;
  } catch (error) {
    return app.say(`✗ Cannot import ${shortenHome(source)}`, (error as Error).message, "error");
  }
  const manager = app.session.sessionManager;
  const elsewhere = Boolean(recordedCwd) && resolve(recordedCwd) !== resolve(app.cwd);
  if (!manager.isPersisted()) return openInMemory(app, source, elsewhere ? recordedCwd : undefined);
  const folder = manager.getSessionDir();
  let copy = source;
  // A file already among this folder's sessions is opened as it is.
  if (resolve(folder) !== resolve(source, "..")) {
    try {
      ensurePrivateFolder(folder);
      copy = freeName(folder, source);
      writePrivateFileAtomically(copy, readFileSync(source));
    } catch (error) {
      return app.say(`✗ Cannot copy ${shortenHome(source)} into ${shortenHome(folder)}`, (error as Error).message, "error");
    }
  }
  if (copy === manager.getSessionFile()) return app.say("Already in this session", "", "muted");
  if (elsewhere) return app.resumeElsewhere(copy, recordedCwd);
  app.sessionOpening();
  const outcome = await app.session.navigation.switchSession(copy);
  if (outcome.cancelled) return app.say("An extension kept the current session", "", "warning");
  app.redraw(true);
  app.say(`Imported ${shortenHome(source)} as ${shortenHome(copy)}`, "", "accent");
}

/** --no-session: the file is read into this session and nothing is written anywhere. */
async function openInMemory(app: App, source: string, recordedElsewhere: string | undefined): Promise<void> {
  if (recordedElsewhere !== undefined) {
    return app.say(
      `✗ ${shortenHome(source)} was recorded in ${shortenHome(recordedElsewhere)}: not imported in a --no-session run`,
      "it would run in that folder, which opens the session from a file. Start xcsh there, or without --no-session",
      "error",
    );
  }
  app.sessionOpening();
  const outcome = await app.session.navigation.switchSession(source, { inMemory: true });
  if (outcome.cancelled) return app.say("An extension kept the current session", "", "warning");
  app.redraw(true);
  app.say(`Imported ${shortenHome(source)} into memory`, "--no-session: nothing is copied, and the file is not written to", "accent");
}

export const importCommand: BuiltinCommand = {
  name: "import",
  description: "Open a session file from elsewhere (copied next to this one, keeping its id)",
  argumentHint: "<file.jsonl>",
  run: importSession,
};
