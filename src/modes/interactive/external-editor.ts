/**
 * Ctrl+G: the prompt in the person's own editor. The editor is the
 * `externalEditor` setting, else `$VISUAL`, else `$EDITOR`, else `nano` or
 * `vi` (Notepad on Windows). The terminal is handed over while it runs (the
 * UI stops drawing and reading keys), the draft goes in a private temp file,
 * and what the editor saved comes back into the prompt editor. The command is
 * run by the shell, so `code --wait` or `emacs -nw` work as written. A failed
 * editor (not found, non-zero exit) leaves the draft as it was and says why.
 *
 * The editor is a program of xcsh's own (src/sandbox/own-programs.ts): it starts in the
 * draft's folder, not the project (an editor that reads settings from where it starts,
 * vim's `exrc`, must not read the repository's), without the provider keys. A project's
 * settings.json names it only when the project is trusted (config/settings.ts).
 *
 * The draft lies in the agent dir (`drafts/`), not the temp folder: sandboxed commands —
 * this xcsh's, still running while the person writes, or another xcsh's — may write the
 * temp folder as this user, and could read the draft, rewrite it before it comes back as
 * the person's prompt, or swap its folder for a symlink. Every sandbox hides the agent dir.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getAgentDir } from "../../config/paths.ts";
import { ownProgram } from "../../sandbox/own-programs.ts";

/** The command to run, or undefined when there is none to be found. */
export function editorCommand(setting: unknown, env: Record<string, string | undefined> = process.env): string | undefined {
  for (const candidate of [setting, env.VISUAL, env.EDITOR]) {
    if (typeof candidate === "string" && candidate.trim()) return candidate.trim();
  }
  if (process.platform === "win32") return "notepad";
  for (const fallback of ["nano", "vi"]) if (Bun.which(fallback)) return fallback;
  return undefined;
}

export type EditOutcome = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Runs `command` on a file holding `text` while `release` has the terminal
 * handed over; the text saved, without the one final newline editors add.
 */
export async function editInExternalEditor(command: string, text: string, release: (run: () => Promise<number>) => Promise<number>): Promise<EditOutcome> {
  let dir: string;
  try {
    const drafts = join(getAgentDir(), "drafts");
    mkdirSync(drafts, { recursive: true, mode: 0o700 });
    dir = mkdtempSync(join(drafts, "xcsh-edit-"));
  } catch (error) {
    return { ok: false, reason: `The external editor failed: no folder for the draft (${(error as Error).message})` };
  }
  const file = join(dir, "prompt.md");
  try {
    writeFileSync(file, text, { mode: 0o600 });
    const argv = process.platform === "win32" ? ["cmd.exe", "/d", "/s", "/c", `${command} "${file}"`] : ["/bin/sh", "-c", `${command} "$1"`, "xcsh-editor", file];
    const code = await release(async () => {
      try {
        const child = Bun.spawn({ ...ownProgram(argv, { cwd: dir }), stdin: "inherit", stdout: "inherit", stderr: "inherit" });
        return await child.exited;
      } catch {
        return 127;
      }
    });
    if (code !== 0) return { ok: false, reason: `The editor (${command}) exited with code ${code}; the prompt is unchanged` };
    return { ok: true, text: readFileSync(file, "utf8").replace(/\r?\n$/, "") };
  } catch (error) {
    return { ok: false, reason: `The external editor failed: ${(error as Error).message}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
