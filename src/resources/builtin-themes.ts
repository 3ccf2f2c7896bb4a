/**
 * xcsh's two fixed built-in themes, "dark" and "light" (the third, "system", is made
 * from the terminal's colours: modes/interactive/theme/system-theme.ts), written in pi's
 * theme format (theme-json.ts) so that they are themes like any file a person
 * writes: the same roles, resolved the same way. Data beside the theme files' loader,
 * below the modes: the terminal UI draws with them, and so does the theme extensions
 * get where there is no terminal UI (extensions/ui-headless.ts). Colours are 256-colour indexes:
 * they survive tmux and SSH where truecolor may not, and they look the same in
 * every terminal that follows the xterm palette. docs/themes.md shows how to
 * start a theme of one's own from them.
 */
import { resolveTheme, type ThemeDefinition, type ThemeDocument } from "./theme-json.ts";

export type BuiltinThemeName = "dark" | "light";
export const BUILTIN_THEME_NAMES: readonly BuiltinThemeName[] = ["dark", "light"];

const DARK: ThemeDocument = {
  name: "dark",
  appearance: "dark",
  vars: {
    text: 252,
    blue: 75,
    green: 114,
    red: 203,
    yellow: 221,
    orange: 215,
    tan: 180,
    violet: 141,
    gray: 245,
    dimGray: 242,
    border: 240,
    faintBorder: 238,
    panel: 235,
  },
  colors: {
    accent: "blue",
    border: "border",
    borderAccent: "blue",
    borderMuted: "faintBorder",
    success: "green",
    error: "red",
    warning: "yellow",
    muted: "gray",
    dim: "dimGray",
    text: "text",
    thinkingText: 244,
    selectedBg: 237,
    userMessageBg: 236,
    userMessageText: 255,
    customMessageBg: "panel",
    customMessageText: "text",
    customMessageLabel: "violet",
    toolPendingBg: "panel",
    toolSuccessBg: "panel",
    toolErrorBg: 52,
    toolTitle: "tan",
    toolOutput: 248,
    mdHeading: "orange",
    mdLink: "blue",
    mdLinkUrl: "dimGray",
    mdCode: "tan",
    mdCodeBlock: 250,
    mdCodeBlockBorder: "border",
    mdQuote: 246,
    mdQuoteBorder: "border",
    mdHr: "border",
    mdListBullet: "blue",
    toolDiffAdded: "green",
    toolDiffRemoved: "red",
    toolDiffContext: 244,
    syntaxComment: 243,
    syntaxKeyword: 176,
    syntaxFunction: 222,
    syntaxVariable: 153,
    syntaxString: "green",
    syntaxNumber: "orange",
    syntaxType: 80,
    syntaxOperator: 250,
    syntaxPunctuation: 246,
    thinkingOff: "faintBorder",
    thinkingMinimal: 244,
    thinkingLow: 67,
    thinkingMedium: "blue",
    thinkingHigh: "violet",
    thinkingXhigh: 177,
    thinkingMax: 207,
    bashMode: "green",
  },
  export: { pageBg: 234, cardBg: 235, infoBg: 58 },
};

const LIGHT: ThemeDocument = {
  name: "light",
  appearance: "light",
  vars: {
    text: 235,
    blue: 25,
    green: 28,
    red: 160,
    brown: 130,
    umber: 94,
    purple: 91,
    gray: 242,
    lightGray: 246,
    border: 248,
    faintBorder: 252,
    panel: 255,
  },
  colors: {
    accent: "blue",
    border: "border",
    borderAccent: "blue",
    borderMuted: "faintBorder",
    success: "green",
    error: "red",
    warning: "brown",
    muted: "gray",
    dim: "lightGray",
    text: "text",
    thinkingText: 243,
    selectedBg: 253,
    userMessageBg: 254,
    userMessageText: 232,
    customMessageBg: "panel",
    customMessageText: "text",
    customMessageLabel: "purple",
    toolPendingBg: "panel",
    toolSuccessBg: "panel",
    toolErrorBg: 224,
    toolTitle: "umber",
    toolOutput: 239,
    mdHeading: "brown",
    mdLink: "blue",
    mdLinkUrl: 245,
    mdCode: "umber",
    mdCodeBlock: 236,
    mdCodeBlockBorder: "border",
    mdQuote: 241,
    mdQuoteBorder: "border",
    mdHr: "border",
    mdListBullet: "blue",
    toolDiffAdded: "green",
    toolDiffRemoved: "red",
    toolDiffContext: 243,
    syntaxComment: 245,
    syntaxKeyword: 90,
    syntaxFunction: 94,
    syntaxVariable: 24,
    syntaxString: "green",
    syntaxNumber: "brown",
    syntaxType: 30,
    syntaxOperator: 238,
    syntaxPunctuation: 242,
    thinkingOff: "border",
    thinkingMinimal: "lightGray",
    thinkingLow: 67,
    thinkingMedium: "blue",
    thinkingHigh: "purple",
    thinkingXhigh: 127,
    thinkingMax: 163,
    bashMode: "green",
  },
  export: { pageBg: 231, cardBg: 255, infoBg: 230 },
};

export const BUILTIN_THEME_DOCUMENTS: Readonly<Record<BuiltinThemeName, ThemeDocument>> = { dark: DARK, light: LIGHT };

const resolved = new Map<BuiltinThemeName, ThemeDefinition>();

/** A built-in theme, resolved on first use. */
export function builtinTheme(name: BuiltinThemeName): ThemeDefinition {
  let theme = resolved.get(name);
  if (!theme) resolved.set(name, (theme = resolveTheme(BUILTIN_THEME_DOCUMENTS[name])));
  return theme;
}

export function isBuiltinThemeName(name: string): name is BuiltinThemeName {
  return (BUILTIN_THEME_NAMES as readonly string[]).includes(name);
}
