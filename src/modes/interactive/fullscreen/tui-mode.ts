/**
 * Which terminal UI a run gets, and how the fullscreen one behaves, from
 * `--tui-mode` and pi 1.x's settings (`tuiMode`, `fullscreen*`), project over
 * global. Read straight from the files before the session exists, because the
 * terminal is taken over before the session loads. A value that is not one of
 * pi's is ignored (its default applies): a typo must not break the screen.
 */
import type { WheelScrollLines } from "@earendil-works/pi-tui";
import { readJsonFile } from "../../../config/json-file.ts";
import { getProjectSettingsPath, getSettingsPath } from "../../../config/paths.ts";

export type TuiMode = "fullscreen" | "regular";

export interface FullscreenOptions {
  wheelScrollLines: WheelScrollLines;
  scrollbar: "auto" | "always" | "hidden";
  copyOnSelect: boolean;
  /** What stays on the terminal after leaving: the transcript, or only the resume hint. */
  exitOutput: "transcript" | "resume-hint";
}

export interface TuiChoice {
  mode: TuiMode;
  fullscreen: FullscreenOptions;
}

/**
 * Fullscreen is the default, as in pi 1.x; `tuiMode: "regular"` or `--tui-mode regular`
 * draws inline instead. A terminal that cannot move its cursor (TERM=dumb) gets neither:
 * it runs the plain line mode (plain-mode.ts), chosen before this.
 */
export const DEFAULT_TUI_MODE: TuiMode = "fullscreen";

function settingsIn(file: string): Record<string, unknown> {
  try {
    const content = readJsonFile(file);
    return typeof content === "object" && content !== null && !Array.isArray(content) ? (content as Record<string, unknown>) : {};
  } catch {
    return {}; // reported where settings load
  }
}

const oneOf = <T extends string>(value: unknown, allowed: readonly T[]): T | undefined => (allowed.includes(value as T) ? (value as T) : undefined);

function wheelLines(value: unknown): WheelScrollLines | undefined {
  if (value === "auto") return "auto";
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 100) return value;
  return undefined;
}

/** Reads one display setting (a dotted path) from the files: the project's, else the person's, else `fallback`. */
export type DisplaySettingPicker = <T>(path: string, read: (value: unknown) => T | undefined, fallback: T) => T;

export function displaySettingPicker(cwd: string): DisplaySettingPicker {
  const global = settingsIn(getSettingsPath());
  const project = settingsIn(getProjectSettingsPath(cwd));
  const at = (content: Record<string, unknown>, path: string) =>
    path.split(".").reduce<unknown>((value, key) => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined), content);
  return (path, read, fallback) => read(at(project, path)) ?? read(at(global, path)) ?? fallback;
}

export function chooseTuiMode(flag: string | undefined, cwd: string): TuiChoice {
  const pick = displaySettingPicker(cwd);
  const modes = ["fullscreen", "regular"] as const;
  return {
    mode: oneOf(flag, modes) ?? pick("tuiMode", (value) => oneOf(value, modes), DEFAULT_TUI_MODE),
    fullscreen: {
      wheelScrollLines: pick("fullscreenWheelScrollLines", wheelLines, "auto" as WheelScrollLines),
      scrollbar: pick("fullscreenScrollbar", (value) => oneOf(value, ["auto", "always", "hidden"] as const), "auto"),
      copyOnSelect: pick("fullscreenCopyOnSelect", (value) => (typeof value === "boolean" ? value : undefined), true),
      exitOutput: pick("fullscreenExitOutput", (value) => oneOf(value, ["transcript", "resume-hint"] as const), "transcript"),
    },
  };
}
