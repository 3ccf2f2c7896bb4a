/**
 * What the application's keys do, by pi's action ids (their keys come from
 * keymap.ts, so keybindings.json can move them). The shell supplies the
 * handlers that touch its own state (abort, clear, the toggles); the ones
 * here work through the App: model cycling (Ctrl+P, Shift+Ctrl+P) through the
 * session's cycle within /scoped-models or `enabledModels`, the external
 * editor (Ctrl+G), suspending (Ctrl+Z), copying (Ctrl+X), and the session commands pi lets a
 * person bind (`app.session.new`, `.tree`, `.fork`, `.resume`). The order is
 * the order keys are tried in: where two actions share a key, the first wins.
 */
import type { TUI } from "@earendil-works/pi-tui";
import type { App } from "./app.ts";
import { modelKey, modelsInScope } from "./model-scope.ts";
import type { AppAction } from "./prompt-editor.ts";
import { suspendToBackground, withTerminalReleased } from "./suspend.ts";

/** The shell's own handlers, for the actions that change its state. */
export interface ShellKeys {
  interrupt(): void;
  clear(): void;
  exit(): void;
  followUp(): void;
  toggleTools(): void;
  toggleThinking(): void;
  cycleThinking(): void;
  pasteImage(): void;
  dequeue(): void;
}

export function appActions(app: App, shell: ShellKeys): AppAction[] {
  const command = (line: string) => () => void app.runCommand(line);
  return [
    { id: "app.interrupt", run: shell.interrupt, when: "noCompletion" },
    { id: "app.clear", run: shell.clear },
    { id: "app.exit", run: shell.exit, when: "emptyEditor" },
    { id: "app.message.followUp", run: shell.followUp },
    { id: "app.suspend", run: () => suspend(app) },
    { id: "app.editor.external", run: () => void editExternally(app) },
    { id: "app.model.cycleBackward", run: () => void cycleModel(app, "backward") },
    { id: "app.model.cycleForward", run: () => void cycleModel(app, "forward") },
    { id: "app.model.select", run: command("/model") },
    { id: "app.tools.expand", run: shell.toggleTools },
    { id: "app.thinking.toggle", run: shell.toggleThinking },
    { id: "app.thinking.cycle", run: shell.cycleThinking },
    { id: "app.clipboard.pasteImage", run: shell.pasteImage },
    { id: "app.message.dequeue", run: shell.dequeue },
    { id: "app.message.copy", run: () => void copyKeyed(app) },
    { id: "app.session.new", run: command("/new") },
    { id: "app.session.tree", run: command("/tree") },
    { id: "app.session.fork", run: command("/fork") },
    { id: "app.session.resume", run: command("/resume") },
  ];
}

/** The models the cycle goes through: this session's /scoped-models choice, else `enabledModels`. */
export function cycleScope(app: App) {
  return modelsInScope(app.session.models.availableModels(), app.modelScope ?? app.session.settings.enabledModels);
}

async function cycleModel(app: App, direction: "forward" | "backward"): Promise<void> {
  if (!app.session) return;
  try {
    const result = await app.session.models.cycleModel(direction, cycleScope(app));
    if (!result) return app.conversation.status(cycleScope(app) ? "Only one model in the scope (/scoped-models)" : "Only one model has an API key configured", "muted");
    const thinking = result.model.reasoning ? ` · thinking ${result.thinkingLevel}` : "";
    app.conversation.status(`Model: ${modelKey(result.model)}${thinking}`);
  } catch (error) {
    app.say("✗ Cannot switch the model", (error as Error).message, "error");
  }
  app.refreshHeader();
}

function suspend(app: App): void {
  if (!suspendToBackground(app.surface.tui)) app.conversation.status("Suspending needs job control, which this terminal does not have", "warning");
}

async function editExternally(app: App): Promise<void> {
  const { editorCommand, editInExternalEditor } = await import("./external-editor.ts");
  const command = editorCommand(app.session?.settings.externalEditor);
  if (!command) return app.say("✗ No external editor", "set $VISUAL or $EDITOR, or externalEditor in settings.json", "error");
  const editor = app.editor;
  const outcome = await editInExternalEditor(command, editor.getExpandedText?.() ?? editor.getText(), (run) => withTerminalReleased(app.surface.tui, run));
  if (!outcome.ok) return app.say(`✗ ${outcome.reason}`, "", "error");
  editor.setText(outcome.text);
  app.surface.tui.requestRender();
}

/** The fullscreen renderer's selection (pi-tui's TuiAltScreen); absent inline. */
type SelectingTui = TUI & { hasActiveSelection?(): boolean; getCopyOnSelect?(): boolean; copyActiveSelectionToClipboard?(): Promise<boolean> };

/**
 * Ctrl+X, as in pi 1.x: the mouse selection when letting go of the button did not copy it
 * (fullscreenCopyOnSelect false), else the last answer (/copy).
 */
async function copyKeyed(app: App): Promise<void> {
  const tui = app.surface.tui as SelectingTui;
  if (tui.getCopyOnSelect?.() === false && tui.hasActiveSelection?.()) {
    await tui.copyActiveSelectionToClipboard?.();
    return;
  }
  await app.runCommand("/copy");
}
