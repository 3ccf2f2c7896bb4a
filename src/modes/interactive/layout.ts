/**
 * The screen's fixed places, top to bottom: header, conversation, pending
 * queue, working line, widgets above the editor, the editor, widgets below,
 * footer. Each place is a slot whose content can be swapped (an extension's
 * header, footer or editor) without the others moving. The working line is a
 * spinner whose message, frames and visibility extensions may set. In the
 * fullscreen UI the header and conversation scroll and the rest stays fixed at
 * the bottom (`mount`, fullscreen/screen.ts); inline, all of it is one column.
 */
import type { Component, Container, Loader, Text, TUI } from "@earendil-works/pi-tui";
import type { WidgetPlacement } from "../../extensions/ui-types.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import type { UiTheme } from "./theme.ts";

const DEFAULT_WORKING = "Working… (esc to abort)";

function slot(): Container {
  const { Container } = loadPiTui();
  return new Container();
}

function put(container: Container, component: Component | undefined): void {
  container.clear();
  if (component) container.addChild(component);
}

export class Layout {
  readonly header = slot();
  readonly editor = slot();
  readonly footer = slot();
  private readonly pending: Text;
  private readonly working = slot();
  private readonly widgetsAbove = slot();
  private readonly widgetsBelow = slot();
  private readonly widgets = new Map<string, { component: Component; placement: WidgetPlacement }>();
  private loader: Loader | undefined;
  private workingMessage: string | undefined;
  private workingVisible = true;
  private workingIndicator: { frames: string[]; intervalMs?: number } | undefined;
  /** Ticks the working line's message while it counts down (a retry's wait). */
  private countdown: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly tui: TUI,
    private readonly theme: () => UiTheme,
    conversation: Component,
    mount?: (transcript: Component[], fixed: Component[]) => void,
  ) {
    const { Text } = loadPiTui();
    this.pending = new Text("", 1, 0);
    const transcript = [this.header, conversation];
    const fixed = [this.pending, this.working, this.widgetsAbove, this.editor, this.widgetsBelow, this.footer];
    if (mount) mount(transcript, fixed);
    else for (const component of [...transcript, ...fixed]) tui.addChild(component);
  }

  /** Puts `component` in a slot (header, editor, footer), replacing what was there. */
  put(place: Container, component: Component | undefined): void {
    put(place, component);
    this.tui.requestRender();
  }

  showPending(steering: readonly string[], followUp: readonly string[]): void {
    const theme = this.theme();
    const lines = [
      ...steering.map((text) => theme.fg("warning", "⇢ steer: ") + theme.fg("muted", text.replace(/\s+/g, " "))),
      ...followUp.map((text) => theme.fg("accent", "⇢ follow-up: ") + theme.fg("muted", text.replace(/\s+/g, " "))),
    ];
    this.pending.setText(lines.length ? `\n${lines.join("\n")}` : "");
    this.tui.requestRender();
  }

  showWorking(on: boolean): void {
    const { Loader } = loadPiTui();
    this.stopCountdown();
    this.loader?.stop();
    this.loader = undefined;
    if (on) {
      this.loader = new Loader(
        this.tui,
        (text) => this.theme().fg("accent", text),
        (text) => this.theme().fg("muted", text),
        this.workingMessage ?? DEFAULT_WORKING,
        this.workingIndicator ? { frames: this.workingIndicator.frames, intervalMs: this.workingIndicator.intervalMs } : undefined,
      );
    }
    this.put(this.working, this.workingVisible ? this.loader : undefined);
  }

  /**
   * The working line through a wait between runs (a provider retry's backoff): the run has
   * ended, but something is still under way, so the spinner stays with `describe(msLeft)` as
   * its message, redrawn each second. The next showWorking (the attempt starting, or the
   * wait cancelled) ends it.
   */
  showCountdown(waitMs: number, describe: (msLeft: number) => string): void {
    this.showWorking(true);
    const until = Date.now() + waitMs;
    const tick = () => this.loader?.setMessage(describe(Math.max(0, until - Date.now())));
    tick();
    this.countdown = setInterval(tick, 1000);
  }

  private stopCountdown(): void {
    if (this.countdown !== undefined) clearInterval(this.countdown);
    this.countdown = undefined;
  }

  setWorkingMessage(message: string | undefined): void {
    this.workingMessage = message;
    this.loader?.setMessage(message ?? DEFAULT_WORKING);
  }

  /** A message for the current run only ("Aborting…", "Retrying…"); the next run shows the usual one again. */
  setRunMessage(message: string): void {
    this.loader?.setMessage(message);
  }

  setWorkingVisible(visible: boolean): void {
    this.workingVisible = visible;
    this.put(this.working, visible ? this.loader : undefined);
  }

  setWorkingIndicator(indicator: { frames: string[]; intervalMs?: number } | undefined): void {
    this.workingIndicator = indicator;
  }

  setWidget(key: string, component: Component | undefined, placement: WidgetPlacement): void {
    if (component) this.widgets.set(key, { component, placement });
    else this.widgets.delete(key);
    const { Container, Spacer } = loadPiTui();
    const above = new Container();
    const below = new Container();
    // A blank line keeps widgets apart from the answer above them.
    if ([...this.widgets.values()].some((widget) => widget.placement !== "belowEditor")) above.addChild(new Spacer(1));
    for (const widget of this.widgets.values()) (widget.placement === "belowEditor" ? below : above).addChild(widget.component);
    put(this.widgetsAbove, above);
    put(this.widgetsBelow, below);
    this.tui.requestRender();
  }

  /** What extensions set here goes: their widgets, the working line's message, visibility and indicator. */
  clearExtensionParts(): void {
    for (const key of [...this.widgets.keys()]) this.setWidget(key, undefined, "aboveEditor");
    this.workingIndicator = undefined;
    this.setWorkingMessage(undefined);
    this.setWorkingVisible(true);
  }

  stop(): void {
    this.stopCountdown();
    this.loader?.stop();
  }
}
