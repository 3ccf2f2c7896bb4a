/**
 * /settings: the settings xcsh honours that make sense to change from the
 * terminal, each with its value in effect. Enter moves a setting to its next
 * value (or asks for text; `theme` opens its own list, theme-picker.ts); the change is written to the global settings.json
 * at once (settings-writer.ts) and, where the running session can take it,
 * applied now. When the project's `.xcsh/settings.json` sets the same key,
 * that value stays in effect here, and the line says so.
 */
import { THINKING_LEVELS } from "../../../ai/types.ts";
import { getSettingsPath } from "../../../config/paths.ts";
import { readProjectSettingsFile } from "../../../config/settings.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { shortenHome } from "../footer.ts";
import { Picker, showPicker, type PickerRow } from "../picker.ts";
import { getAt, setInMemory, writeGlobalSetting } from "../settings-writer.ts";
import { showThemePicker } from "./theme-picker.ts";
import { TREE_FILTERS } from "./tree-rows.ts";

interface SettingItem {
  path: string;
  description: string;
  /** The values Enter cycles through; "text" asks for a line (empty removes the setting). */
  values: readonly unknown[] | "text";
  /** What applies when the files say nothing. */
  fallback: string;
  /** Puts a new value into effect in the running session; without it, the next start uses it. */
  apply?(app: App, value: unknown): void;
  /** A setting with a list of its own: shown instead of cycling values; `done` brings the settings back. */
  open?(app: App, done: (message?: string) => void): void;
  /** The value in effect, when it is not simply the settings' one. */
  current?(app: App): unknown;
}

const BOOLEAN = [true, false] as const;
const QUEUE_MODES = ["one-at-a-time", "all"] as const;

export const SETTING_ITEMS: readonly SettingItem[] = [
  { path: "doubleEscapeAction", description: "what Esc twice on an empty editor opens", values: ["tree", "fork", "none"], fallback: "tree", apply: () => undefined },
  { path: "treeFilterMode", description: "the filter /tree opens with", values: TREE_FILTERS, fallback: "default", apply: () => undefined },
  { path: "externalEditor", description: "the editor Ctrl+G opens (a command)", values: "text", fallback: "$VISUAL, $EDITOR, nano or vi", apply: () => undefined },
  {
    path: "steeringMode",
    description: "steering messages: delivered one at a time, or all at once",
    values: QUEUE_MODES,
    fallback: "one-at-a-time",
    apply: (app, value) => (app.session.agent.steeringQueue.mode = value as (typeof QUEUE_MODES)[number]),
  },
  {
    path: "followUpMode",
    description: "follow-up messages: one at a time, or all at once",
    values: QUEUE_MODES,
    fallback: "one-at-a-time",
    apply: (app, value) => (app.session.agent.followUpQueue.mode = value as (typeof QUEUE_MODES)[number]),
  },
  { path: "compaction.enabled", description: "compact automatically when the context fills", values: BOOLEAN, fallback: "true", apply: (app, value) => (app.session.autoCompactionEnabled = value as boolean) },
  { path: "retry.enabled", description: "retry failed model calls", values: BOOLEAN, fallback: "true", apply: (app, value) => (app.session.autoRetryEnabled = value as boolean) },
  { path: "defaultThinkingLevel", description: "thinking level new sessions start with", values: THINKING_LEVELS, fallback: "the model's default" },
  { path: "enableSkillCommands", description: "offer skills as /skill:name commands", values: BOOLEAN, fallback: "true" },
  { path: "tuiMode", description: "the terminal UI: fullscreen, or inline (regular)", values: ["fullscreen", "regular"], fallback: "fullscreen" },
  {
    path: "fullscreenCopyOnSelect",
    description: "fullscreen: copy a mouse selection on release",
    values: BOOLEAN,
    fallback: "true",
    // Inline the terminal owns the mouse: nothing to apply there.
    apply: (app, value) => (app.surface.tui as { setCopyOnSelect?(enabled: boolean): void }).setCopyOnSelect?.(value !== false),
  },
  {
    path: "theme",
    description: "colours: enter lists the themes, each previewed",
    values: [],
    // Unset, xcsh draws the system theme (theme-controller.ts), not a light/dark pair.
    fallback: "system",
    open: showThemePicker,
    current: (app) => app.surface.themes.currentChoice() || undefined,
  },
];

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Whether the project's settings file sets `path` (then it wins over the global file). */
function projectSets(app: App, path: string): boolean {
  try {
    return getAt(readProjectSettingsFile(app.cwd), path) !== undefined;
  } catch {
    return false;
  }
}

