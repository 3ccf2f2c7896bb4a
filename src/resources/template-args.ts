/**
 * Arguments of `/template a "b c" d`: split like a shell does it, without
 * escapes (quotes group and are dropped), then put into the template:
 * `$1`, `$2`, … (a missing one is empty), `$@` and `$ARGUMENTS` (all, joined
 * by spaces), `${@:N}` (from the Nth on) and `${@:N:L}` (L of them from the Nth),
 * and, as a shell's `:-`, `${N:-default}` / `${@:-default}`: the argument (all of
 * them), or the default when that is missing or empty. A default runs to the first
 * `}` and is used as written (`${2:-$1}` gives `$1`, as pi does).
 * Substitution is one pass, so an argument that itself contains `$1` stays as typed.
 * Only these spellings are placeholders: `${1}`, `${ARGUMENTS}` and `${@}` stay text, as in pi.
 */

export function splitArguments(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let inArgument = false;
  let quote: '"' | "'" | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inArgument = true;
    } else if (/\s/.test(char)) {
      if (inArgument) args.push(current);
      current = "";
      inArgument = false;
    } else {
      current += char;
      inArgument = true;
    }
  }
  if (inArgument) args.push(current);
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
