/** How tools turn a path the model wrote into the file it means. */
import { homeDir } from "../config/paths.ts";
import { isAbsolute, resolve } from "node:path";

/**
 * Expands what models commonly write: a leading `@` (copied from a mention),
 * `~` for the home directory, and unusual spaces that look like ordinary ones.
 */
export function expandPath(filePath: string): string {
  let path = filePath.replace(/[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, " ");
  if (path.startsWith("@")) path = path.slice(1);
  if (path === "~") return homeDir();
  if (path.startsWith("~/")) return homeDir() + path.slice(1);
  return path;
}

/** An absolute path: expanded, and resolved against `cwd` when relative. */
export function resolveToCwd(filePath: string, cwd: string): string {
  const expanded = expandPath(filePath);
  return isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
}

export const resolveReadPath = resolveToCwd;
