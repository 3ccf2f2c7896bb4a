/**
 * A recursive directory walk for the search tools (grep, find): honours
 * .gitignore files, skips `.git` and `node_modules`, never follows symlinked
 * directories, and reports paths relative to the walk's root.
 *
 * Entries arrive in a fixed order: a directory's entries are sorted with each
 * subdirectory keyed as `name/`, which makes the depth-first order the same as
 * sorting all relative paths by code unit. A caller that stops after N entries
 * therefore has exactly the first N paths in sorted order.
 *
 * The walk reads directories through a DirectorySource: the local disk by
 * default, or a caller's (a remote machine, a container), in which case it
 * never touches the local disk — not even to look for the repository root.
 *
 * Speed on large trees comes from taking file types from `readdir` (no stat per
 * file) and from synchronous directory reads, which Bun does faster than async
 * ones (74 vs 121 ms for 1000 directories of 100 files); the walk still yields
 * to the event loop every few milliseconds so an abort is noticed promptly.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { GitignoreChain, GitignoreRules } from "./gitignore.ts";

export interface WalkEntry {
  /** Relative to the walk's root, `/`-separated. */
  path: string;
  absolutePath: string;
  name: string;
  isDirectory: boolean;
}

/** One entry of a directory listing; anything neither a file nor a directory is left out of it. */
export interface DirectoryEntry {
  name: string;
  isDirectory: boolean;
}

/** Where the walk reads directories and ignore files from. */
export interface DirectorySource {
  /** The entries of a directory (without `.` and `..`); throws when it cannot be read. */
  readdir(absolutePath: string): DirectoryEntry[] | Promise<DirectoryEntry[]>;
  /** A small text file (an ignore file), or undefined when it does not exist. */
  readText(absolutePath: string): string | undefined | Promise<string | undefined>;
}

/** Returned by a visitor to end the walk early. */
export const STOP_WALK = "stop";
/** Returned by a visitor for a directory it does not want entered. */
export const SKIP_DIRECTORY = "skip";
export type WalkControl = typeof STOP_WALK | typeof SKIP_DIRECTORY | void;
export type WalkVisitor = (entry: WalkEntry) => WalkControl | Promise<WalkControl>;

export interface WalkOptions {
  signal?: AbortSignal;
  /** Skip what .gitignore files (and .git/info/exclude) ignore. Default true. */
  respectGitignore?: boolean;
  /** Directory names never entered, at any depth below the root. Default: DEFAULT_SKIPPED_DIRECTORIES. */
  skipDirectories?: readonly string[];
  /** Where directories are read from. Default: the local disk. */
  source?: DirectorySource;
  /** Directories never entered nor shown, as `/`-separated paths relative to the root (folders a sandbox hides). */
  skipPaths?: readonly string[];
}

export const DEFAULT_SKIPPED_DIRECTORIES: readonly string[] = [".git", "node_modules"];

/** How long the walk may hold the event loop before letting timers and aborts run. */
const YIELD_INTERVAL_MS = 8;

export class WalkAbortedError extends Error {
  constructor() {
    super("Operation aborted");
    this.name = "WalkAbortedError";
  }
}

/**
 * Visits every entry below `root` (not `root` itself), directories before
 * their contents. Resolves true when the walk ran to the end, false when the
 * visitor stopped it. Rejects with WalkAbortedError when `signal` aborts.
 */
export async function walkDirectory(root: string, visit: WalkVisitor, options: WalkOptions = {}): Promise<boolean> {
  const walker = new DirectoryWalker(root, visit, options);
  return walker.run();
}

const SLASH = 0x2f;

/** A local directory's entries as sort keys (see DirectoryWalker.listKeys). */
function localKeys(absoluteDir: string): string[] {
  const dirents = readdirSync(absoluteDir, { withFileTypes: true });
  const prefix = absoluteDir.endsWith(sep) ? absoluteDir : absoluteDir + sep;
  const keys: string[] = [];
  for (const dirent of dirents) {
    const kind = entryKind(dirent, prefix);
    if (kind === "file") keys.push(dirent.name);
    else if (kind === "directory") keys.push(`${dirent.name}/`);
  }
  return keys;
}

