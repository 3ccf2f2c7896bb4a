/**
 * Drawing with a theme: a theme definition (pi's roles, each resolved to a colour;
 * src/resources/theme-json.ts) becomes the `fg`/`bg`/`bold`… helpers every view and
 * extension draws with. Hex colours go out as 24-bit sequences where the terminal
 * takes them and as the nearest of the 256 xterm colours where it does not; an index
 * goes out as itself; "" leaves the terminal's own colour. With NO_COLOR set every
 * colour is dropped and only bold/italic/inverse remain, so the screen reads as
 * plain text. Extensions see the theme as `ctx.ui.theme` with pi's role names, and, as
 * in pi 1.x, its `appearance` and its concrete `colors` (pi-tui Color values: a "" role
 * reports the colour the terminal announced for it, or a black or white guess).
 *
 * A theme reads its definition at every call, from the function it was made with:
 * the interactive mode hands out one theme for the whole session and changes what
 * it draws with underneath (theme-controller.ts), so a theme an extension kept, or
 * a markdown theme a component was built with, follows every change.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@earendil-works/pi-tui";
import type { ExtensionTheme } from "../../extensions/ui-types.ts";
import type { ResolvedColor, ThemeAppearance, ThemeDefinition, ThemeToken } from "../../resources/theme-json.ts";
import { hexToRgb as parseHex } from "../../resources/theme-colors.ts";
import type { TerminalColors } from "./theme/system-theme.ts";
import { appearanceOf, concreteColors, type ConcreteColor, type TerminalLook } from "../../resources/theme-concrete-colors.ts";

export { appearanceOf, type ConcreteColor, type TerminalLook };
import { highlightCode } from "./highlight.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";

export type ColorMode = "truecolor" | "256color";

/** What theme.style() takes: a theme token or a pi-tui Color for each colour, and attributes. */
export interface TextStyleOptions {
  fg?: string | object;
  bg?: string | object;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  inverse?: boolean;
}

/** A concrete colour as pi-tui's `Color` has it (plain data: pi-tui itself need not load). */

export interface UiTheme extends ExtensionTheme {
  /** The theme's name ("system", "dark", "light", or a theme file's `name`). */
  readonly name: string;
  /** The file it came from; undefined for a built-in theme. */
  readonly path: string | undefined;
  /** pi's name for `path`. */
  readonly sourcePath: string | undefined;
  /** Where a theme file was found, in pi's SourceInfo shape; undefined for a built-in theme. */
  readonly sourceInfo: { path: string; source: string; scope: string; origin: "top-level" } | undefined;
  /** The background the theme is made for: declared by its file, else read from its colours, else the terminal's. */
  readonly appearance: ThemeAppearance;
  /** Every role's colour as a concrete colour, for extensions that do colour maths. */
  readonly colors: Readonly<Record<ThemeToken, ConcreteColor>>;
  /** False under NO_COLOR: callers may then pick plainer shapes (no backgrounds). */
  readonly colored: boolean;
  /** What it draws with now. */
  readonly definition: ThemeDefinition;
  markdown(): MarkdownTheme;
  selectList(): SelectListTheme;
  editor(): EditorTheme;
  /** pi's Theme API, for extensions that build their own sequences. */
  getFgAnsi(color: string): string;
  getBgAnsi(color: string): string;
  getColorMode(): ColorMode;
  getThinkingBorderColor(level: string): (text: string) => string;
  getBashModeBorderColor(): (text: string) => string;
}

const wrap = (open: string, close: string) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const bold = wrap("1", "22");
const italic = wrap("3", "23");
const underline = wrap("4", "24");
const strikethrough = wrap("9", "29");
const inverse = wrap("7", "27");

export function noColorRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== "";
}

/** A dark or light guess from COLORFGBG ("15;0": light text on a dark background). */
export function guessThemeFromEnv(env: NodeJS.ProcessEnv = process.env): "dark" | "light" {
  const parts = env.COLORFGBG?.split(";");
  const background = parts ? Number(parts[parts.length - 1]) : NaN;
  if (Number.isInteger(background)) return background === 7 || background >= 9 ? "light" : "dark";
  return "dark";
}

// --- colours as escape sequences ----------------------------------------------------

const CUBE_LEVELS = [0, 95, 135, 175, 215, 255];

