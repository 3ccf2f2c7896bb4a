/**
 * /scoped-models: which models Ctrl+P cycles through, and in what order. The
 * enabled models are listed first, in cycle order; Enter turns the selected
 * one on or off, Ctrl+A / Ctrl+X enable or clear all the models shown (after
 * a search), Ctrl+P toggles the selected model's provider, Alt+↑/↓ move an
 * enabled model in the order. A change applies to this session at once;
 * Ctrl+S also saves it as `enabledModels` in the global settings.json. With
 * all or none enabled, Ctrl+P cycles through every model.
 */
import type { Model } from "../../../ai/types.ts";
import { loadPiTui } from "../../../extensions/tui-helpers.ts";
import { shortenHome } from "../footer.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { keysOf, matches } from "../keymap.ts";
import { modelKey, modelsInScope } from "../model-scope.ts";
import { Picker, showPicker, type PickerRow } from "../picker.ts";
import { writeGlobalSetting } from "../settings-writer.ts";
import { getSettingsPath } from "../../../config/paths.ts";

async function scopedModels(app: App): Promise<void> {
  const available = app.session.models.availableModels();
  if (available.length === 0) return app.say("✗ No model has an API key configured", "", "error");
  const byKey = new Map(available.map((model) => [modelKey(model), model]));
  let enabled: string[] = (modelsInScope(available, app.modelScope ?? app.session.settings.enabledModels) ?? available).map(modelKey);
  let unsaved = false;
  const key = (id: string) => keysOf(app.keymap, id) || "unbound";
  const { fuzzyFilter } = loadPiTui();
  const ordered = (): Model[] => [...enabled.map((each) => byKey.get(each)!), ...available.filter((model) => !enabled.includes(modelKey(model)))];
  const shown = (query: string): Model[] => (query.trim() ? fuzzyFilter(ordered(), query.trim(), (model) => `${modelKey(model)} ${model.name ?? ""}`) : ordered());
  const apply = () => {
    unsaved = true;
    // For this session, over the setting; none enabled names no model, and then every model cycles.
    app.modelScope = [...enabled];
  };
  /** What to save: nothing (every model) when none, or all in the registry's order, are enabled. */
  const toSave = () => (enabled.length === 0 || enabled.join("\n") === available.map(modelKey).join("\n") ? undefined : [...enabled]);
  const toggle = (keys: string[], on: boolean) => {
    enabled = on ? [...enabled, ...keys.filter((each) => !enabled.includes(each))] : enabled.filter((each) => !keys.includes(each));
    apply();
  };
  await showPicker<void>(app.surface.replaceEditor, (settle) => {
    const picker: Picker = new Picker({
      theme: app.surface.theme,
      keymap: () => app.keymap,
      height: () => Math.max(4, Math.min(15, app.surface.tui.terminal.rows - 14)),
      title: () => "Models for Ctrl+P",
      status: () => `${enabled.length === 0 || enabled.length === available.length ? "all" : `${enabled.length}/${available.length}`} enabled${unsaved ? " (this session; not saved)" : ""}`,
      hints: () => [
        `enter on/off · ${key("app.models.enableAll")} all · ${key("app.models.clearAll")} clear · ${key("app.models.toggleProvider")} provider · ${key("app.models.reorderUp")}/${key("app.models.reorderDown")} order · ${key("app.models.save")} save · esc close`,
      ],
      rows: (query): PickerRow[] =>
        shown(query).map((model) => {
          const on = enabled.includes(modelKey(model));
          return { id: modelKey(model), text: `${on ? app.surface.theme().fg("success", "✓") : " "} ${modelKey(model)}`, right: model.name && model.name !== model.id ? model.name : undefined };
        }),
      onKey: (data, self) => {
        const selected = self.selected()?.id;
        if (matches(app.keymap, data, "app.models.enableAll")) toggle(shown(self.query).map(modelKey), true);
        else if (matches(app.keymap, data, "app.models.clearAll")) toggle(shown(self.query).map(modelKey), false);
        else if (matches(app.keymap, data, "app.models.toggleProvider") && selected) {
          const provider = byKey.get(selected)!.provider;
          const keys = available.filter((model) => model.provider === provider).map(modelKey);
          toggle(keys, !keys.every((each) => enabled.includes(each)));
        } else if ((matches(app.keymap, data, "app.models.reorderUp") || matches(app.keymap, data, "app.models.reorderDown")) && selected && enabled.includes(selected)) {
          const from = enabled.indexOf(selected);
          const to = from + (matches(app.keymap, data, "app.models.reorderUp") ? -1 : 1);
          if (to < 0 || to >= enabled.length) return true;
          enabled.splice(from, 1);
          enabled.splice(to, 0, selected);
          apply();
        } else if (matches(app.keymap, data, "app.models.save")) {
          try {
            const value = toSave();
            writeGlobalSetting("enabledModels", value);
            app.session.settings.enabledModels = value;
            unsaved = false;
            self.flash(`Saved to ${shortenHome(getSettingsPath())}`);
          } catch (error) {
            self.flash(`Not saved: ${(error as Error).message}`);
          }
          return true;
        } else return false;
        self.refresh(selected);
        return true;
      },
      onPick: (row) => {
        toggle([row.id], !enabled.includes(row.id));
        // The cursor stays in place (the row moves), so a run of models is toggled with Enter, ↓, Enter…
        picker.refresh(null);
      },
      onCancel: () => settle(),
    });
    return picker;
  });
  app.footer.refresh();
}

export const scopedModelsCommand: BuiltinCommand = { name: "scoped-models", description: "Choose the models Ctrl+P cycles through", run: scopedModels };
