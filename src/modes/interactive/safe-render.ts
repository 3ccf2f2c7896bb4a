/**
 * A drawing mistake never takes the session down. pi-tui stops the program
 * when a line is wider than the terminal or a component throws while
 * rendering; extension components (widgets, header, footer, custom(), a
 * replacement editor) are not ours to trust. Their render is guarded in place
 * (so focus and key handling stay with the same object): a throw draws one
 * error line and is reported once, and every line is cut to the width. The
 * whole screen gets the same cut as a last resort.
 */
import type { Component, TUI } from "@earendil-works/pi-tui";
import { helperTheme, loadPiTui } from "../../extensions/tui-helpers.ts";

const guarded = new WeakSet<object>();

/** Kitty and iTerm2 image sequences: pi-tui sizes those lines itself. */
const isImageLine = (line: string) => line.includes("\x1b_G") || line.includes("\x1b]1337;File=");

/** Lines no wider than `width` (image lines are left alone: they carry their own size). */
export function clampLines(lines: readonly string[], width: number): readonly string[] {
  const { visibleWidth, truncateToWidth } = loadPiTui();
  let changed: string[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (typeof line !== "string" || (!isImageLine(line) && visibleWidth(line) > width)) {
      changed ??= [...lines];
      changed[i] = typeof line === "string" ? truncateToWidth(line, width, "") : "";
    }
  }
  return changed ?? lines;
}

/** Guards `component.render` in place; returns the component. */
export function guardComponent<T extends Component>(component: T, report: (error: unknown) => void): T {
  if (guarded.has(component)) return component;
  guarded.add(component);
  const render = component.render.bind(component);
  let reported = false;
  component.render = (width: number) => {
    try {
      const lines = render(width);
      return Array.isArray(lines) ? clampLines(lines, width) : [];
    } catch (error) {
      if (!reported) {
        reported = true;
        report(error);
      }
      const { truncateToWidth } = loadPiTui();
      return [truncateToWidth(helperTheme().fg("error", `✗ ${(error as Error)?.message ?? String(error)}`), width)];
    }
  };
  return component;
}

/** The last resort: the whole screen is cut to the terminal's width before pi-tui checks it. */
export function clampScreen(tui: TUI): void {
  const render = tui.render.bind(tui);
  tui.render = (width: number) => clampLines(render(width), width);
}