function hexToRgb(hex: string): [number, number, number] {
  const { r, g, b } = parseHex(hex);
  return [r, g, b];
}

/** The xterm colour (16–255) nearest to an RGB colour: the 6×6×6 cube or the grey ramp, whichever is closer. */
export function nearestXtermColor(hex: string): number {
  const [r, g, b] = hexToRgb(hex);
  const nearestLevel = (channel: number) => CUBE_LEVELS.reduce((best, level, index) => (Math.abs(level - channel) < Math.abs(CUBE_LEVELS[best]! - channel) ? index : best), 0);
  const [ri, gi, bi] = [nearestLevel(r), nearestLevel(g), nearestLevel(b)];
  const cube = [CUBE_LEVELS[ri]!, CUBE_LEVELS[gi]!, CUBE_LEVELS[bi]!];
  const greyIndex = Math.max(0, Math.min(23, Math.round(((r + g + b) / 3 - 8) / 10)));
  const grey = 8 + greyIndex * 10;
  const distance = (to: number[]) => (r - to[0]!) ** 2 + (g - to[1]!) ** 2 + (b - to[2]!) ** 2;
  return distance([grey, grey, grey]) < distance(cube) ? 232 + greyIndex : 16 + 36 * ri + 6 * gi + bi;
}

/** The SGR parameters that set `color` as text (38) or background (48) colour; "" for the terminal's own. */
function sgrFor(color: ResolvedColor, layer: 38 | 48, mode: ColorMode): string {
  if (typeof color === "number") return `${layer};5;${color}`;
  if (color === "") return "";
  if (mode === "truecolor") return `${layer};2;${hexToRgb(color).join(";")}`;
  return `${layer};5;${nearestXtermColor(color)}`;
}

interface Compiled {
  fg: Record<string, string>;
  bg: Record<string, string>;
  /** What ends a role's text colour: faint roles end their faintness too. */
  fgClose: Record<string, string>;
}

function compile(definition: ThemeDefinition, mode: ColorMode): Compiled {
  const fg: Record<string, string> = {};
  const bg: Record<string, string> = {};
  const fgClose: Record<string, string> = {};
  for (const [token, color] of Object.entries(definition.colors)) {
    const faint = definition.faint?.has(token as ThemeToken) === true;
    const text = [faint ? "2" : "", sgrFor(color, 38, mode)].filter(Boolean).join(";");
    const back = sgrFor(color, 48, mode);
    fg[token] = text && `\x1b[${text}m`;
    fgClose[token] = faint ? "\x1b[22;39m" : "\x1b[39m";
    bg[token] = back && `\x1b[${back}m`;
  }
  return { fg, bg, fgClose };
}

// --- the theme ------------------------------------------------------------------------

export interface ThemeOptions {
  /** False under NO_COLOR. */
  colored: boolean;
  /** 24-bit colour for hex values; otherwise the nearest 256-colour index. */
  mode: ColorMode;
  /** What the terminal told of itself now (default: nothing, dark). */
  terminal?: () => TerminalLook;
  /** pi's `markdown.codeBlockIndent`: what each line of a code block starts with (pi-tui's default: two spaces). */
  codeBlockIndent?: string;
}

/** `thinkingOff` … `thinkingMax` for a thinking level. */
function thinkingToken(level: string): string {
  return `thinking${level.charAt(0).toUpperCase()}${level.slice(1)}`;
}

