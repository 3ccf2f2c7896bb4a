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
 * Speed on large trees comes from taking file types from `readdir` (no stat per
 * file) and from synchronous directory reads, which Bun does faster than async
 * ones (74 vs 121 ms for 1000 directories of 100 files); the walk still yields
 * to the event loop every few milliseconds so an abort is noticed promptly.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { GitignoreChain, GitignoreRules } from "./gitignore.ts";

export interface WalkEntry {
  /** Relative to the walk's root, `/`-separated. */
  path: string;
  absolutePath: string;
  name: string;
  isDirectory: boolean;
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

class DirectoryWalker {
  private readonly skip: ReadonlySet<string>;
  private readonly respectGitignore: boolean;
  /** The walk root's path relative to the directory ignore patterns are anchored to, "" or ending in `/`. */
  private ignorePrefix = "";
  private lastYield = performance.now();

  constructor(
    private readonly root: string,
    private readonly visit: WalkVisitor,
    private readonly options: WalkOptions,
  ) {
    this.skip = new Set(options.skipDirectories ?? DEFAULT_SKIPPED_DIRECTORIES);
    this.respectGitignore = options.respectGitignore ?? true;
  }

  async run(): Promise<boolean> {
    this.throwIfAborted();
    const chain = this.respectGitignore ? this.ancestorRules() : GitignoreChain.empty;
    return this.walk(this.root, "", chain);
  }

  /**
   * Inside a git repository, the ignore files between the repository root and
   * the walk root apply too (as git applies them), plus .git/info/exclude.
   */
  private ancestorRules(): GitignoreChain {
    const repoRoot = findRepositoryRoot(this.root);
    if (!repoRoot) return GitignoreChain.empty;
    let chain = GitignoreChain.empty;
    const exclude = readRules(join(repoRoot, ".git", "info", "exclude"));
    if (exclude) chain = chain.with(exclude, "");

    const relativeRoot = relative(repoRoot, this.root).split(sep).join("/");
    if (relativeRoot === "") return chain;
    this.ignorePrefix = `${relativeRoot}/`;
    const parts = relativeRoot.split("/");
    // The walk root's own .gitignore is read when the walk enters it.
    for (let depth = 0; depth < parts.length; depth++) {
      const directory = parts.slice(0, depth).join("/");
      const rules = readRules(join(repoRoot, directory, ".gitignore"));
      if (rules) chain = chain.with(rules, directory);
    }
    return chain;
  }

  private async walk(absoluteDir: string, relativeDir: string, inherited: GitignoreChain): Promise<boolean> {
    let dirents: Dirent[];
    try {
      dirents = readdirSync(absoluteDir, { withFileTypes: true });
    } catch (error) {
      // The root must be readable; an unreadable subdirectory is just skipped.
      if (relativeDir === "") throw error;
      return true;
    }

    let chain = inherited;
    if (this.respectGitignore && dirents.some((dirent) => dirent.name === ".gitignore" && !dirent.isDirectory())) {
      const rules = readRules(join(absoluteDir, ".gitignore"));
      if (rules) chain = chain.with(rules, this.ignorePrefix + relativeDir);
    }

    const entries: { key: string; entry: WalkEntry }[] = [];
    // Plain concatenation: path.join's normalising is measurable over 100k entries.
    const dirPrefix = absoluteDir.endsWith(sep) ? absoluteDir : absoluteDir + sep;
    for (const dirent of dirents) {
      const absolutePath = dirPrefix + dirent.name;
      const kind = entryKind(dirent, absolutePath);
      if (kind === undefined) continue;
      const isDirectory = kind === "directory";
      if (isDirectory && this.skip.has(dirent.name)) continue;
      const path = relativeDir === "" ? dirent.name : `${relativeDir}/${dirent.name}`;
      if (this.respectGitignore && chain.isIgnored(this.ignorePrefix + path, isDirectory)) continue;
      entries.push({
        key: isDirectory ? `${dirent.name}/` : dirent.name,
        entry: { path, absolutePath, name: dirent.name, isDirectory },
      });
    }
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

    for (const { entry } of entries) {
      if (performance.now() - this.lastYield >= YIELD_INTERVAL_MS) await this.yieldToEventLoop();
      this.throwIfAborted();
      const outcome = this.visit(entry);
      const control = outcome instanceof Promise ? await outcome : outcome;
      if (control === STOP_WALK) return false;
      if (entry.isDirectory && control !== SKIP_DIRECTORY && !(await this.walk(entry.absolutePath, entry.path, chain))) {
        return false;
      }
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
function entryKind(dirent: Dirent, absolutePath: string): "file" | "directory" | undefined {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
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

function readRules(path: string): GitignoreRules | undefined {
  try {
    return GitignoreRules.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** The nearest directory at or above `start` holding a `.git` entry. */
export function findRepositoryRoot(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
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
  const glob = new Bun.Glob(normalized);
  const matchesName = !normalized.includes("/");
  return (entry) => {
    if (directoriesOnly && !entry.isDirectory) return false;
    return glob.match(matchesName ? entry.name : entry.path);
  };
}
