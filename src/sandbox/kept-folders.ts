/**
 * Folders xcsh itself writes into for the rest of the run, outside the sandbox, that may lie
 * inside a writable folder: the session's folder (`--session-dir`, settings' `sessionDir`, a
 * `--session` file in the project). A command that swapped one for a symlink, or the session
 * file in it, would have xcsh append the conversation — text the model chose — to a file
 * or folder of the user's (`~/.bashrc`, `~/.bashrc.d/`), where a shell runs it. So the
 * sandbox keeps them read-only for commands and for the write and edit tools (layout.ts).
 *
 * A list and nothing more, so that the session store can name its folder without
 * depending on the sandbox's machinery.
 */
const kept = new Set<string>();

/** Keeps `folder` (an absolute path) out of commands' reach from the next command on. */
export function keepFromCommands(folder: string): void {
  kept.add(folder);
}

export function keptFolders(): string[] {
  return [...kept];
}
