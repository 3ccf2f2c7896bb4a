/**
 * What a regex grep can search for as plain bytes before it runs the regex:
 * the literal runs every match must contain, ordered so that the one least
 * likely to occur in source code is looked for first. A file lacking any of
 * them cannot match, so it is never decoded or run through the regex — for
 * `function\s+\w+Stream\(` the test is `Stream(` (rare) before `function`
 * (in nearly every JavaScript file), as ripgrep picks its rarest literal.
 */

/** Escapes whose character stands for itself: punctuation. `\d`, `\b`, `\1`, `\n`, … do not. */
const SELF_ESCAPE = /[^A-Za-z0-9]/;

/** Where a letter or digit escape ends (`\x41`, `\u{1F600}`, `\p{L}`, `\k<name>`, `\12`), given the index of its letter. */
function escapeEnd(source: string, letter: number): number {
  const kind = source[letter];
  const braced = (from: number, open: string, close: string) => (source[from] === open ? Math.max(from, source.indexOf(close, from)) : letter);
  switch (kind) {
    case "c":
      return letter + 1;
    case "x":
      return letter + 2;
    case "u":
      return source[letter + 1] === "{" ? braced(letter + 1, "{", "}") : letter + 4;
    case "p":
    case "P":
      return braced(letter + 1, "{", "}");
    case "k":
      return braced(letter + 1, "<", ">");
    default: {
      let end = letter;
      if (/[0-9]/.test(kind ?? "")) while (/[0-9]/.test(source[end + 1] ?? "")) end++;
      return end;
    }
  }
}

/**
 * The runs of plain characters that every match of a regex must contain, none
 * when nothing can be proved. Conservative: any alternation gives up, groups
 * and classes end a run and are skipped, and a character made optional by `?`,
 * `*` or `{0,…}` is dropped from its run.
 */
export function requiredLiterals(source: string): string[] {
  if (source.includes("|")) return [];
  const runs: string[] = [];
  let run = "";
  const end = () => {
    if (run) runs.push(run);
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") {
      const next = source[i + 1];
      i++;
      if (next !== undefined && SELF_ESCAPE.test(next)) {
        run += next;
        continue;
      }
      end();
      i = escapeEnd(source, i);
      continue;
    }
    if (char === "[" || char === "(") {
      end();
      // Skip to the matching bracket; escapes inside are skipped with it.
      const close = char === "[" ? "]" : ")";
      let depth = 0;
      for (; i < source.length; i++) {
        if (source[i] === "\\") i++;
        else if (char === "(" && source[i] === "(") depth++;
        else if (source[i] === close && (char === "[" || --depth === 0)) break;
      }
      continue;
    }
    if (char === "?" || char === "*" || (char === "{" && /^\{0*(,|\})/.test(source.slice(i)))) {
      // The character before may be absent (or the quantifier applies to a skipped group).
      run = run.slice(0, -1);
      end();
      if (char === "{") i = source.indexOf("}", i);
      continue;
    }
    if (char === "+" || char === "{") {
      // At least once: the run so far stands, but what follows need not be adjacent.
      end();
      if (char === "{") i = source.indexOf("}", i);
      if (i === -1) return [];
      continue;
    }
    if (char === "." || char === "^" || char === "$") {
      end();
      continue;
    }
    run += char;
  }
  end();
  return runs;
}

/** The longest required run, or undefined when there is none. */
export function requiredLiteral(source: string): string | undefined {
  return requiredLiterals(source).sort((a, b) => b.length - a.length)[0];
}

/**
 * Characters of source code from the most to the least common (English-like
 * identifiers, indentation, punctuation of C-like languages). What is not
 * listed — uppercase letters past the common few, digits, rare punctuation,
 * non-ASCII — counts as rarer than all of them.
 */
const COMMON_FIRST = " etnoasirlcd\nu.p(),;mh=f_'\"gb/:y-TvSk*{}xwE0C1AIR[]<>$\t";

function rarity(char: string): number {
  const rank = COMMON_FIRST.indexOf(char);
  return rank === -1 ? COMMON_FIRST.length : rank;
}

/**
 * Literals ordered rarest first: by their rarest character, then by length —
 * a literal is as rare as its least common character makes it.
 */
export function rarestFirst(literals: readonly string[]): string[] {
  const score = (literal: string) => Math.max(...Array.from(literal, rarity));
  return [...literals].sort((a, b) => score(b) - score(a) || b.length - a.length);
}
