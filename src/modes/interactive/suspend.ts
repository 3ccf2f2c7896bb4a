/**
 * Handing the terminal over and taking it back: for Ctrl+Z (the shell's job
 * control stops xcsh; `fg` continues it) and for an external editor. While
 * released, the UI neither draws nor reads keys, and the terminal is as the
 * shell left it (cooked mode, cursor shown, no bracketed paste or keyboard
 * protocol). Taking it back redraws everything: the screen is the shell's or
 * the editor's by then. The fullscreen layout leaves the alternate screen
 * without printing the conversation (`preserveScreen`): that is for the exit.
 */
import type { TUI } from "@earendil-works/pi-tui";

/** Fullscreen: leave the alternate screen as it is (the inline layout must still move below its lines). */
const releaseOptions = (tui: TUI) => (tui.mode === "fullscreen" ? { preserveScreen: true } : undefined);

/** Runs `use` with the terminal released, and takes it back whatever happens. */
export async function withTerminalReleased<T>(tui: TUI, use: () => Promise<T> | T): Promise<T> {
  tui.stop(releaseOptions(tui));
  try {
    return await use();
  } finally {
    tui.start();
    tui.requestRender(true);
  }
}

/**
 * Ctrl+Z: stops xcsh as the terminal's suspend key would (SIGTSTP to itself,
 * after restoring the terminal). kill() returns only once the process has been
 * continued (or at once, when the signal is discarded because no shell could
 * continue it — an orphaned process group), so the UI comes back right after.
 * False where there is no job control (Windows).
 */
export function suspendToBackground(tui: TUI): boolean {
  if (process.platform === "win32") return false;
  tui.stop(releaseOptions(tui));
  try {
    process.kill(process.pid, "SIGTSTP");
  } finally {
    tui.start();
    tui.requestRender(true);
  }
  return true;
}
