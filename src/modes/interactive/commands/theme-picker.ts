/**
 * The theme choice of /settings: a list of every theme that can be drawn (the
 * built-in ones, then theme files) and the automatic "light/dark" pair. Moving
 * over a theme shows the whole screen in it; Enter keeps it — drawn at once and
 * saved as `theme` in the global settings.json — and Esc puts back the theme
 * that was drawn before.
 */
import { getSettingsPath } from "../../../config/paths.ts";
import { readProjectSettingsFile } from "../../../config/settings.ts";
import type { App } from "../app.ts";
import { shortenHome } from "../footer.ts";
import { Picker, type PickerRow } from "../picker.ts";
import { getAt, setInMemory, writeGlobalSetting } from "../settings-writer.ts";
import { SYSTEM_THEME_NAME } from "../theme/system-theme.ts";

const AUTOMATIC = "light/dark";

function projectSetsTheme(app: App): boolean {
  try {
    return getAt(readProjectSettingsFile(app.cwd), "theme") !== undefined;
  } catch {
    return false;
  }
}

/**
 * Shows the theme list in the editor's place; `back` is called once it closes,
 * with what to tell the person, and puts what comes next in that place.
 */
export function showThemePicker(app: App, back: (message?: string) => void): void {
  const themes = app.surface.themes;
  // Nothing chosen: the system theme is what is drawn, so it is the one ticked.
  const current = themes.currentChoice() || SYSTEM_THEME_NAME;
  const rows = (): PickerRow[] => [
    ...themes.available().map((theme) => ({ id: theme.name, text: `${theme.name === current ? "✓ " : "  "}${theme.name}`, searchText: theme.name, right: theme.path ? shortenHome(theme.path) : "built in" })),
    { id: AUTOMATIC, text: `${current === AUTOMATIC ? "✓ " : "  "}automatic`, searchText: "automatic light dark", right: "light or dark, as the terminal's background" },
  ];
  const close = (message?: string) => {
    themes.endPreview();
    back(message);
  };
  const picker: Picker = new Picker({
    theme: app.surface.theme,
    keymap: () => app.keymap,
    height: () => Math.max(4, Math.min(rows().length, app.surface.tui.terminal.rows - 14)),
    title: () => "Theme",
    status: () => shortenHome(getSettingsPath()),
    hints: () => ["↑↓ preview · enter keep · esc back"],
    rows: (query) => {
      const needle = query.trim().toLowerCase();
      return rows().filter((row) => !needle || (row.searchText ?? row.text).toLowerCase().includes(needle));
    },
    onSelect: (row) => (row ? themes.preview(row.id) : themes.endPreview()),
    onPick: (row) => {
      const result = themes.select(row.id);
      if (!result.success) return picker.flash(`Not used: ${result.error}`);
      try {
        writeGlobalSetting("theme", row.id);
      } catch (error) {
        return close(`Drawn now, not saved: ${(error as Error).message}`);
      }
      setInMemory(app.session.settings as unknown as Record<string, unknown>, "theme", row.id);
      close(projectSetsTheme(app) ? `theme: ${row.id} now; saved to ${shortenHome(getSettingsPath())}, but this project's .xcsh/settings.json sets theme, which wins from the next start` : `theme: ${row.id}`);
    },
    onCancel: () => close(),
  });
  const index = rows().findIndex((row) => row.id === current);
  picker.select(Math.max(0, index));
  app.surface.replaceEditor(picker);
}
