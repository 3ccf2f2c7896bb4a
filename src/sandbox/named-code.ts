/**
 * Code a project's own settings name by path. `.xcsh/settings.json` may list extensions
 * (`"extensions": ["../tools/review.ts"]`), local packages and a `shellPath` that lie in the
 * project, outside `.xcsh/`: once the project is trusted, xcsh runs them at every start,
 * unsandboxed. So under workspace-write they are kept read-only like `.xcsh/` itself
 * (layout.ts). Only existing paths inside the project count (bubblewrap binds what exists;
 * a named path elsewhere is read-only already); a glob stands for the folder it starts in.
 *
 * Read once per settings file as it is (device, inode, modification time): `.xcsh/` is
 * read-only while commands run, so only xcsh's user changes it.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { expandHome, PROJECT_CONFIG_DIR_NAME } from "../config/paths.ts";

const GLOB_CHARS = /[*?[\]{}]/;
const REMOTE_SOURCE = /^(npm:|git:|https?:\/\/|ssh:\/\/|git:\/\/|git@)/;

const cache = new Map<string, { stamp: string; paths: string[] }>();

const isInside = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
};

/** The path an entry names, without its `+` and its glob; undefined for an exclusion or a remote source. */
function namedPath(entry: unknown, baseDir: string): string | undefined {
  if (typeof entry !== "string" || entry.trim() === "") return undefined;
  let text = entry.trim();
  if (text.startsWith("!") || text.startsWith("-") || REMOTE_SOURCE.test(text)) return undefined;
  if (text.startsWith("+")) text = text.slice(1);
  const glob = text.search(GLOB_CHARS);
  if (glob !== -1) text = dirname(`${text.slice(0, glob)}x`);
  return resolve(baseDir, expandHome(text));
}

function entriesOf(settings: Record<string, unknown>): unknown[] {
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  const packages = list(settings.packages).map((entry) => (typeof entry === "object" && entry !== null ? (entry as { source?: unknown }).source : entry));
  return [...list(settings.extensions), ...packages];
}

/** Existing paths inside `root`, outside its `.xcsh/`, that `<root>/.xcsh/settings.json` names as code. */
export function codeNamedBySettings(root: string): string[] {
  const configDir = join(root, PROJECT_CONFIG_DIR_NAME);
  const file = join(configDir, "settings.json");
  let stamp: string;
  try {
    const stat = statSync(file);
    stamp = `${stat.dev}:${stat.ino}:${stat.mtimeMs}:${stat.size}`;
  } catch {
    return [];
  }
  const known = cache.get(file);
  if (known?.stamp === stamp) return known.paths;
  let settings: unknown;
  try {
    settings = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    settings = undefined; // a broken file names nothing xcsh would load
  }
  const paths = new Set<string>();
  if (typeof settings === "object" && settings !== null && !Array.isArray(settings)) {
    const record = settings as Record<string, unknown>;
    for (const entry of entriesOf(record)) {
      const path = namedPath(entry, configDir);
      if (path) paths.add(path);
    }
    if (typeof record.shellPath === "string" && record.shellPath.trim() !== "") paths.add(resolve(root, expandHome(record.shellPath.trim())));
  }
  const kept = [...paths].filter((path) => isInside(path, root) && !isInside(path, configDir) && existsSync(path));
  cache.set(file, { stamp, paths: kept });
  return kept;
}
