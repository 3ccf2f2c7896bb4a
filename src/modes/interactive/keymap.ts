/**
 * The terminal UI's keys, by the action ids pi uses ("app.model.cycleForward",
 * "tui.input.submit"): the defaults below, then the person's `keybindings.json`
 * in the config root, where each id maps to a key or a list of keys (`[]`
 * unbinds it) and replaces that id's defaults. One KeybindingsManager serves
 * every reader: the application's own keys (app-keys.ts), pi-tui's components
 * (it is installed as pi-tui's global keybindings, so the editor's submit and
 * new-line keys follow it) and extensions' editors and components.
 *
 * A file that cannot be read or is not a JSON object keeps every default, with
 * one warning. Ids that neither xcsh nor pi knows, and values that are not
 * keys, are left out with one warning line each kind. Ids pi knows that xcsh
 * has no feature for are accepted quietly, so a pi user's file works unchanged.
 */
import { join } from "node:path";
import type { KeybindingsConfig, KeybindingsManager, KeyId } from "@earendil-works/pi-tui";
import { getAgentDir } from "../../config/paths.ts";
import { readJsonFile } from "../../config/json-file.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";

const isWindows = process.platform === "win32";

/** Where an action's keys work: the prompt editor, or inside /resume, /tree or /scoped-models. */
export type ActionScope = "editor" | "resume" | "tree" | "models";

interface ActionDefinition {
  keys: KeyId[];
  description: string;
  scope: ActionScope;
}

const at =
  (scope: ActionScope) =>
  (keys: KeyId[], description: string): ActionDefinition => ({ keys, description, scope });
const editor = at("editor");
const resume = at("resume");
const tree = at("tree");
const models = at("models");

/** The application's actions xcsh carries out, with their default keys (pi 0.87.1's defaults). */
export const APP_ACTIONS: Readonly<Record<string, ActionDefinition>> = {
  "app.interrupt": editor(["escape"], "abort the run; twice on an empty editor: the double-Escape action"),
  "app.clear": editor(["ctrl+c"], "clear the editor; twice to exit"),
  "app.exit": editor(["ctrl+d"], "exit (empty editor)"),
  "app.suspend": editor(isWindows ? [] : ["ctrl+z"], "suspend to the background (fg brings it back)"),
  "app.editor.external": editor(["ctrl+g"], "edit the prompt in an external editor"),
  "app.clipboard.pasteImage": editor([isWindows ? "alt+v" : "ctrl+v"], "attach the clipboard's image"),
  "app.model.select": editor(["ctrl+l"], "select a model"),
  "app.model.cycleForward": editor(["ctrl+p"], "next model (of /scoped-models, else all)"),
  "app.model.cycleBackward": editor([isWindows ? "alt+p" : "shift+ctrl+p"], "previous model"),
  "app.thinking.cycle": editor(["shift+tab"], "cycle the thinking level"),
  "app.thinking.toggle": editor(["ctrl+t"], "show thinking (again: fold it)"),
  "app.tools.expand": editor(["ctrl+o"], "expand tool output (again: fold it)"),
  "app.message.followUp": editor(["alt+enter"], "queue a follow-up while the agent works"),
  "app.message.dequeue": editor(["alt+up"], "take queued messages back into the editor"),
  "app.message.copy": editor(["ctrl+x"], "copy the mouse selection (fullscreen, fullscreenCopyOnSelect false), else the last answer"),
  "app.session.new": editor([], "start a new session (/new)"),
  "app.session.tree": editor([], "open the session tree (/tree)"),
  "app.session.fork": editor([], "fork from an earlier message (/fork)"),
  "app.session.resume": editor([], "resume a session (/resume)"),
  // In the /resume picker.
  "app.session.togglePath": resume(["ctrl+p"], "show session file paths"),
  "app.session.toggleSort": resume(["ctrl+s"], "cycle the order: threaded, recent, fuzzy"),
  "app.session.toggleNamedFilter": resume(["ctrl+n"], "only named sessions"),
  "app.session.rename": resume(["ctrl+r"], "rename the selected session"),
  "app.session.delete": resume(["ctrl+d"], "delete the selected session"),
  "app.session.deleteNoninvasive": resume(["ctrl+backspace"], "delete the selected session (empty search)"),
  // In /tree.
  "app.tree.editLabel": tree(["shift+l"], "label the selected entry"),
  "app.tree.filter.default": tree(["ctrl+d"], "filter: default"),
  "app.tree.filter.noTools": tree(["ctrl+t"], "filter: no tool results"),
  "app.tree.filter.userOnly": tree(["ctrl+u"], "filter: user messages only"),
  "app.tree.filter.labeledOnly": tree(["ctrl+l"], "filter: labeled entries only"),
  "app.tree.filter.all": tree(["ctrl+a"], "filter: everything"),
  "app.tree.filter.cycleForward": tree(["ctrl+o"], "next filter"),
  "app.tree.filter.cycleBackward": tree(["shift+ctrl+o"], "previous filter"),
  // In /scoped-models.
  "app.models.enableAll": models(["ctrl+a"], "enable all (shown) models"),
  "app.models.clearAll": models(["ctrl+x"], "clear all (shown) models"),
  "app.models.toggleProvider": models(["ctrl+p"], "toggle the selected model's provider"),
  "app.models.reorderUp": models(["alt+up"], "move the selected model up in the cycle"),
  "app.models.reorderDown": models(["alt+down"], "move the selected model down in the cycle"),
  "app.models.save": models(["ctrl+s"], "save to settings"),
};

