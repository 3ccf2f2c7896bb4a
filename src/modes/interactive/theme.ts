/**
 * Colours of the terminal UI. Two palettes are built in, dark and light; the
 * one in use follows the terminal's background (COLORFGBG at start, the
 * terminal's own answer to an OSC 11 query once it arrives). With NO_COLOR set
 * every colour is dropped and only bold/italic/inverse remain, so the screen
 * reads as plain text. Extensions see the theme as `ctx.ui.theme`
 * (`fg(name, text)`, `bg(name, text)`, …) with pi's colour names.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@earendil-works/pi-tui";
import type { ExtensionTheme } from "../../extensions/ui-types.ts";
import { highlightCode } from "./highlight.ts";

export type ThemeName = "dark" | "light";

/** 256-colour indexes: they survive tmux and SSH where truecolor may not. */
type Palette = Record<string, number>;

const DARK: Palette = {
  text: 252,
  accent: 75,
  border: 240,
  borderAccent: 75,
  borderMuted: 238,
  success: 114,
  error: 203,
  warning: 221,
  muted: 245,
  dim: 242,
  thinkingText: 244,
  userMessageText: 255,
  toolTitle: 180,
  toolOutput: 248,
  toolDiffAdded: 114,
  toolDiffRemoved: 203,
  toolDiffContext: 244,
  mdHeading: 215,
  mdLink: 75,
  mdLinkUrl: 242,
  mdCode: 180,
  mdCodeBlock: 250,
  mdCodeBlockBorder: 240,
  mdQuote: 246,
  mdQuoteBorder: 240,
  mdHr: 240,
  mdListBullet: 75,
  syntaxKeyword: 176,
  syntaxString: 114,
  syntaxNumber: 215,
  syntaxComment: 243,
  syntaxType: 80,
  customMessageLabel: 141,
  // backgrounds
  userMessageBg: 236,
  toolPendingBg: 235,
  toolSuccessBg: 235,
  toolErrorBg: 52,
  selectedBg: 237,
  customMessageBg: 235,
};

const LIGHT: Palette = {
  text: 235,
  accent: 25,
  border: 248,
  borderAccent: 25,
  borderMuted: 252,
  success: 28,
  error: 160,
  warning: 130,
  muted: 242,
  dim: 246,
  thinkingText: 243,
  userMessageText: 232,
  toolTitle: 94,
  toolOutput: 239,
  toolDiffAdded: 28,
  toolDiffRemoved: 160,
  toolDiffContext: 243,
  mdHeading: 130,
  mdLink: 25,
  mdLinkUrl: 245,
  mdCode: 94,
  mdCodeBlock: 236,
  mdCodeBlockBorder: 248,
  mdQuote: 241,
  mdQuoteBorder: 248,
  mdHr: 248,
  mdListBullet: 25,
  syntaxKeyword: 90,
  syntaxString: 28,
  syntaxNumber: 130,
  syntaxComment: 245,
  syntaxType: 30,
  customMessageLabel: 91,
  userMessageBg: 254,
  toolPendingBg: 255,
  toolSuccessBg: 255,
  toolErrorBg: 224,
  selectedBg: 253,
  customMessageBg: 255,
};

const PALETTES: Record<ThemeName, Palette> = { dark: DARK, light: LIGHT };

export interface UiTheme extends ExtensionTheme {
  readonly name: ThemeName;
  /** False under NO_COLOR: callers may then pick plainer shapes (no backgrounds). */
  readonly colored: boolean;
  markdown(): MarkdownTheme;
  selectList(): SelectListTheme;
  editor(): EditorTheme;
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
export function guessThemeFromEnv(env: NodeJS.ProcessEnv = process.env): ThemeName {
  const parts = env.COLORFGBG?.split(";");
  const background = parts ? Number(parts[parts.length - 1]) : NaN;
  if (Number.isInteger(background)) return background === 7 || background >= 9 ? "light" : "dark";
  return "dark";
}

/** Light when the background colour is bright (relative luminance above one half). */
export function themeForBackground(rgb: { r: number; g: number; b: number }): ThemeName {
  const luminance = (0.2126 * rgb.r + 0.7152 * rgb.g + 0.0722 * rgb.b) / 255;
  return luminance > 0.5 ? "light" : "dark";
}

export function createTheme(name: ThemeName, colored = !noColorRequested()): UiTheme {
  const palette = PALETTES[name];
  const fg = (color: string, text: string): string => {
    if (!colored) return text;
    const code = palette[color] ?? palette.text;
    return `\x1b[38;5;${code}m${text}\x1b[39m`;
  };
  const bg = (color: string, text: string): string => {
    if (!colored) return text;
    const code = palette[color];
    return code === undefined ? text : `\x1b[48;5;${code}m${text}\x1b[49m`;
  };
  const color = (name: string) => (text: string) => fg(name, text);
  const theme: UiTheme = {
    name,
    colored,
    fg,
    bg,
    bold,
    italic,
    underline,
    strikethrough,
    inverse,
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