function valueOf(app: App, item: SettingItem): unknown {
  return item.current ? item.current(app) : getAt(app.session.settings, item.path);
}

async function change(app: App, picker: Picker, item: SettingItem): Promise<void> {
  const current = valueOf(app, item);
  let next: unknown;
  if (item.values === "text") {
    const typed = await picker.ask(`${item.path} (empty: ${item.fallback}):`, typeof current === "string" ? current : "");
    if (typed === undefined) return;
    next = typed.trim() || undefined;
  } else {
    const index = item.values.findIndex((value) => value === current);
    // Unset: the first value that differs from what applies now.
    next = index === -1 ? (item.values.find((value) => show(value) !== item.fallback) ?? item.values[0]) : item.values[(index + 1) % item.values.length];
  }
  try {
    writeGlobalSetting(item.path, next);
  } catch (error) {
    return picker.flash(`Not saved: ${(error as Error).message}`);
  }
  if (projectSets(app, item.path)) return picker.flash(`Saved to ${shortenHome(getSettingsPath())}; this project's .xcsh/settings.json sets ${item.path}, which wins here`);
  setInMemory(app.session.settings, item.path, next);
  item.apply?.(app, next);
  picker.flash(`${item.path}: ${next === undefined ? item.fallback : show(next)}${item.apply ? "" : " (from the next start)"}`);
}

async function settings(app: App): Promise<void> {
  await showPicker<void>(app.surface.replaceEditor, (settle) => {
    const picker: Picker = new Picker({
      theme: app.surface.theme,
      keymap: () => app.keymap,
      height: () => Math.max(4, Math.min(SETTING_ITEMS.length, app.surface.tui.terminal.rows - 14)),
      title: () => "Settings",
      status: () => shortenHome(getSettingsPath()),
      hints: () => ["enter change · esc close · type to search"],
      rows: (query): PickerRow[] => {
        const needle = query.trim().toLowerCase();
        const width = Math.max(...SETTING_ITEMS.map((item) => item.path.length));
        return SETTING_ITEMS.filter((item) => !needle || `${item.path} ${item.description}`.toLowerCase().includes(needle)).map((item) => {
          const value = valueOf(app, item);
          // Highlighted only when it differs from the default: the session's settings carry some
          // defaults (compaction, retry) as values, which must not look like changes to a newcomer.
          const shown = value === undefined || show(value) === item.fallback ? app.surface.theme().fg("dim", value === undefined ? item.fallback : show(value)) : app.surface.theme().fg("accent", show(value));
          return { id: item.path, text: `${item.path.padEnd(width)}  ${shown}`, right: item.description };
        });
      },
      onPick: (row) => {
        const item = SETTING_ITEMS.find((each) => each.path === row.id)!;
        if (item.open) {
          return item.open(app, (message) => {
            picker.refresh(row.id);
            if (message) picker.flash(message);
            app.surface.replaceEditor(picker);
          });
        }
        void change(app, picker, item).then(() => {
          picker.refresh(row.id);
          app.surface.tui.requestRender();
        });
      },
      onCancel: () => settle(),
    });
    return picker;
  });
}

export const settingsCommand: BuiltinCommand = { name: "settings", description: "Change settings (saved to the global settings.json)", run: settings };