/** The local disk: types from readdir, a stat only for symlinks and filesystems that report no type. */
export const localDirectorySource: DirectorySource = {
  readdir(absolutePath) {
    const dirents = readdirSync(absolutePath, { withFileTypes: true });
    const prefix = absolutePath.endsWith(sep) ? absolutePath : absolutePath + sep;
    const entries: DirectoryEntry[] = [];
    for (const dirent of dirents) {
      const kind = entryKind(dirent, prefix);
      if (kind !== undefined) entries.push({ name: dirent.name, isDirectory: kind === "directory" });
    }
    return entries;
  },
  readText(absolutePath) {
    // Opened without blocking and read only when it is a regular file: a repository's
    // `.git/info/exclude` may be a FIFO, which a plain read would wait on forever.
    let fd: number | undefined;
    try {
      fd = openSync(absolutePath, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.size > MAX_IGNORE_FILE_BYTES) return undefined;
      return readFileSync(fd, "utf8");
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  },
};

/** An ignore file larger than this is not one (a planted log, a device): it is not read. */
const MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

class DirectoryWalker {
  private readonly skip: ReadonlySet<string>;
  private readonly skipPaths: ReadonlySet<string>;
  private readonly respectGitignore: boolean;
  private readonly source: DirectorySource;
  /** The walk root's path relative to the directory ignore patterns are anchored to, "" or ending in `/`. */
  private ignorePrefix = "";
  private lastYield = performance.now();

  constructor(
    private readonly root: string,
    private readonly visit: WalkVisitor,
    private readonly options: WalkOptions,
  ) {
    this.skip = new Set(options.skipDirectories ?? DEFAULT_SKIPPED_DIRECTORIES);
    this.skipPaths = new Set(options.skipPaths ?? []);
    this.respectGitignore = options.respectGitignore ?? true;
    this.source = options.source ?? localDirectorySource;
  }

  async run(): Promise<boolean> {
    this.throwIfAborted();
    const chain = this.respectGitignore ? await this.ancestorRules() : GitignoreChain.empty;
    return this.walk(this.root, "", chain);
  }

  /**
   * Inside a git repository, the ignore files between the repository root and
   * the walk root apply too (as git applies them), plus .git/info/exclude.
   */
  private async ancestorRules(): Promise<GitignoreChain> {
    const repoRoot = this.source === localDirectorySource ? findRepositoryRoot(this.root) : await findRepositoryRootIn(this.source, this.root);
    if (!repoRoot) return GitignoreChain.empty;
    let chain = GitignoreChain.empty;
    const exclude = await this.readRules(join(repoRoot, ".git", "info", "exclude"));
    if (exclude) chain = chain.with(exclude, "");

    const relativeRoot = relative(repoRoot, this.root).split(sep).join("/");
    if (relativeRoot === "") return chain;
    this.ignorePrefix = `${relativeRoot}/`;
    const parts = relativeRoot.split("/");
    // The walk root's own .gitignore is read when the walk enters it.
    for (let depth = 0; depth < parts.length; depth++) {
      const directory = parts.slice(0, depth).join("/");
      const rules = await this.readRules(join(repoRoot, directory, ".gitignore"));
      if (rules) chain = chain.with(rules, directory);
    }
    return chain;
  }

  private async readRules(path: string): Promise<GitignoreRules | undefined> {
    try {
      const text = await this.source.readText(path);
      return text === undefined ? undefined : GitignoreRules.parse(text);
    } catch {
      return undefined;
    }
  }

  /**
   * A directory's entries, read through the source, as sort keys: the name,
   * with `/` appended for a directory. A name never holds `/`, so the key alone says what the entry
   * is, and sorting the keys natively is several times faster than sorting
   * objects with a comparator.
   */
  private async listKeys(absoluteDir: string): Promise<string[]> {
    const listing = await this.source.readdir(absoluteDir);
    return listing.map((entry) => (entry.isDirectory ? `${entry.name}/` : entry.name));
  }

  private async walk(absoluteDir: string, relativeDir: string, inherited: GitignoreChain): Promise<boolean> {
    let keys: string[];
    try {
      keys = this.source === localDirectorySource ? localKeys(absoluteDir) : await this.listKeys(absoluteDir);
    } catch (error) {
      // The root must be readable; an unreadable (or vanished) subdirectory is just skipped.
      if (relativeDir === "") throw error;
      return true;
    }

    let chain = inherited;
    if (this.respectGitignore && keys.includes(".gitignore")) {
      const rules = await this.readRules(join(absoluteDir, ".gitignore"));
      if (rules) chain = chain.with(rules, this.ignorePrefix + relativeDir);
    }
    keys.sort();

    // Plain concatenation: path.join's normalising is measurable over 100k entries.
    const dirPrefix = absoluteDir.endsWith(sep) ? absoluteDir : absoluteDir + sep;
    const pathPrefix = relativeDir === "" ? "" : `${relativeDir}/`;
    const checkIgnores = this.respectGitignore && !chain.isEmpty;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const isDirectory = key.charCodeAt(key.length - 1) === SLASH;
      const name = isDirectory ? key.slice(0, -1) : key;
      if (isDirectory && this.skip.has(name)) continue;
      const path = pathPrefix + name;
      if (isDirectory && this.skipPaths.size > 0 && this.skipPaths.has(path)) continue;
      if (checkIgnores && chain.isIgnored(this.ignorePrefix + path, isDirectory)) continue;
      // Reading the clock every 32 entries is often enough to yield within YIELD_INTERVAL_MS.
      if ((i & 31) === 0 && performance.now() - this.lastYield >= YIELD_INTERVAL_MS) await this.yieldToEventLoop();
      this.throwIfAborted();
      const entry: WalkEntry = { path, absolutePath: dirPrefix + name, name, isDirectory };
      const outcome = this.visit(entry);
      const control = outcome instanceof Promise ? await outcome : outcome;
      if (control === STOP_WALK) return false;
      if (isDirectory && control !== SKIP_DIRECTORY && !(await this.walk(entry.absolutePath, path, chain))) return false;
    }
    return true;
  }

  /** Lets timers and I/O callbacks run, so an abort requested meanwhile can land. */
  private async yieldToEventLoop(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.lastYield = performance.now();
  }

  private throwIfAborted(): void {
    if (this.options.signal?.aborted) throw new WalkAbortedError();
  }
}

