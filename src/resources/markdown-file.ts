/**
 * Reading one markdown resource (a SKILL.md, a prompt template) without ever
 * throwing: a missing, unreadable, oversized or binary file, a link the project
 * may not follow (link-policy.ts), or one whose
 * frontmatter is not valid YAML, becomes a reason the caller can show. Listing
 * folders is here too, for the same reason.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { parseFrontmatter } from "./frontmatter.ts";
import { linkProblem } from "./link-policy.ts";

/** Resources are prompts for a model: anything larger is a mistake (a log, a data file), not a skill. */
export const MAX_RESOURCE_BYTES = 256 * 1024;

export type MarkdownRead =
  | { ok: true; frontmatter: Record<string, unknown>; body: string }
  | { ok: false; reason: string };

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return "it cannot be read (permission denied)";
  if (code === "ENOENT") return "it does not exist";
  if (code === "EISDIR") return "it is a folder, not a file";
  return `it cannot be read (${(error as Error).message})`;
}

function readText(path: string): string {
  const descriptor = openSync(path, "r");
  try {
    const size = statSync(path).size;
    const buffer = Buffer.alloc(Math.min(size, MAX_RESOURCE_BYTES + 1));
    const read = readSync(descriptor, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(descriptor);
  }
}

/** Reads one resource; with `confine` (a project's place), a link is followed only to a file inside it (link-policy.ts). */
export function readMarkdown(path: string, confine?: string): MarkdownRead {
  let text: string;
  try {
    const problem = linkProblem(realpathSync(path), confine);
    if (problem) return { ok: false, reason: problem };
    const stat = statSync(path);
    if (stat.isDirectory()) return { ok: false, reason: describeOther("folder") };
    if (!stat.isFile()) return { ok: false, reason: describeOther("other") };
    if (stat.size > MAX_RESOURCE_BYTES) return { ok: false, reason: `it is larger than ${MAX_RESOURCE_BYTES / 1024} KiB` };
    text = readText(path);
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
  if (text.includes("\0")) return { ok: false, reason: "it is not a text file" };
  try {
    const { frontmatter, body } = parseFrontmatter(text);
    return { ok: true, frontmatter, body };
  } catch (error) {
    return { ok: false, reason: (error as Error).message.replace(/^Invalid/, "invalid") };
  }
}

/** A folder's entries sorted by name (stable order on every filesystem); none when it cannot be listed. */
export function listFolder(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/**
 * What a path is, following symlinks: undefined when nothing is there, `other`
 * for a link to nowhere, a pipe or a device (never opened: a pipe would block).
 */
export function kindOf(path: string): "file" | "folder" | "other" | undefined {
  // Most places looked at at start-up do not exist. Asking without throwing matters:
  // the first error built costs the process ~1 MiB of memory before its first answer.
  let stat: Stats | undefined;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch {
    // There, but not to be followed (a loop of links, no permission): below.
  }
  if (stat) return stat.isDirectory() ? "folder" : stat.isFile() ? "file" : "other";
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ? "other" : undefined;
  } catch {
    return undefined;
  }
}

/** Why a path that is there is not a resource file. */
export function describeOther(kind: "folder" | "other"): string {
  return kind === "folder" ? "it is a folder, not a file" : "it is not a regular file (a broken link, a pipe or a device)";
}
