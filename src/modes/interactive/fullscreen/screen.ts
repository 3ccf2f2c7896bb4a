/**
 * The fullscreen terminal UI: pi-tui's alternate-screen renderer with the
 * transcript (header and conversation) in a scroll view that fills the screen
 * and follows new output, and the rest (queue, working line, widgets, editor,
 * footer) fixed below it. PageUp/PageDown, Ctrl+Home/End and the mouse wheel
 * move the view (pi-tui's `tui.altScreen.*` keys); scrolling up stops the
 * following, reaching the end again resumes it; a label in place of the last
 * row says there is more below while there is. Dragging the mouse selects
 * transcript text, copied on release without the transcript's margin
 * (copy-text.ts); a click on a link opens
 * it (open-link.ts). The renderer leaves the
 * alternate screen, mouse reporting and the hidden cursor on every stop.
 */
import type { Component, TUI, Terminal } from "@earendil-works/pi-tui";
import { loadPiTui } from "../../../extensions/tui-helpers.ts";
import { copyText } from "../copy-text.ts";
import type { UiTheme } from "../theme.ts";
import type { FullscreenOptions } from "./tui-mode.ts";

/** Mouse reporting off, autowrap on, the main screen back: for a stop that failed part way. */
export const LEAVE_FULLSCREEN = "\x1b[?1006l\x1b[?1004l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?7h\x1b[?1049l";

/**
 * A selection as text to paste: without the columns the transcript indents everything
 * by (the margin, a code block's or tool output's indent), which pi-tui copies as it
 * copies the screen. The lines keep their indents relative to each other; the first
 * line, often begun mid-line, loses at most what the others lose.
 */
function withoutMargin(text: string): string {
  const lines = text.split("\n");
  const leading = (line: string) => line.length - line.replace(/^ +/, "").length;
  const rest = lines.slice(1).filter((line) => line.trim() !== "");
  const margin = rest.length > 0 ? Math.min(...rest.map(leading)) : leading(lines[0]!);
  return margin === 0 ? text : lines.map((line) => line.slice(Math.min(margin, leading(line)))).join("\n");
}

const MORE_BELOW = " ↓ more below (Ctrl+End) ";

/** `text` (`length` columns wide) centred on a row of `width` blank columns. */
function fullRow(text: string, length: number, width: number): string {
  const spare = Math.max(0, width - length);
  return " ".repeat(Math.floor(spare / 2)) + text + " ".repeat(Math.ceil(spare / 2));
}

/** Whether a fullscreen TUI's transcript shows its last line (set once it is mounted). */
const transcriptAtEnd = new WeakMap<TUI, () => boolean>();

export function createFullscreenTui(terminal: Terminal, options: FullscreenOptions, theme: () => UiTheme): TUI {
  const { TuiAltScreen } = loadPiTui();
  const tui = new TuiAltScreen(terminal, false, undefined, {
    mouse: true,
    wheelScrollLines: options.wheelScrollLines,
    copyOnSelect: options.copyOnSelect,
    // The desktop's clipboard program and/or OSC 52 (copy-text.ts); pi-tui flashes "Copied!" or the reason.
    copySelection: async (text) => {
      const outcome = await copyText(withoutMargin(text), { writeTerminal: (sequence) => terminal.write(sequence) });
      return outcome.ok ? true : outcome.reason;
    },
    // Only when something is below: a search that finds a match near the end stops the
    // following with the view already at the end, and pi-tui labels any view not following.
    // The label takes the whole row (pi-tui centres it over the last one): drawn over the
    // middle of a line of text, it read as part of that line.
    scrollToEndIndicator: () => (transcriptAtEnd.get(tui)?.() ? "" : fullRow(theme().fg("accent", MORE_BELOW), MORE_BELOW.length, terminal.columns)),
    // A click on a link (the terminal cannot: the mouse is ours); loaded on the first click.
    openUrl: (url) =>
      void import("./open-link.ts")
        .then(({ openLink }) => openLink(url))
        .then((outcome) => {
          if (!outcome.ok) tui.flash(outcome.reason);
        }),
  });
  return tui;
}

/** Puts the transcript parts in the scrolled area and the fixed parts under it. */
export function mountFullscreen(tui: TUI, transcript: readonly Component[], fixed: readonly Component[], options: FullscreenOptions, theme: () => UiTheme): void {
  const { Container, ScrollView, VStack } = loadPiTui();
  const document = new Container();
  for (const component of transcript) document.addChild(component);
  const bottom = new Container();
  for (const component of fixed) bottom.addChild(component);
  /** The transcript's scroll view, which remembers how tall its content is (pi-tui keeps that private). */
  class TranscriptView extends ScrollView {
    contentLines = 0;
    override updateLayout(contentHeight: number, viewportHeight: number, requestRender: () => void): void {
      this.contentLines = contentHeight;
      super.updateLayout(contentHeight, viewportHeight, requestRender);
    }
  }
  const view = new TranscriptView(document, {
    follow: "end",
    primary: true,
    scrollbar: options.scrollbar,
    scrollbarTrackStyle: (text) => theme().fg("scrollbarTrack", text),
    scrollbarThumbStyle: (text) => theme().fg("scrollbarThumb", text),
  });
  transcriptAtEnd.set(tui, () => view.scrollTop + view.viewportHeight >= view.contentLines);
  const root = new VStack([
    { component: view, grow: 1, shrink: 1 },
    { component: bottom, shrink: 0 },
  ]);
  (tui as TUI & { setLayoutRoot(component: Component): void }).setLayoutRoot(root);
}

/** A prompt sent brings the view back to the end, where its answer will appear (no-op inline). */
export function showLatest(tui: TUI): void {
  (tui as TUI & { scrollToBottom?: () => void }).scrollToBottom?.();
}
