/**
 * A theme's colours as concrete values (pi 1.x's `theme.colors`) and its light or
 * dark appearance. Apart from the terminal UI's theme.ts, and below the modes, so that
 * a mode without a terminal (RPC, print: extensions/ui-headless.ts) can report them for
 * the built-in theme without loading the renderer.
 */
import { BACKGROUND_TOKENS, type ResolvedColor, type ThemeAppearance, type ThemeDefinition, type ThemeToken } from "./theme-json.ts";
import { hexToRgb as parseHex, luminance, type Rgb } from "./theme-colors.ts";

/** What the terminal said about its colours; absent fields it did not say. */
export interface TerminalColors {
  foreground?: Rgb;
  background?: Rgb;
  /** ANSI colours 0–15, only when all 16 were reported. */
  palette?: Rgb[];
}

export type ConcreteColor = { readonly kind: "rgb"; readonly r: number; readonly g: number; readonly b: number } | { readonly kind: "indexed"; readonly index: number };

const CUBE_LEVELS = [0, 95, 135, 175, 215, 255];

/** What the terminal told of itself: its colours (when it answered) and whether it looks dark or light. */
export interface TerminalLook {
  colors?: TerminalColors;
  appearance: ThemeAppearance;
}

const BLACK: Rgb = { r: 0, g: 0, b: 0 };
const WHITE: Rgb = { r: 255, g: 255, b: 255 };

/** A theme's appearance: declared, else from its text or panel colour (light text: dark theme), else the terminal's. */
export function appearanceOf(definition: ThemeDefinition, terminal: TerminalLook): ThemeAppearance {
  if (definition.appearance) return definition.appearance;
  const { text, userMessageBg } = definition.colors;
  const concrete = (color: ResolvedColor): Rgb | undefined => (typeof color === "string" ? (color === "" ? undefined : parseHex(color)) : color >= 16 ? xtermRgb(color) : terminal.colors?.palette?.[color]);
  const textColor = concrete(text);
  if (textColor) return luminance(textColor) > 0.3 ? "dark" : "light";
  const panel = concrete(userMessageBg);
  if (panel) return luminance(panel) < 0.3 ? "dark" : "light";
  return terminal.appearance;
}

function xtermRgb(index: number): Rgb {
  const { r, g, b } = parseHex(`#${index >= 232 ? (8 + (index - 232) * 10).toString(16).padStart(2, "0").repeat(3) : cubeHex(index - 16)}`);
  return { r, g, b };
}

function cubeHex(cube: number): string {
  return [Math.floor(cube / 36), Math.floor(cube / 6) % 6, cube % 6].map((level) => CUBE_LEVELS[level]!.toString(16).padStart(2, "0")).join("");
}

const BACKGROUND_ROLES = new Set<string>([...BACKGROUND_TOKENS, "searchMatchBg"]);

/** Every role as a concrete colour; "" is the terminal's reported default colour, or black/white after the appearance. */
export function concreteColors(definition: ThemeDefinition, terminal: TerminalLook): Record<ThemeToken, ConcreteColor> {
  const appearance = appearanceOf(definition, terminal);
  const defaults = {
    foreground: terminal.colors?.foreground ?? (appearance === "dark" ? WHITE : BLACK),
    background: terminal.colors?.background ?? (appearance === "dark" ? BLACK : WHITE),
  };
  const result: Partial<Record<ThemeToken, ConcreteColor>> = {};
  for (const [token, color] of Object.entries(definition.colors) as [ThemeToken, ResolvedColor][]) {
    if (typeof color === "number") result[token] = { kind: "indexed", index: color };
    else {
      const rgb = color === "" ? (BACKGROUND_ROLES.has(token) ? defaults.background : defaults.foreground) : parseHex(color);
      result[token] = { kind: "rgb", r: rgb.r, g: rgb.g, b: rgb.b };
    }
  }
  return result as Record<ThemeToken, ConcreteColor>;
}
