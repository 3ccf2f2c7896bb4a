/**
 * .gitignore files turned into matchers, following git's rules (gitignore(5)):
 * blank lines and `#` comments are skipped, `!` re-includes, a trailing `/`
 * matches directories only, a pattern with a `/` anywhere but the end is
 * anchored to the directory of its .gitignore file (otherwise it matches a
 * name at any depth), `*` and `?` never cross `/`, `**` spans directories,
 * `[...]` is a character class, and `\` escapes the next character.
 *
 * Precedence is git's too: within one file the last matching line wins, and a
 * file deeper in the tree overrides the files above it.
 */

export interface GitignoreRule {
  /** The line as written, for debugging. */
  source: string;
  /** `!pattern`: a match re-includes the path. */
  negated: boolean;
  /** `pattern/`: matches directories only. */
  directoryOnly: boolean;
  /** No `/` in the pattern: matched against the last path component only. */
  matchesName: boolean;
  regex: RegExp;
}

/** The parsed lines of one ignore file. Patterns are matched relative to the file's directory. */
export class GitignoreRules {
  constructor(readonly rules: readonly GitignoreRule[]) {}

  static parse(content: string): GitignoreRules {
    const rules: GitignoreRule[] = [];
    for (const line of content.split(/\r?\n/)) {
      const rule = parseGitignoreLine(line);
      if (rule) rules.push(rule);
    }
    return new GitignoreRules(rules);
  }

  /**
   * The verdict of these rules on a path (relative to the file's directory,
   * `/`-separated): true = ignored, false = re-included by a `!` line,
   * undefined = no line matched, so files further up decide.
   */
  verdict(relativePath: string, isDirectory: boolean): boolean | undefined {
    const name = relativePath.slice(relativePath.lastIndexOf("/") + 1);
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i];
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.regex.test(rule.matchesName ? name : relativePath)) return !rule.negated;
    }
    return undefined;
  }
}

/**
 * The ignore files that apply to one directory of a walk: its own (if any) and
 * those of every directory above it, deepest first. Immutable, so each branch
 * of a walk extends its parent's chain without copying.
 */
export class GitignoreChain {
  private constructor(
    private readonly rules: GitignoreRules | undefined,
    /** The directory of `rules`, relative to the chain's root, with a trailing `/` ("" for the root). */
    private readonly base: string,
    private readonly parent: GitignoreChain | undefined,
  ) {}

  static readonly empty = new GitignoreChain(undefined, "", undefined);

  /** No ignore file applies, so nothing is ignored. */
  get isEmpty(): boolean {
    return this.rules === undefined && this.parent === undefined;
  }

  /** Adds the rules of an ignore file found in `directory` (relative to the chain's root, "" for the root). */
  with(rules: GitignoreRules, directory: string): GitignoreChain {
    if (rules.rules.length === 0) return this;
    const base = directory === "" || directory.endsWith("/") ? directory : `${directory}/`;
    return new GitignoreChain(rules, base, this);
  }

  /** Whether a path (relative to the chain's root) is ignored. Its parent directories are assumed not to be. */
  isIgnored(path: string, isDirectory: boolean): boolean {
    for (let chain: GitignoreChain | undefined = this; chain; chain = chain.parent) {
      if (!chain.rules || !path.startsWith(chain.base)) continue;
      const verdict = chain.rules.verdict(path.slice(chain.base.length), isDirectory);
      if (verdict !== undefined) return verdict;
    }
    return false;
  }
}

