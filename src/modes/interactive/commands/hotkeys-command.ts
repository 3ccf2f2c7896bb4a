/**
 * /hotkeys: the keys as they are now bound — defaults changed by
 * keybindings.json show as changed — with the action id beside each, so a
 * person knows what to write in the file. In the fullscreen layout the keys
 * that move through the transcript (scrolling, jumping between prompts,
 * search) and what the mouse does come too: nothing on screen tells of them
 * otherwise. /resume and /tree show their own keys in their hint lines.
 */
import type { App, BuiltinCommand } from "../app.ts";
import { shortenHome } from "../footer.ts";
import { APP_ACTIONS, keybindingsPath, keysOf } from "../keymap.ts";

const KEY_NAMES: Record<string, string> = {
  escape: "Esc",
  esc: "Esc",
  up: "↑",
  down: "↓",
  left: "←",
  right: "→",
  pageup: "PageUp",
  pagedown: "PageDown",
  backspace: "Backspace",
};

/** "shift+ctrl+p" → "Shift+Ctrl+P", "alt+up" → "Alt+↑". */
export function prettyKey(key: string): string {
  return key
    .split("+")
    .map((part) => KEY_NAMES[part.toLowerCase()] ?? (part.length === 1 ? part.toUpperCase() : part[0]!.toUpperCase() + part.slice(1)))
    .join("+");
}

function pretty(keys: string): string {
  return keys ? keys.split(" / ").map(prettyKey).join(" / ") : "";
}

/** Keys of the editor that are not app actions: pi-tui's own, and typed prefixes. */
function editorBasics(app: App): [string, string][] {
  return [
    [pretty(keysOf(app.keymap, "tui.input.submit")), "send (while the agent works: steer)"],
    [pretty(keysOf(app.keymap, "tui.input.newLine")), "new line"],
    ["↑ / ↓", "prompt history"],
    [pretty(keysOf(app.keymap, "tui.input.tab")), "complete a path"],
    ["@", "attach a project file"],
    ["/", "commands"],
    ["!cmd / !!cmd", "run a shell command (!! keeps it out of the context)"],
  ];
}

/** pi-tui's keys for the fullscreen transcript, a pair of opposite moves to a row, in the order a person needs them. */
const TRANSCRIPT_KEYS: readonly [string[], string][] = [
  [["tui.altScreen.pageUp", "tui.altScreen.pageDown"], "scroll the transcript a page up / down"],
  [["tui.altScreen.top", "tui.altScreen.bottom"], "its top / its end, following new output again"],
  [["tui.altScreen.previousPrompt", "tui.altScreen.nextPrompt"], "the prompt before / after the one on top"],
  [["tui.altScreen.search"], "search it (Enter: next match, Shift+Enter: previous, Esc: close)"],
];

/** A pair's keys, the shortest of each id's ("Ctrl+↑ / Ctrl+↓"); one id's, all of them. */
function transcriptKeyText(app: App, ids: string[]): string {
  const keysFor = (id: string) => keysOf(app.keymap, id).split(" / ").filter(Boolean);
  if (ids.length === 1) return pretty(keysOf(app.keymap, ids[0]!));
  const shortest = ids.map((id) => keysFor(id).sort((a, b) => a.length - b.length)[0]);
  return shortest.every(Boolean) ? shortest.map((key) => prettyKey(key!)).join(" / ") : "";
}

function transcriptKeys(app: App): [string, string][] {
  const rows: [string, string][] = TRANSCRIPT_KEYS.map(([ids, what]) => {
    const names = ids.length === 1 ? ids[0]! : `${ids[0]}/${ids[1]!.replace("tui.altScreen.", "")}`;
    return [transcriptKeyText(app, ids) || "(unbound)", `${what}  ${names}`];
  });
  rows.push(["mouse", "the wheel scrolls; a drag selects and copies; a click opens a link"]);
  return rows;
}

function hotkeys(app: App): void {
  const rows = editorBasics(app);
  for (const [id, action] of Object.entries(APP_ACTIONS)) {
    if (action.scope === "editor") rows.push([pretty(keysOf(app.keymap, id)) || "(unbound)", `${action.description}  ${id}`]);
  }
  const transcript = app.surface.tui.mode === "fullscreen" ? transcriptKeys(app) : [];
  const width = Math.max(...[...rows, ...transcript].map(([key]) => key.length));
  const table = (list: [string, string][]) => list.map(([key, what]) => `${key.padEnd(width)}  ${what}`);
  const lines = [
    "",
    `(the ids on the right are what ${shortenHome(keybindingsPath())} takes)`,
    ...table(rows),
    ...(transcript.length > 0 ? ["", "In the transcript (fullscreen):", ...table(transcript)] : []),
    "",
    "/resume and /tree show their own keys (app.session.*, app.tree.*) in their hint lines.",
  ];
  app.conversation.notice("Keys", lines.join("\n"), "accent");
}

export const hotkeysCommand: BuiltinCommand = { name: "hotkeys", description: "List the keys (keybindings.json changes them)", run: hotkeys };
