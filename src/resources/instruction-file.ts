/**
 * Reading one instruction file — AGENTS.md / CLAUDE.md, SYSTEM.md, APPEND_SYSTEM.md —
 * whose text goes into the system prompt, and so to the model's provider, without anyone
 * asking. In a cloned repository these files are the stranger's, and so are their kinds:
 *
 * - a link to a file outside the repository (`AGENTS.md -> /home/runner/.aws/credentials`),
 *   into xcsh's config folder or into /proc would send that file to the provider:
 *   link-policy.ts decides (the link's folder, widened to its git work tree);
 * - a pipe would block the start for ever, a device could be anything: only regular files
 *   are read, opened without blocking and checked on the open descriptor;
 * - a huge file (a 2 GB sparse one) would be read whole into memory and sent: refused above
 *   MAX_RESOURCE_BYTES, as skills and prompt templates are.
 *
 * Nothing here throws: a file is there and read, absent (or a folder, or a link to nothing:
 * the next name is looked at, as before), or refused with a reason for the person.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, realpathSync } from "node:fs";
import { readOpenFile } from "../files/read-open-file.ts";
import { linkProblem } from "./link-policy.ts";
import { MAX_RESOURCE_BYTES } from "./markdown-file.ts";

export type InstructionRead = { kind: "text"; content: string } | { kind: "absent" } | { kind: "refused"; reason: string };

/**
 * Reads `path` as an instruction file. With `confine` (the folder it was found in), a link
 * is followed only to a file inside that folder or its git work tree (link-policy.ts, by
 * real path); without it (the person's own config folder) anywhere but the kernel's folders.
 */
export function readInstructionFile(path: string, confine?: string): InstructionRead {
  // Most names looked for are not there: asked without building an error (see kindOf in markdown-file.ts).
  if (!lstatSync(path, { throwIfNoEntry: false })) return { kind: "absent" };
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return { kind: "absent" }; // a link to nothing, or a loop of links: nothing to read
  }
  const problem = linkProblem(real, confine);
  if (problem) return { kind: "refused", reason: problem };
  let descriptor: number;
  try {
    // Non-blocking, so that a pipe cannot hold the open; what it is is asked of the descriptor.
    descriptor = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR") return { kind: "absent" };
    return { kind: "refused", reason: code === "EACCES" || code === "EPERM" ? "it cannot be read (permission denied)" : `it cannot be read (${(error as Error).message})` };
  }
  try {
    const stat = fstatSync(descriptor);
    if (stat.isDirectory()) return { kind: "absent" };
    if (!stat.isFile()) return { kind: "refused", reason: "it is not a regular file (a pipe, a socket or a device)" };
    if (stat.size > MAX_RESOURCE_BYTES) return { kind: "refused", reason: `it is larger than ${MAX_RESOURCE_BYTES / 1024} KiB` };
    const text = readOpenFile(descriptor, stat.size).toString("utf8");
    if (text.includes("\0")) return { kind: "refused", reason: "it is not a text file" };
    return { kind: "text", content: text };
  } catch (error) {
    return { kind: "refused", reason: `it cannot be read (${(error as Error).message})` };
  } finally {
    closeSync(descriptor);
  }
}
