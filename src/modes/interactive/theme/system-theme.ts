/**
 * The `system` theme: xcsh's colours made from the terminal's own, so that xcsh
 * looks like it belongs in whatever palette the person chose. Pure: the terminal's
 * answers (OSC 10/11 default colours, OSC 4 for the 16 ANSI colours) in, a theme
 * definition out; the interactive mode asks the terminal and calls this again when
 * the answers come or change.
 *
 * - Background and palette known: each role takes its hue from one ANSI colour
 *   (errors from red, links from blue, the accent from magenta…) and its lightness is
 *   raised or lowered, from a starting point, until it stands out from the background
 *   by the role's minimum WCAG contrast; body text keeps 4.5:1 on the background and
 *   on every panel. Panels are the background moved a little towards the middle.
 * - Background only: the same, with xcsh's own hues.
 * - Nothing known: ANSI indexes and the terminal's default colours, which the terminal
 *   draws in its own palette (but yellow: see YELLOW_ON_ANY); secondary text is faint
 *   and panels have no colour.
 */
import { contrast, okhslToRgb, rgbToHex, rgbToOklab, rgbToOklch, type Rgb } from "../../../resources/theme-colors.ts";
import type { ResolvedColor, ThemeAppearance, ThemeDefinition, ThemeToken } from "../../../resources/theme-json.ts";
import type { TerminalColors } from "../../../resources/theme-concrete-colors.ts";

export const SYSTEM_THEME_NAME = "system";

export type { TerminalColors };

type Hue = "red" | "green" | "yellow" | "blue" | "magenta" | "cyan";

/** Where each hue is in the ANSI palette, and xcsh's own hue (OKHSL degrees) for a terminal that reports none. */
const HUES: Record<Hue, { index: number; own: number }> = {
  red: { index: 1, own: 25 },
  green: { index: 2, own: 150 },
  yellow: { index: 3, own: 85 },
  blue: { index: 4, own: 255 },
  magenta: { index: 5, own: 310 },
  cyan: { index: 6, own: 200 },
};

/** A text role: a hue (or "neutral": the foreground's), its saturation, and the contrast it keeps on the background. */
interface TextRole {
  hue: Hue | "neutral";
  saturation: number;
  contrast: number;
  /** The ANSI (or 256-colour) index, or "" for the default colour, when nothing is known; `faint` draws it faint. */
  ansi: number | "";
  faint?: boolean;
}

/** A panel: a hue, its saturation, and how far its lightness moves from the background's. */
interface PanelRole {
  hue: Hue | "neutral";
  saturation: number;
  shift: number;
}

/**
 * Yellow roles when nothing is known: 256-colour 136 (#af8700), which terminals do not
 * restyle, instead of ANSI yellow (3). xterm draws 3 as #cdcd00 and many light palettes
 * keep it as pale (Tango's #c4a000): about 2:1 or less on white, where headings and
 * warnings could not be read. 136 stands 3.3:1 on white and 6:1 on black, so it reads
 * whichever background the terminal has — the no-answer theme cannot know which.
 */
const YELLOW_ON_ANY = 136;

const accent = (hue: Hue, ansi: number, contrastRatio = 3): TextRole => ({ hue, saturation: 0.6, contrast: contrastRatio, ansi });
const MUTED: TextRole = { hue: "neutral", saturation: 0.06, contrast: 3.5, ansi: "", faint: true };
const DIM: TextRole = { hue: "neutral", saturation: 0.06, contrast: 2.4, ansi: "", faint: true };
const TEXT: TextRole = { hue: "neutral", saturation: 0.04, contrast: 4.5, ansi: "" };

const TEXT_ROLES: Partial<Record<ThemeToken, TextRole>> = {
  accent: accent("magenta", 5),
  border: { hue: "blue", saturation: 0.45, contrast: 2, ansi: 4 },
  borderAccent: { hue: "magenta", saturation: 0.5, contrast: 2.5, ansi: 5 },
  borderMuted: { hue: "neutral", saturation: 0.06, contrast: 1.6, ansi: "", faint: true },
  success: accent("green", 2),
  error: { hue: "red", saturation: 0.7, contrast: 3, ansi: 1 },
  warning: { hue: "yellow", saturation: 0.75, contrast: 3, ansi: YELLOW_ON_ANY },
  muted: MUTED,
  dim: DIM,
  text: TEXT,
  thinkingText: MUTED,
  userMessageText: TEXT,
  customMessageText: TEXT,
  customMessageLabel: accent("magenta", 5),
  toolTitle: TEXT,
  toolOutput: MUTED,
  mdHeading: { hue: "yellow", saturation: 0.75, contrast: 3.5, ansi: YELLOW_ON_ANY },
  mdLink: accent("blue", 4, 3.5),
  mdLinkUrl: DIM,
  mdCode: accent("magenta", 5, 3.5),
  mdCodeBlock: { hue: "green", saturation: 0.45, contrast: 3.5, ansi: 2 },
  mdCodeBlockBorder: DIM,
  mdQuote: MUTED,
  mdQuoteBorder: DIM,
  mdHr: DIM,
  mdListBullet: accent("blue", 4),
  toolDiffAdded: accent("green", 2),
  toolDiffRemoved: { hue: "red", saturation: 0.7, contrast: 3, ansi: 1 },
  toolDiffContext: MUTED,
  syntaxComment: DIM,
  syntaxKeyword: accent("magenta", 5, 3.5),
  syntaxFunction: accent("blue", 4, 3.5),
  syntaxVariable: { hue: "cyan", saturation: 0.45, contrast: 3.5, ansi: 6 },
  syntaxString: accent("green", 2, 3.5),
  syntaxNumber: accent("yellow", YELLOW_ON_ANY, 3.5),
  syntaxType: accent("cyan", 6, 3.5),
  syntaxOperator: TEXT,
  syntaxPunctuation: MUTED,
  thinkingOff: DIM,
  thinkingMinimal: MUTED,
  thinkingLow: { hue: "blue", saturation: 0.35, contrast: 2.5, ansi: 4 },
  thinkingMedium: accent("blue", 4),
  thinkingHigh: accent("magenta", 5),
  thinkingXhigh: { hue: "red", saturation: 0.55, contrast: 3, ansi: 1 },
  thinkingMax: { hue: "red", saturation: 0.8, contrast: 3, ansi: 9 },
  bashMode: accent("green", 2),
  scrollbarTrack: DIM,
  scrollbarThumb: MUTED,
  searchMatchText: TEXT,
};

