/**
 * A small syntax highlighter for code blocks in answers: comments, strings,
 * numbers, keywords and capitalised type names, by regular expression. It is
 * not a parser — it needs no grammar files and costs nothing at start-up — and
 * an unknown language is still coloured by the common C-like rules.
 */

type Colorize = (color: string, text: string) => string;

const KEYWORDS = new Set(
  (
    "abstract as async await break case catch class const continue def default defer del delete do elif else enum " +
    "export extends false final finally fn for from func function go if impl import in instanceof interface is " +
    "let loop match mod module mut new nil none not null of or and package pass private protected pub public " +
    "raise readonly return self static struct super switch this throw trait true try type typeof undefined " +
    "use var void where while with yield echo then fi esac done local"
  ).split(" "),
);

/** Line comment starters by language; unknown languages accept // and #. */
function lineCommentFor(lang: string | undefined): RegExp {
  switch (lang?.toLowerCase()) {
    case "py":
    case "python":
    case "sh":
    case "bash":
    case "shell":
    case "zsh":
    case "yaml":
    case "yml":
    case "toml":
    case "ruby":
    case "rb":
      return /#.*/y;
    case "sql":
    case "lua":
    case "haskell":
      return /--.*/y;
    default:
      return /\/\/.*|#(?![\w{[]).*/y;
  }
}

const STRING = /"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?/y;
const NUMBER = /\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b/iy;
const WORD = /[A-Za-z_$][\w$]*/y;
const BLOCK_COMMENT = /\/\*[\s\S]*?(?:\*\/|$)/y;

function highlightLine(line: string, lineComment: RegExp, color: Colorize): string {
  let out = "";
  let i = 0;
  const at = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = i;
    const match = pattern.exec(line);
    return match && match[0].length > 0 ? match[0] : undefined;
  };
  while (i < line.length) {
    let token: string | undefined;
    if ((token = at(BLOCK_COMMENT) ?? at(lineComment))) out += color("syntaxComment", token);
    else if ((token = at(STRING))) out += color("syntaxString", token);
    else if ((token = at(NUMBER))) out += color("syntaxNumber", token);
    else if ((token = at(WORD))) {
      if (KEYWORDS.has(token)) out += color("syntaxKeyword", token);
      else if (/^[A-Z][a-z]/.test(token)) out += color("syntaxType", token);
      else out += token;
    } else {
      token = line[i]!;
      out += token;
    }
    i += token.length;
  }
  return out;
}

/** One string per line; without `color` the code comes back as it is. */
export function highlightCode(code: string, lang?: string, color?: Colorize): string[] {
  const lines = code.split("\n");
  if (!color) return lines;
  const lineComment = lineCommentFor(lang);
  return lines.map((line) => highlightLine(line, lineComment, color));
}