/** Ids pi 0.87.1 has that xcsh accepts in the file but has no feature for (yet). */
const PI_ONLY_ACTIONS = [
  "app.thinking.save",
  "app.tree.foldOrUp",
  "app.tree.unfoldOrDown",
  "app.tree.toggleLabelTimestamp",
];

const MODIFIERS = new Set(["ctrl", "shift", "alt", "super"]);
const NAMED_KEYS = new Set(
  ["escape", "esc", "enter", "return", "tab", "space", "backspace", "delete", "insert", "clear", "home", "end", "pageup", "pagedown", "up", "down", "left", "right"].concat(
    Array.from({ length: 12 }, (_, index) => `f${index + 1}`),
  ),
);
const SYMBOLS = new Set("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?".split(""));

/** `ctrl+shift+x`, `alt+enter`, `f5`: modifiers then one key, as pi's key syntax has it. */
export function isKeyId(value: unknown): value is KeyId {
  if (typeof value !== "string" || value.length === 0) return false;
  const parts = value.toLowerCase().split("+");
  const key = parts.pop()!;
  if (!parts.every((part) => MODIFIERS.has(part))) return false;
  if (new Set(parts).size !== parts.length) return false;
  return /^[a-z0-9]$/.test(key) || NAMED_KEYS.has(key) || SYMBOLS.has(key);
}

export interface Keymap {
  /** The resolved keys; matches(data, id) for any app.* or tui.* id. */
  readonly manager: KeybindingsManager;
  /** What was wrong with the file, one line per kind of problem (empty when all is well). */
  readonly warnings: string[];
}

export function keybindingsPath(): string {
  return join(getAgentDir(), "keybindings.json");
}

/** The user's bindings from the file, checked: what to apply and what to say about the rest. */
export function readUserBindings(file: string, knownIds: ReadonlySet<string>): { bindings: KeybindingsConfig; warnings: string[] } {
  let content: unknown;
  try {
    content = readJsonFile(file, "The default keys are used.");
  } catch (error) {
    return { bindings: {}, warnings: [`! ${(error as Error).message}`] };
  }
  if (content === undefined) return { bindings: {}, warnings: [] };
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    return { bindings: {}, warnings: [`! ${file}: expected a JSON object mapping action ids to keys. The default keys are used.`] };
  }
  const bindings: KeybindingsConfig = {};
  const unknown: string[] = [];
  const badValues: string[] = [];
  for (const [id, value] of Object.entries(content)) {
    // An editor's schema reference (schemas/keybindings.schema.json, or pi's URL), no action.
    if (id === "$schema") continue;
    if (!knownIds.has(id)) {
      unknown.push(id);
      continue;
    }
    const keys = typeof value === "string" ? [value] : value;
    if (!Array.isArray(keys) || !keys.every(isKeyId)) {
      badValues.push(`${id} (${JSON.stringify(value)})`);
      continue;
    }
    bindings[id] = keys.map((key) => key.toLowerCase() as KeyId);
  }
  const warnings: string[] = [];
  if (unknown.length) warnings.push(`! ${file}: unknown action ${unknown.length === 1 ? "id" : "ids"} ${unknown.join(", ")} (ignored; /hotkeys lists the actions)`);
  if (badValues.length) warnings.push(`! ${file}: not a key or list of keys: ${badValues.join(", ")} (defaults kept for ${badValues.length === 1 ? "it" : "them"})`);
  return { bindings, warnings };
}

/** Every action id with its default keys and description: pi-tui's, then xcsh's own. */
export function actionDefinitions(): Record<string, { defaultKeys: KeyId[]; description: string }> {
  const { TUI_KEYBINDINGS } = loadPiTui();
  const definitions: Record<string, { defaultKeys: KeyId[]; description: string }> = {};
  for (const [id, definition] of Object.entries(TUI_KEYBINDINGS)) {
    definitions[id] = { defaultKeys: ([] as KeyId[]).concat(definition.defaultKeys as KeyId | KeyId[]), description: definition.description };
  }
  for (const [id, action] of Object.entries(APP_ACTIONS)) definitions[id] = { defaultKeys: action.keys, description: action.description };
  return definitions;
}

/** The ids keybindings.json may name: xcsh's actions and pi's that xcsh accepts quietly. */
export function knownActionIds(): string[] {
  return [...Object.keys(actionDefinitions()), ...PI_ONLY_ACTIONS];
}

/** Defaults plus the person's keybindings.json, installed as pi-tui's global keybindings. */
export function loadKeymap(file = keybindingsPath()): Keymap {
  const { KeybindingsManager, setKeybindings } = loadPiTui();
  const definitions = actionDefinitions();
  const known = new Set(knownActionIds());
  const { bindings, warnings } = readUserBindings(file, known);
  const manager = new KeybindingsManager(definitions, bindings);
  setKeybindings(manager);
  installed = manager;
  return { manager, warnings };
}

let installed: KeybindingsManager | undefined;

/** The keys loadKeymap installed last (what components built by extensions are handed), if any. */
export function installedKeymap(): KeybindingsManager | undefined {
  return installed;
}

/** "ctrl+p" or "shift+ctrl+p / alt+p" for an id; "" when nothing is bound. */
export function keysOf(manager: KeybindingsManager, id: string): string {
  return manager.getKeys(id as Parameters<KeybindingsManager["getKeys"]>[0]).join(" / ");
}

/** Whether `data` is one of the keys bound to `id`. */
export function matches(manager: KeybindingsManager, data: string, id: string): boolean {
  return manager.matches(data, id as Parameters<KeybindingsManager["matches"]>[1]);
}
