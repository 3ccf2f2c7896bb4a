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
  /** A RegExp, or a linear-time matcher for patterns with many wildcards. */
  matcher: PathMatcher;
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
      if (rule.matcher.test(rule.matchesName ? name : relativePath)) return !rule.negated;
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
  let matcher: PathMatcher;
  try {
    matcher = compilePattern(pattern);
  } catch {
    // A class like `[z-a]` matches nothing in git; skipping the line has the same effect.
    return undefined;
  }
  return { source: line, negated, directoryOnly, matchesName, matcher };
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

/**
 * One piece of a compiled pattern: a character (the `/` between segments included), one
 * character of a class or `?`, `*` (a run within a name), `**` between slashes (any number
 * of whole directories) and a trailing `**` (everything below).
 */
type Token =
  | { kind: "literal"; char: string }
  | { kind: "one"; source: string }
  | { kind: "star" }
  | { kind: "directories" }
  | { kind: "everything" };

/** A slash-separated pattern as tokens. `**` segments span any number of directories. */
function tokenizePattern(pattern: string): Token[] {
  const segments = pattern.split("/");
  const tokens: Token[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const last = i === segments.length - 1;
    if (segment === "**") {
      // `a/**` is everything inside a; `**/b` and `a/**/b` allow zero or more directories between.
      tokens.push(last ? { kind: "everything" } : { kind: "directories" });
      continue;
    }
    tokens.push(...tokenizeSegment(segment));
    if (!last) tokens.push({ kind: "literal", char: "/" });
  }
  return tokens;
}

function regexSource(tokens: readonly Token[]): string {
  return tokens
    .map((token) => {
      if (token.kind === "literal") return escapeForRegex(token.char);
      if (token.kind === "one") return token.source;
      if (token.kind === "star") return "[^/]*";
      return token.kind === "directories" ? "(?:[^/]*/)*" : ".*";
    })
    .join("");
}

/**
 * The most wildcards a pattern may hold and still be matched by a RegExp. A backtracking
 * engine tries every way of splitting a name between the wildcards: with k of them that is
 * about n^k steps, so a planted line like `*a*a*a*a*a*a*a*a*a*a*b` would hang every walk of
 * the repository (grep, find, the files-changed list). Up to two stay a RegExp (fast, and
 * at most n² on a name); more are matched by wildcardMatcher, in n × pattern-length steps.
 */
const MAX_REGEX_WILDCARDS = 2;

export interface PathMatcher {
  test(text: string): boolean;
}

/** Both forms of one pattern, which must agree: for the tests that hold them equal. */
export function patternMatchers(pattern: string): { regex: RegExp; wildcard: PathMatcher } {
  const tokens = tokenizePattern(pattern);
  return { regex: new RegExp(`^${regexSource(tokens)}$`), wildcard: wildcardMatcher(tokens) };
}

function compilePattern(pattern: string): PathMatcher {
  const tokens = tokenizePattern(pattern);
  const wildcards = tokens.filter((token) => token.kind === "star" || token.kind === "directories" || token.kind === "everything").length;
  if (wildcards <= MAX_REGEX_WILDCARDS) return new RegExp(`^${regexSource(tokens)}$`);
  return wildcardMatcher(tokens);
}

/**
 * A matcher that cannot blow up: the set of pattern positions a prefix of the text can
 * reach is carried forward one character at a time (a Thompson simulation). `**` between
 * slashes takes two positions: at a directory's start (it may also match nothing) and inside
 * a directory's name.
 */
function wildcardMatcher(tokens: readonly Token[]): PathMatcher {
  // States: one per token, a second one for each `directories` (inside a name), then accept.
  const kinds: Token[] = [];
  const insideName: boolean[] = [];
  for (const token of tokens) {
    kinds.push(token);
    insideName.push(false);
    if (token.kind === "directories") {
      kinds.push(token);
      insideName.push(true);
    }
  }
  const classes = kinds.map((token) => (token.kind === "one" ? new RegExp(`^${token.source}$`) : undefined));
  const accept = kinds.length;
  // Where a state goes without reading: past a wildcard that may match nothing.
  const skip = (state: number): number | undefined => {
    if (state >= accept || insideName[state]) return undefined;
    const kind = kinds[state].kind;
    if (kind === "star" || kind === "everything") return state + 1;
    if (kind === "directories") return state + 2;
    return undefined;
  };
  const close = (states: Uint8Array): void => {
    // Skips only go forward, so one pass in order reaches every state.
    for (let state = 0; state < accept; state++) {
      if (!states[state]) continue;
      const next = skip(state);
      if (next !== undefined) states[next] = 1;
    }
  };
  return {
    test(text: string): boolean {
      let current = new Uint8Array(accept + 1);
      current[0] = 1;
      close(current);
      // By UTF-16 unit, as the RegExp form (no `u` flag) reads the text.
      for (let index = 0; index < text.length; index++) {
        const char = text[index];
        const next = new Uint8Array(accept + 1);
        let any = false;
        for (let state = 0; state < accept; state++) {
          if (!current[state]) continue;
          const token = kinds[state];
          let to: number | undefined;
          if (token.kind === "literal") to = token.char === char ? state + 1 : undefined;
          else if (token.kind === "one") to = classes[state]!.test(char) ? state + 1 : undefined;
          else if (token.kind === "star") to = char === "/" ? undefined : state;
          else if (token.kind === "everything") to = state;
          else {
            // `directories`: a name's characters lead inside it, its `/` back to a directory's start.
            const start = insideName[state] ? state - 1 : state;
            to = char === "/" ? start : start + 1;
          }
          if (to !== undefined) {
            next[to] = 1;
            any = true;
          }
        }
        if (!any) return false;
        close(next);
        current = next;
      }
      return current[accept] === 1;
    },
  };
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
function tokenizeSegment(segment: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i];
    if (char === "\\") {
      i++;
      if (i < segment.length) tokens.push({ kind: "literal", char: segment[i] });
    } else if (char === "*") {
      while (segment[i + 1] === "*") i++;
      tokens.push({ kind: "star" });
    } else if (char === "?") {
      tokens.push({ kind: "one", source: "[^/]" });
    } else if (char === "[") {
      const parsed = parseBracket(segment, i);
      if (parsed) {
        tokens.push({ kind: "one", source: parsed.source });
        i = parsed.end;
      } else {
        tokens.push({ kind: "literal", char: "[" });
      }
    } else {
      tokens.push({ kind: "literal", char });
    }
  }
  return tokens;
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