/** A theme drawing with `source()` — a fixed definition, or whatever the caller holds now. */
export function createTheme(source: ThemeDefinition | (() => ThemeDefinition), options: ThemeOptions): UiTheme {
  const current = typeof source === "function" ? source : () => source;
  const { colored, mode } = options;
  const terminal = options.terminal ?? ((): TerminalLook => ({ appearance: "dark" }));
  let memo: { definition: ThemeDefinition; colors: TerminalColors | undefined; appearance: ThemeAppearance; result: Readonly<Record<ThemeToken, ConcreteColor>> } | undefined;
  const compiled = new WeakMap<ThemeDefinition, Compiled>();
  const codes = (): Compiled => {
    const definition = current();
    let table = compiled.get(definition);
    if (!table) compiled.set(definition, (table = compile(definition, mode)));
    return table;
  };
  const fgAnsi = (color: string): string => {
    const table = codes().fg;
    return Object.hasOwn(table, color) ? table[color]! : (table.text ?? "");
  };
  const bgAnsi = (color: string): string => {
    const table = codes().bg;
    return Object.hasOwn(table, color) ? table[color]! : "";
  };
  const fg = (color: string, text: string): string => {
    if (!colored) return text;
    const open = fgAnsi(color);
    const close = codes().fgClose;
    return open ? `${open}${text}${Object.hasOwn(close, color) ? close[color] : (close.text ?? "\x1b[39m")}` : text;
  };
  const bg = (color: string, text: string): string => {
    if (!colored) return text;
    const open = bgAnsi(color);
    return open ? `${open}${text}\x1b[49m` : text;
  };
  const color = (name: string) => (text: string) => fg(name, text);
  /** pi 1.x's theme.style(): colours (theme tokens, or pi-tui Color values) and attributes at once. */
  const style = (text: string, options: TextStyleOptions = {}): string => {
    let out = String(text);
    if (options.inverse) out = inverse(out);
    if (options.strikethrough) out = strikethrough(out);
    if (options.underline) out = underline(out);
    if (options.italic) out = italic(out);
    if (options.bold) out = bold(out);
    if (!colored) return out;
    if (options.bg !== undefined) out = typeof options.bg === "string" ? bg(options.bg, out) : `${loadPiTui().backgroundAnsi(options.bg as never, mode)}${out}\x1b[49m`;
    if (options.fg !== undefined) out = typeof options.fg === "string" ? fg(options.fg, out) : `${loadPiTui().foregroundAnsi(options.fg as never, mode)}${out}\x1b[39m`;
    return out;
  };
  const theme: UiTheme = {
    get name() {
      return current().name;
    },
    get path() {
      return current().path;
    },
    get definition() {
      return current();
    },
    get sourcePath() {
      return current().path;
    },
    get sourceInfo() {
      const { path, place } = current() as ThemeDefinition & { place?: { source: string; scope: string } };
      return path ? { path, source: place?.source ?? "local", scope: place?.scope ?? "user", origin: "top-level" as const } : undefined;
    },
    get appearance() {
      return appearanceOf(current(), terminal());
    },
    get colors() {
      const definition = current();
      const look = terminal();
      // Extensions may read this while drawing: made again only when the theme or the terminal's answers change.
      if (!memo || memo.definition !== definition || memo.colors !== look.colors || memo.appearance !== look.appearance) {
        memo = { definition, colors: look.colors, appearance: look.appearance, result: Object.freeze(concreteColors(definition, look)) };
      }
      return memo.result;
    },
    colored,
    fg,
    bg,
    style,
    bold,
    italic,
    underline,
    strikethrough,
    inverse,
    getFgAnsi: (name) => (colored ? fgAnsi(String(name)) : ""),
    getBgAnsi: (name) => (colored ? bgAnsi(String(name)) : ""),
    getColorMode: () => mode,
    getThinkingBorderColor: (level) => color(thinkingToken(String(level))),
    getBashModeBorderColor: () => color("bashMode"),
    markdown: () => ({
      heading: (text) => bold(fg("mdHeading", text)),
      link: (text) => underline(fg("mdLink", text)),
      linkUrl: color("mdLinkUrl"),
      code: color("mdCode"),
      codeBlock: color("mdCodeBlock"),
      codeBlockBorder: color("mdCodeBlockBorder"),
      quote: (text) => italic(fg("mdQuote", text)),
      quoteBorder: color("mdQuoteBorder"),
      hr: color("mdHr"),
      listBullet: color("mdListBullet"),
      bold,
      italic,
      strikethrough,
      underline,
      highlightCode: (code, lang) => highlightCode(code, lang, colored ? fg : undefined),
      ...(options.codeBlockIndent !== undefined ? { codeBlockIndent: options.codeBlockIndent } : {}),
    }),
    selectList: () => ({
      selectedPrefix: color("accent"),
      selectedText: (text) => bold(fg("accent", text)),
      description: color("muted"),
      scrollInfo: color("dim"),
      noMatch: color("muted"),
    }),
    editor: () => ({ borderColor: color("border"), selectList: theme.selectList() }),
  };
  return theme;
}
