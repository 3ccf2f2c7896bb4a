/**
 * pi's terminal settings that the terminal library can honour: `terminal.trueColor` and
 * `terminal.hyperlinks` override what it detects (`"auto"`: detect), `showHardwareCursor`
 * shows the terminal's own cursor, `terminal.clearOnShrink` clears rows left empty
 * when the drawing gets shorter, and `terminal.showTerminalProgress` shows a run in the
 * terminal's tab (OSC 9;4, busy while the agent works). Unset, pi's variables decide the last two
 * (`PI_HARDWARE_CURSOR=1`, `PI_CLEAR_ON_SHRINK=1`; xcsh's `XCSH_` spellings too).
 *
 * Read from the files before the session exists, like the fullscreen keys
 * (fullscreen/tui-mode.ts): the colour mode is chosen when the theme is built, before
 * the session loads. A value of the wrong kind is ignored (the default applies).
 */
import { displaySettingPicker } from "./fullscreen/tui-mode.ts";

export interface TerminalSettings {
  /** Overrides of what the library detects; a missing key: detect. */
  capabilities: { trueColor?: boolean; hyperlinks?: boolean };
  hardwareCursor: boolean;
  clearOnShrink: boolean;
  /** Report runs as tab progress (OSC 9;4). */
  tabProgress: boolean;
}

const flag = (value: unknown) => (typeof value === "boolean" ? value : undefined);
const switchedOn = (env: NodeJS.ProcessEnv, name: string) => env[`PI_${name}`] === "1" || env[`XCSH_${name}`] === "1";

export function readTerminalSettings(cwd: string, env: NodeJS.ProcessEnv = process.env): TerminalSettings {
  const pick = displaySettingPicker(cwd);
  const trueColor = pick("terminal.trueColor", flag, undefined);
  const hyperlinks = pick("terminal.hyperlinks", flag, undefined);
  return {
    capabilities: { ...(trueColor !== undefined ? { trueColor } : {}), ...(hyperlinks !== undefined ? { hyperlinks } : {}) },
    hardwareCursor: pick("showHardwareCursor", flag, switchedOn(env, "HARDWARE_CURSOR")),
    clearOnShrink: pick("terminal.clearOnShrink", flag, switchedOn(env, "CLEAR_ON_SHRINK")),
    tabProgress: pick("terminal.showTerminalProgress", flag, false),
  };
}