/** One line of an ignore file as a rule, or undefined for blanks and comments. */
export function parseGitignoreLine(line: string): GitignoreRule | undefined {
  let pattern = trimUnescapedTrailingSpaces(line);
  if (pattern === "" || pattern.startsWith("#")) return undefined;

  let negated = false;
  if (pattern.startsWith("!")) {
    negated = true;
    pattern = pattern.slice(1);
  }
  let directoryOnly = false;
  if (pattern.endsWith("/") && !pattern.endsWith("\\/")) {
    directoryOnly = true;
    pattern = pattern.replace(/\/+$/, "");
  }
  if (pattern === "") return undefined;

  const matchesName = !pattern.includes("/");
  // A leading slash only anchors; the path being matched has none.
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  let regex: RegExp;
  try {
    regex = new RegExp(`^${translatePattern(pattern)}$`);
  } catch {
    // A class like `[z-a]` matches nothing in git; skipping the line has the same effect.
    return undefined;
  }
  return { source: line, negated, directoryOnly, matchesName, regex };
}

/** Trailing spaces are dropped unless the last one is escaped with a backslash. */
function trimUnescapedTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " ") {
    let backslashes = 0;
    for (let i = end - 2; i >= 0 && line[i] === "\\"; i--) backslashes++;
    if (backslashes % 2 === 1) break;
    end--;
  }
  return line.slice(0, end);
}

/** A slash-separated pattern as a regex source. `**` segments span any number of directories. */
function translatePattern(pattern: string): string {
  const segments = pattern.split("/");
  let source = "";
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const last = i === segments.length - 1;
    if (segment === "**") {
      // `a/**` is everything inside a; `**/b` and `a/**/b` allow zero or more directories between.
      source += last ? ".*" : "(?:[^/]*/)*";
      continue;
    }
    source += translateSegment(segment);
    if (!last) source += "/";
  }
  return source;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/;

function escapeForRegex(char: string): string {
  return REGEX_SPECIAL.test(char) ? `\\${char}` : char;
}

/** A character that stands for itself inside a regex class. */
function escapeForClass(char: string): string {
  return /[\]\\^[-]/.test(char) ? `\\${char}` : char;
}

/** One path component's wildcards: `*`, `?`, `[...]` and `\x`. */
function translateSegment(segment: string): string {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i];
    if (char === "\\") {
      i++;
      if (i < segment.length) source += escapeForRegex(segment[i]);
    } else if (char === "*") {
      while (segment[i + 1] === "*") i++;
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "[") {
      const parsed = parseBracket(segment, i);
      if (parsed) {
        source += parsed.source;
        i = parsed.end;
      } else {
        source += "\\[";
      }
    } else {
      source += escapeForRegex(char);
    }
  }
  return source;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  blank: " \\t",
  cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9",
  graph: "\\x21-\\x7e",
  lower: "a-z",
  print: "\\x20-\\x7e",
  punct: "!-\\/:-@\\[-`{-~",
  space: " \\t\\n\\r\\f\\v",
  upper: "A-Z",
  xdigit: "0-9a-fA-F",
};

/**
 * A bracket expression starting at `start` (the `[`), as a regex class.
 * `[!...]` and `[^...]` negate; a `]` right after the opening is literal;
 * `[:alpha:]` and friends are POSIX classes. Undefined when unterminated, in
 * which case git treats the `[` literally.
 */
function parseBracket(segment: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (segment[i] === "!" || segment[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  for (; i < segment.length; i++) {
    const char = segment[i];
    if (char === "]" && !first) {
      // Nothing in a class matches `/` (segments hold none, so only a negated class needs the guard).
      return { source: negate ? `(?:(?!/)[^${body}])` : `[${body}]`, end: i };
    }
    first = false;
    if (char === "[" && segment[i + 1] === ":") {
      const close = segment.indexOf(":]", i + 2);
      const posix = close === -1 ? undefined : POSIX_CLASSES[segment.slice(i + 2, close)];
      if (posix !== undefined) {
        body += posix;
        i = close + 1;
        continue;
      }
    }
    if (char === "\\" && i + 1 < segment.length) {
      i++;
      body += escapeForClass(segment[i]);
    } else if (char === "-") {
      body += "-";
    } else {
      body += escapeForClass(char);
    }
  }
  return undefined;
}
