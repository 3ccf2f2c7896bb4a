/**
 * Text from outside xcsh — a file a tool read, a command's output, the model's
 * answer, a pasted prompt — as the terminal may show it: escape sequences and
 * control characters are dropped so they can neither clear the screen nor move
 * the cursor, and a carriage return keeps what a terminal would end up showing,
 * the text after the last one.
 */
/**
 * A terminal escape sequence: CSI (colours, cursor moves, erasing), OSC (title, clipboard,
 * links) ended by BEL or ST, and the two-character ones. The one pattern of xcsh for them:
 * the bash output collector (which must tell a finished sequence from one a chunk boundary
 * cut, so it builds an anchored test from `.source`) and agent-core's sanitizeBinaryOutput
 * (pi's semantics: carriage returns kept) drop what it matches with their own control
 * character rules. Global: use it with `replace`, never `test` (lastIndex would carry over).
 */
// `ESC ]` alone is no two-character sequence (the class skips "]"): it starts an OSC, which is
// whole only with its end — so the collector holds a cut one back instead of passing its text.
export const ESCAPE_SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\^_]/g;
// C1 controls (U+0080–U+009F) too: some terminals read U+009B as CSI and U+009D as OSC.
const CONTROL_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** The text with escape sequences and control characters dropped, each line as a terminal would leave it after its carriage returns. */
export function inertText(raw: string): string {
  return raw
    .replace(ESCAPE_SEQUENCE, "")
    .split("\n")
    .map((line) => {
      const parts = line.replace(/\r+$/, "").split("\r");
      return parts[parts.length - 1]!.replace(CONTROL_CHARACTER, "");
    })
    .join("\n");
}

const NEEDS_CLEANING = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const COLOUR = /(\x1b\[[0-9;:]*m)/;

/**
 * inertText that keeps colour (SGR) sequences: for lines xcsh draws from others' words
 * (a notice, a provider's error) where an extension may have coloured its own text.
 * Any other escape, and a lone ESC, is dropped; a colour cannot move the cursor or reach
 * the title or the clipboard.
 */
export function inertKeepingColour(raw: string): string {
  if (!NEEDS_CLEANING.test(raw)) return raw;
  return raw
    .split(COLOUR)
    .map((part, index) => (index % 2 === 1 ? part : inertText(part)))
    .join("");
}

/** inertText, skipped for the usual text that holds nothing to drop (it runs on every streamed delta). */
export function inertIfNeeded(raw: string): string {
  return NEEDS_CLEANING.test(raw) ? inertText(raw) : raw;
}
