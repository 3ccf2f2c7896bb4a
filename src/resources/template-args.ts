/**
 * Arguments of `/template a "b c" d`, split as pi 1.6.0 splits them
 * (prompt-templates.md), then put into the template: `$1`, `$2`, … (a missing one
 * is empty), `$@` and `$ARGUMENTS` (all, joined by spaces), `${@:N}` (from the Nth
 * on) and `${@:N:L}` (L of them from the Nth), and, as a shell's `:-`,
 * `${N:-default}` / `${@:-default}`: the argument (all of them), or the default when
 * that is missing or empty. A default runs to the first `}` and is used as written
 * (`${2:-$1}` gives `$1`, as pi does).
 * Substitution is one pass, so an argument that itself contains `$1` stays as typed.
 * Only these spellings are placeholders: `${1}`, `${ARGUMENTS}` and `${@}` stay text, as in pi.
 */

type Quote = '"' | "'";

/**
 * Where the quote opened before `from` closes: the next `quote` not preceded by a
 * backslash, or -1 when there is none (the opening quote is then plain text).
 */
function closingQuote(text: string, from: number, quote: Quote): number {
  for (let index = from; index < text.length; index++) {
    if (text[index] === "\\" && text[index + 1] === quote) index++;
    else if (text[index] === quote) return index;
  }
  return -1;
}

/**
 * Words split at whitespace. A quote groups words only where an argument begins and
 * only when it is closed later (`don't` and a lone `"` stay text); inside it a
 * backslash before that same quote is the quote itself, any other backslash stays as
 * typed. Text right after the closing quote belongs to the same argument.
 */
export function splitArguments(text: string): string[] {
  const args: string[] = [];
  let index = 0;
  while (index < text.length) {
    if (/\s/.test(text[index]!)) {
      index++;
      continue;
    }
    let argument = "";
    const first = text[index];
    if (first === '"' || first === "'") {
      const close = closingQuote(text, index + 1, first);
      if (close !== -1) {
        argument = text.slice(index + 1, close).replaceAll(`\\${first}`, first);
        index = close + 1;
      }
    }
    while (index < text.length && !/\s/.test(text[index]!)) argument += text[index++];
    args.push(argument);
  }
  return args;
}

const PLACEHOLDER = /\$\{(\d+|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)/g;

export function substituteArguments(content: string, args: string[]): string {
  return content.replace(PLACEHOLDER, (match, defaulted?: string, fallback?: string, sliceStart?: string, sliceLength?: string, position?: string) => {
    if (defaulted !== undefined) {
      const value = defaulted === "@" ? args.join(" ") : (args[Number(defaulted) - 1] ?? "");
      return value === "" ? (fallback ?? "") : value;
    }
    if (position !== undefined) return args[Number(position) - 1] ?? "";
    if (sliceStart !== undefined) {
      const start = Math.max(Number(sliceStart) - 1, 0);
      const end = sliceLength === undefined ? undefined : start + Number(sliceLength);
      return args.slice(start, end).join(" ");
    }
    return args.join(" ");
  });
}