/**
 * "file", "directory", or undefined for what the walk leaves out: symlinks to
 * directories (never followed, so no cycles), broken links, sockets and FIFOs
 * (reading a FIFO would block forever).
 */
function entryKind(dirent: Dirent, dirPrefix: string): "file" | "directory" | undefined {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
  const absolutePath = dirPrefix + dirent.name;
  try {
    if (dirent.isSymbolicLink()) return statSync(absolutePath).isFile() ? "file" : undefined;
    // Some filesystems do not report types from readdir; ask once.
    const stats = lstatSync(absolutePath);
    if (stats.isFile()) return "file";
    if (stats.isDirectory()) return "directory";
  } catch {
    // Vanished or unreadable: leave it out.
  }
  return undefined;
}

/** The nearest directory at or above `start` holding a `.git` entry. */
export function findRepositoryRoot(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The same, asked of another source: a listing per directory up to the first one holding `.git`. */
async function findRepositoryRootIn(source: DirectorySource, start: string): Promise<string | undefined> {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      if ((await source.readdir(dir)).some((entry) => entry.name === ".git")) return dir;
    } catch {
      return undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

// A glob test for walk entries, with the convention of fd and ripgrep: a
// pattern without `/` (`*.ts`) matches the entry's name at any depth; one with
// `/` (`src/**/*.test.ts`) matches the whole path relative to the walk root.
// A leading `./` or `/` just means "from the root"; a trailing `/` matches
// directories only. Uses Bun.Glob, so `{a,b}`, `[abc]` and `**` work as usual.
export function createGlobFilter(pattern: string): (entry: Pick<WalkEntry, "path" | "name" | "isDirectory">) => boolean {
  let normalized = pattern.trim();
  while (normalized.startsWith("./")) normalized = normalized.slice(2);
  normalized = normalized.replace(/^\/+/, "");
  const directoriesOnly = normalized.endsWith("/");
  normalized = normalized.replace(/\/+$/, "");
  const matchesName = !normalized.includes("/");
  const simple = matchesName ? simpleNameTest(normalized) : undefined;
  if (simple) return (entry) => (!directoriesOnly || entry.isDirectory) && simple(entry.name);
  const glob = new Bun.Glob(normalized);
  return (entry) => {
    if (directoriesOnly && !entry.isDirectory) return false;
    return glob.match(matchesName ? entry.name : entry.path);
  };
}

const GLOB_SPECIAL = /[*?[\]{}\\!]/;

/**
 * The commonest name patterns — `*.ts`, `README*`, `Makefile` — as a string
 * test, which over 100 000 names is several times cheaper than a glob match
 * and means the same: a name holds no `/` for `*` to stop at.
 */
function simpleNameTest(pattern: string): ((name: string) => boolean) | undefined {
  const star = pattern.indexOf("*");
  if (star === -1) return GLOB_SPECIAL.test(pattern) ? undefined : (name) => name === pattern;
  const before = pattern.slice(0, star);
  const after = pattern.slice(star + 1);
  if (GLOB_SPECIAL.test(before) || GLOB_SPECIAL.test(after)) return undefined;
  const minimum = before.length + after.length;
  return (name) => name.length >= minimum && name.startsWith(before) && name.endsWith(after);
}