const PANEL_ROLES: Partial<Record<ThemeToken, PanelRole>> = {
  selectedBg: { hue: "blue", saturation: 0.35, shift: 0.12 },
  userMessageBg: { hue: "blue", saturation: 0.2, shift: 0.07 },
  customMessageBg: { hue: "magenta", saturation: 0.25, shift: 0.07 },
  toolPendingBg: { hue: "neutral", saturation: 0.05, shift: 0.06 },
  toolSuccessBg: { hue: "green", saturation: 0.3, shift: 0.07 },
  toolErrorBg: { hue: "red", saturation: 0.35, shift: 0.08 },
  searchMatchBg: { hue: "yellow", saturation: 0.4, shift: 0.14 },
};

/** Dark or light from a background colour: light when it is closer to white than to black. */
export function appearanceOfBackground(background: Rgb): ThemeAppearance {
  return rgbToOklab(background).L > 0.6 ? "light" : "dark";
}

/** OKLab L to OKHSL lightness (Ottosson's toe). */
function toe(L: number): number {
  const k1 = 0.206;
  const k2 = 0.03;
  const k3 = (1 + k1) / (1 + k2);
  return 0.5 * (k3 * L - k1 + Math.sqrt((k3 * L - k1) ** 2 + 4 * k2 * k3 * L));
}

/** The system theme for what the terminal said; `guess` is the appearance when it said nothing of its background. */
export function systemTheme(terminal: TerminalColors | undefined, guess: ThemeAppearance): ThemeDefinition {
  const background = terminal?.background;
  if (!background) return ansiTheme(guess);
  const appearance = appearanceOfBackground(background);
  const dark = appearance === "dark";
  const hueOf = (hue: Hue | "neutral"): number => {
    if (hue === "neutral") return terminal.foreground && rgbToOklch(terminal.foreground).c > 0.01 ? rgbToOklch(terminal.foreground).h : HUES.blue.own;
    const reported = terminal.palette?.[HUES[hue].index];
    // A grey palette entry has no hue to give: xcsh's own is used for it.
    return reported && rgbToOklch(reported).c > 0.03 ? rgbToOklch(reported).h : HUES[hue].own;
  };
  const backgroundLightness = toe(rgbToOklab(background).L);

  const colors: Partial<Record<ThemeToken, ResolvedColor>> = {};
  const panels: Rgb[] = [];
  for (const [token, role] of Object.entries(PANEL_ROLES) as [ThemeToken, PanelRole][]) {
    const lightness = Math.min(1, Math.max(0, dark ? backgroundLightness + role.shift : backgroundLightness - role.shift));
    const panel = okhslToRgb(hueOf(role.hue), role.saturation, lightness);
    panels.push(panel);
    colors[token] = rgbToHex(panel);
  }
  /** The first lightness, moving away from the background, at which `role` keeps its contrast on every surface. */
  const place = (role: TextRole, surfaces: Rgb[]): Rgb => {
    const hue = hueOf(role.hue);
    let lightness = dark ? 0.62 : 0.5;
    let color = okhslToRgb(hue, role.saturation, lightness);
    while (surfaces.some((surface) => contrast(color, surface) < role.contrast) && lightness > 0 && lightness < 1) {
      lightness = Math.min(1, Math.max(0, lightness + (dark ? 0.01 : -0.01)));
      color = okhslToRgb(hue, role.saturation, lightness);
    }
    return color;
  };
  const textSurfaces = [background, ...panels];
  const foreground = terminal.foreground;
  const text = foreground && textSurfaces.every((surface) => contrast(foreground, surface) >= TEXT.contrast) ? foreground : place(TEXT, textSurfaces);
  for (const [token, role] of Object.entries(TEXT_ROLES) as [ThemeToken, TextRole][]) {
    colors[token] = rgbToHex(role === TEXT ? text : place(role, role.contrast >= 3.5 ? textSurfaces : [background]));
  }
  return { name: SYSTEM_THEME_NAME, appearance, colors: colors as Record<ThemeToken, ResolvedColor>, exportColors: { pageBg: rgbToHex(background) } };
}

/** The theme for a terminal that told nothing: its own palette by index, secondary text faint, no panels. */
function ansiTheme(appearance: ThemeAppearance): ThemeDefinition {
  const colors: Partial<Record<ThemeToken, ResolvedColor>> = {};
  const faint = new Set<ThemeToken>();
  for (const [token, role] of Object.entries(TEXT_ROLES) as [ThemeToken, TextRole][]) {
    colors[token] = role.ansi;
    if (role.faint) faint.add(token);
  }
  for (const token of Object.keys(PANEL_ROLES) as ThemeToken[]) colors[token] = "";
  return { name: SYSTEM_THEME_NAME, appearance, colors: colors as Record<ThemeToken, ResolvedColor>, exportColors: {}, faint };
}
