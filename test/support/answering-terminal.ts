/**
 * A terminal that answers: the built xcsh binary on a pseudo-terminal (Bun.spawn's
 * `terminal` option) whose other end is this module, standing in for a terminal
 * emulator. It records every byte xcsh writes and answers the queries a real terminal
 * answers — OSC 10/11 (default colours) and OSC 4 (the 16 ANSI colours) from the
 * palette it is given, OSC 7501 (program status) when it is said to support it, and
 * device attributes (DA1, the end-of-replies marker) always. tmux answers none of the
 * colour queries, which is why tests of what xcsh does with the answers live here.
 *
 * It keeps no screen: tests read what was drawn from the raw output (`output`, and
 * `text` with the escape sequences taken out).
 */
import { ensureBinary } from "./cli.ts";

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export interface TerminalPalette {
  foreground: Rgb;
  background: Rgb;
  /** ANSI colours 0–15. */
  ansi: Rgb[];
}

export interface AnsweringTerminalOptions {
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The colours to answer with; without one the colour queries go unanswered. */
  palette?: TerminalPalette;
  /** Answer the OSC 7501 program status query (as a terminal that supports it does). */
  programStatus?: boolean;
  cols?: number;
  rows?: number;
}

/** "#rrggbb" to Rgb. */
export function rgb(hex: string): Rgb {
  const value = Number.parseInt(hex.replace("#", ""), 16);
  return { r: (value >> 16) & 255, g: (value >> 8) & 255, b: value & 255 };
}

/** How xterm spells a colour in its answers: four hex digits a channel. */
const xtermColor = ({ r, g, b }: Rgb) => `rgb:${[r, g, b].map((channel) => channel.toString(16).padStart(2, "0").repeat(2)).join("/")}`;

/** Removes escape sequences (CSI, OSC, the two-byte ones) so text can be searched as drawn. */
export function stripEscapes(raw: string): string {
  return raw.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "").replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "").replace(/\x1b[()][0-9A-Za-z]|\x1b[=>78M]/g, "");
}

export class AnsweringTerminal {
  private raw = "";
  /** How far the raw output has been searched for queries. */
  private scanned = 0;
  private readonly process: ReturnType<typeof Bun.spawn>;

  constructor(private readonly options: AnsweringTerminalOptions) {
    const decoder = new TextDecoder();
    this.process = Bun.spawn([ensureBinary(), ...options.args], {
      cwd: options.cwd,
      env: { TERM: "xterm-256color", ...options.env },
      terminal: {
        cols: options.cols ?? 120,
        rows: options.rows ?? 40,
        data: (_terminal, data) => {
          this.raw += decoder.decode(data, { stream: true });
          this.answer();
        },
      },
    });
  }

  /** Everything xcsh wrote so far. */
  get output(): string {
    return this.raw;
  }

  /** What xcsh drew so far, without escape sequences. */
  get text(): string {
    return stripEscapes(this.raw);
  }

  /**
   * The person switches the terminal to another palette: later colour queries get its
   * colours, and the terminal reports the switch (mode 2031) when it is dark or light.
   */
  switchPalette(palette: TerminalPalette, scheme: "dark" | "light"): void {
    this.options.palette = palette;
    this.process.terminal!.write(`\x1b[?997;${scheme === "dark" ? 1 : 2}n`);
  }

  /** Types `data` as the person would. */
  write(data: string): void {
    this.process.terminal!.write(data);
  }

  /** Waits until the output passes `check` (polled), or fails saying what was drawn. */
  async waitFor(check: string | ((output: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const passes = typeof check === "string" ? () => this.text.includes(check) : () => check(this.raw);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (passes()) return this.raw;
      await Bun.sleep(25);
    }
    throw new Error(`timed out waiting for ${typeof check === "string" ? JSON.stringify(check) : "a condition"}; drawn:\n${this.text.slice(-2000)}`);
  }

  /** Ends xcsh (SIGTERM, then SIGKILL) and closes the terminal. */
  async close(): Promise<void> {
    this.process.kill("SIGTERM");
    const ended = await Promise.race([this.process.exited.then(() => true), Bun.sleep(3000).then(() => false)]);
    if (!ended) {
      this.process.kill("SIGKILL");
      await this.process.exited;
    }
    this.process.terminal?.close();
  }

  /** Answers every complete query written since the last look, in order. */
  private answer(): void {
    const QUERY = /\x1b\](10|11);\?(?:\x07|\x1b\\)|\x1b\]4;(\d+);\?(?:\x07|\x1b\\)|\x1b\]7501;\?(?:\x07|\x1b\\)|\x1b\[0?c/g;
    // Keep a short tail unsearched: a query may be split across two reads.
    const text = this.raw;
    QUERY.lastIndex = this.scanned;
    let match: RegExpExecArray | null;
    let replies = "";
    let end = this.scanned;
    while ((match = QUERY.exec(text))) {
      end = QUERY.lastIndex;
      const { palette, programStatus } = this.options;
      if (match[0].startsWith("\x1b[")) replies += "\x1b[?62;22c";
      else if (match[0].startsWith("\x1b]7501")) {
        if (programStatus) replies += "\x1b]7501;?\x1b\\";
      } else if (!palette) continue;
      else if (match[1] === "10") replies += `\x1b]10;${xtermColor(palette.foreground)}\x1b\\`;
      else if (match[1] === "11") replies += `\x1b]11;${xtermColor(palette.background)}\x1b\\`;
      else {
        const index = Number(match[2]);
        const color = palette.ansi[index];
        if (color) replies += `\x1b]4;${index};${xtermColor(color)}\x1b\\`;
      }
    }
    // Everything up to the last complete query is done; what follows may be a query's first half.
    this.scanned = Math.max(end, text.length - 16);
    if (replies) this.process.terminal!.write(replies);
  }
}
