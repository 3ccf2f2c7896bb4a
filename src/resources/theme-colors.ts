/**
 * Colour maths for themes: the colour forms pi 1.x theme files use ("#rgb",
 * "#rrggbb", "oklch(L C H)", "okhsl(H S L)") parsed into sRGB, and the few
 * measures the `system` theme needs (OKLab hue, WCAG contrast).
 *
 * OKLab/OKLCH and OKHSL follow Björn Ottosson's published definitions (OKHSL:
 * "Two new color spaces for color picking", 2021). OKLCH outside sRGB is brought
 * in by lowering chroma at the same lightness and hue (a bisection), which keeps
 * what the author meant better than clipping each channel. Written here, not
 * taken from pi-tui, so that reading a theme file never loads the terminal
 * library (print and RPC modes read settings without it).
 */

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

interface Lab {
  L: number;
  a: number;
  b: number;
}

// --- sRGB <-> OKLab ----------------------------------------------------------------

const toLinear = (channel: number): number => {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

const fromLinear = (value: number): number => (value <= 0.0031308 ? 12.92 * value : 1.055 * value ** (1 / 2.4) - 0.055);

export function rgbToOklab({ r, g, b }: Rgb): Lab {
  const [lr, lg, lb] = [toLinear(r), toLinear(g), toLinear(b)];
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  return {
    L: 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    a: 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    b: 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  };
}

/** Linear sRGB (may fall outside 0..1 for colours outside the gamut). */
function oklabToLinear({ L, a, b }: Lab): [number, number, number] {
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  return [4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s, -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s, -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s];
}

function linearToRgb(linear: [number, number, number]): Rgb {
  const [r, g, b] = linear.map((value) => Math.round(Math.min(1, Math.max(0, fromLinear(Math.min(1, Math.max(0, value))))) * 255));
  return { r: r!, g: g!, b: b! };
}

const inGamut = (linear: number[]): boolean => linear.every((value) => value >= -1e-4 && value <= 1 + 1e-4);

/** OKLCH (lightness 0..1, chroma, hue in degrees) to sRGB, chroma lowered until the colour fits. */
export function oklchToRgb(lightness: number, chroma: number, hue: number): Rgb {
  const L = Math.min(1, Math.max(0, lightness));
  const angle = (hue * Math.PI) / 180;
  const at = (c: number) => oklabToLinear({ L, a: c * Math.cos(angle), b: c * Math.sin(angle) });
  let linear = at(chroma);
  if (!inGamut(linear)) {
    let low = 0;
    let high = chroma;
    for (let step = 0; step < 24; step++) {
      const mid = (low + high) / 2;
      if (inGamut(at(mid))) low = mid;
      else high = mid;
    }
    linear = at(low);
  }
  return linearToRgb(linear);
}

/** OKLab hue of a colour in degrees (0..360), and its chroma. */
export function rgbToOklch(rgb: Rgb): { l: number; c: number; h: number } {
  const { L, a, b } = rgbToOklab(rgb);
  const h = (Math.atan2(b, a) * 180) / Math.PI;
  return { l: L, c: Math.hypot(a, b), h: h < 0 ? h + 360 : h };
}

// --- OKHSL --------------------------------------------------------------------------

/** The most saturated colour of a hue (a, b unit vector): its S = C/L, by a polynomial fit plus one Halley step. */
function maxSaturation(a: number, b: number): number {
  let k: number[];
  let w: number[];
  if (-1.88170328 * a - 0.80936493 * b > 1) {
    k = [1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245];
    w = [4.0767416621, -3.3077115913, 0.2309699292];
  } else if (1.81444104 * a - 1.19445276 * b > 1) {
    k = [0.73956515, -0.45954404, 0.08285427, 0.1254107, 0.14503204];
    w = [-1.2684380046, 2.6097574011, -0.3413193965];
  } else {
    k = [1.35733652, -0.00915799, -1.1513021, -0.50559606, 0.00692167];
    w = [-0.0041960863, -0.7034186147, 1.707614701];
  }
  let S = k[0]! + k[1]! * a + k[2]! * b + k[3]! * a * a + k[4]! * a * b;
  const kl = 0.3963377774 * a + 0.2158037573 * b;
  const km = -0.1055613458 * a - 0.0638541728 * b;
  const ks = -0.0894841775 * a - 1.291485548 * b;
  const l_ = 1 + S * kl;
  const m_ = 1 + S * km;
  const s_ = 1 + S * ks;
  const f = w[0]! * l_ ** 3 + w[1]! * m_ ** 3 + w[2]! * s_ ** 3;
  const f1 = w[0]! * 3 * kl * l_ ** 2 + w[1]! * 3 * km * m_ ** 2 + w[2]! * 3 * ks * s_ ** 2;
  const f2 = w[0]! * 6 * kl * kl * l_ + w[1]! * 6 * km * km * m_ + w[2]! * 6 * ks * ks * s_;
  S -= (f * f1) / (f1 * f1 - 0.5 * f * f2);
  return S;
}

/** The cusp of the sRGB gamut at a hue: the lightness and chroma of its most chromatic colour. */
function findCusp(a: number, b: number): { L: number; C: number } {
  const S = maxSaturation(a, b);
  const [r, g, bl] = oklabToLinear({ L: 1, a: S * a, b: S * b });
  const L = Math.cbrt(1 / Math.max(r, g, bl));
  return { L, C: L * S };
}

/** Where the line from (L0, 0) to (L1, C1) leaves the gamut, as a fraction t of it. */
function gamutIntersection(a: number, b: number, L1: number, C1: number, L0: number, cusp: { L: number; C: number }): number {
  if ((L1 - L0) * cusp.C - (cusp.L - L0) * C1 <= 0) return (cusp.C * L0) / (C1 * cusp.L + cusp.C * (L0 - L1));
  let t = (cusp.C * (L0 - 1)) / (C1 * (cusp.L - 1) + cusp.C * (L0 - L1));
  // One Halley step on each channel refines the upper half, where the gamut's edge is curved.
  const dL = L1 - L0;
  const dC = C1;
  const kl = 0.3963377774 * a + 0.2158037573 * b;
  const km = -0.1055613458 * a - 0.0638541728 * b;
  const ks = -0.0894841775 * a - 1.291485548 * b;
  const ldt = dL + dC * kl;
  const mdt = dL + dC * km;
  const sdt = dL + dC * ks;
  const L = L0 * (1 - t) + t * L1;
  const C = t * C1;
  const l_ = L + C * kl;
  const m_ = L + C * km;
  const s_ = L + C * ks;
  const [l, m, s] = [l_ ** 3, m_ ** 3, s_ ** 3];
  const [l1, m1, s1] = [3 * ldt * l_ ** 2, 3 * mdt * m_ ** 2, 3 * sdt * s_ ** 2];
  const [l2, m2, s2] = [6 * ldt ** 2 * l_, 6 * mdt ** 2 * m_, 6 * sdt ** 2 * s_];
  const rows = [
    [4.0767416621, -3.3077115913, 0.2309699292],
    [-1.2684380046, 2.6097574011, -0.3413193965],
    [-0.0041960863, -0.7034186147, 1.707614701],
  ];
  let step = Number.MAX_VALUE;
  for (const [x, y, z] of rows) {
    const f = x! * l + y! * m + z! * s - 1;
    const f1 = x! * l1 + y! * m1 + z! * s1;
    const f2 = x! * l2 + y! * m2 + z! * s2;
    const u = f1 / (f1 * f1 - 0.5 * f * f2);
    if (u >= 0) step = Math.min(step, -f * u);
  }
  t += step === Number.MAX_VALUE ? 0 : step;
  return t;
}

const TOE_K1 = 0.206;
const TOE_K2 = 0.03;
const TOE_K3 = (1 + TOE_K1) / (1 + TOE_K2);
/** OKHSL's lightness `l` back to OKLab's L. */
const toeInverse = (x: number): number => (x * x + TOE_K1 * x) / (TOE_K3 * (x + TOE_K2));

/** OKHSL hue (degrees), saturation and lightness (0..1) to sRGB. */
export function okhslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  if (lightness >= 1) return { r: 255, g: 255, b: 255 };
  if (lightness <= 0) return { r: 0, g: 0, b: 0 };
  const angle = (((hue % 360) + 360) % 360) * (Math.PI / 180);
  const a = Math.cos(angle);
  const b = Math.sin(angle);
  const L = toeInverse(lightness);
  const s = Math.min(1, Math.max(0, saturation));
  // The three chromas OKHSL's saturation scale is pinned to at this L: near-grey, middle, the gamut's edge.
  const cusp = findCusp(a, b);
  const cMax = gamutIntersection(a, b, L, 1, L, cusp);
  const stMax = { S: cusp.C / cusp.L, T: cusp.C / (1 - cusp.L) };
  const scale = cMax / Math.min(L * stMax.S, (1 - L) * stMax.T);
  const stMid = {
    S: 0.11516993 + 1 / (7.4477897 + 4.1590124 * b + a * (-2.19557347 + 1.75198401 * b + a * (-2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a)))),
    T: 0.11239642 + 1 / (1.6132032 - 0.68124379 * b + a * (0.40370612 + 0.90148123 * b + a * (-0.27087943 + 0.6122399 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a)))),
  };
  const ca = L * stMid.S;
  const cb = (1 - L) * stMid.T;
  const cMid = 0.9 * scale * Math.sqrt(Math.sqrt(1 / (1 / ca ** 4 + 1 / cb ** 4)));
  const c0 = Math.sqrt(1 / (1 / (L * 0.4) ** 2 + 1 / ((1 - L) * 0.8) ** 2));
  const MID = 0.8;
  let C: number;
  if (s < MID) {
    const t = s / MID;
    const k1 = MID * c0;
    const k2 = 1 - k1 / cMid;
    C = (t * k1) / (1 - k2 * t);
  } else {
    const t = (s - MID) / (1 - MID);
    const k1 = ((1 - MID) * cMid * cMid) / (MID * MID * c0);
    const k2 = 1 - k1 / (cMax - cMid);
    C = cMid + (t * k1) / (1 - k2 * t);
  }
  return linearToRgb(oklabToLinear({ L, a: C * a, b: C * b }));
}

// --- theme colour strings -----------------------------------------------------------

export const rgbToHex = ({ r, g, b }: Rgb): string => `#${[r, g, b].map((channel) => channel.toString(16).padStart(2, "0")).join("")}`;

export function hexToRgb(hex: string): Rgb {
  const value = Number.parseInt(hex.slice(1), 16);
  return { r: (value >> 16) & 255, g: (value >> 8) & 255, b: value & 255 };
}

const NUMBER = String.raw`[+-]?(?:\d+\.?\d*|\.\d+)`;
const SEPARATOR = String.raw`(?:\s*,\s*|\s+)`;
const FUNCTION = new RegExp(String.raw`^(okhsl|oklch)\(\s*(${NUMBER}(?:deg|%)?)${SEPARATOR}(${NUMBER}%?)${SEPARATOR}(${NUMBER}(?:deg|%)?)\s*\)$`, "i");

/** "50%" → 0.5 of `whole`; "0.5" → 0.5 × `plain` (the unit a bare number is in). */
function amount(text: string, percentOf: number, plain: number): number {
  return text.endsWith("%") ? (Number.parseFloat(text) / 100) * percentOf : Number.parseFloat(text) * plain;
}

/**
 * A colour written as a theme file writes one, as "#rrggbb"; undefined when `text` is
 * not a colour form at all (it may then be a var's name); an error message when it
 * is one of the forms, written wrong.
 */
export function parseColorText(text: string): { hex: string } | { error: string } | undefined {
  const value = text.trim();
  if (value.startsWith("#")) {
    if (/^#[0-9a-f]{6}$/i.test(value)) return { hex: value.toLowerCase() };
    if (/^#[0-9a-f]{3}$/i.test(value)) return { hex: `#${[...value.slice(1)].map((digit) => digit + digit).join("")}`.toLowerCase() };
    return { error: "a hex colour is #RGB or #RRGGBB" };
  }
  const form = /^(okhsl|oklch)\s*\(/i.exec(value)?.[1]?.toLowerCase();
  if (!form) return undefined;
  const match = FUNCTION.exec(value);
  if (!match) return { error: form === "okhsl" ? "okhsl() takes a hue, a saturation and a lightness: okhsl(250 60% 55%)" : "oklch() takes a lightness, a chroma and a hue: oklch(62% 0.1 200)" };
  const [, , first, second, third] = match as unknown as [string, string, string, string, string];
  // Hundreds of digits read as Infinity, and Infinity's hue has no cosine: the colour would come out "#NaNNaNNaN".
  if (![first, second, third].every((text) => Number.isFinite(Number.parseFloat(text)))) return { error: `${form}() numbers must be finite` };
  if (form === "okhsl") {
    if (first.endsWith("%")) return { error: "the hue of okhsl() is in degrees, not a percentage" };
    const hue = Number.parseFloat(first);
    const saturation = amount(second, 1, 1);
    const lightness = amount(third, 1, 1);
    if (saturation < 0 || saturation > 1 || lightness < 0 || lightness > 1) return { error: "okhsl() saturation and lightness are 0%-100%" };
    return { hex: rgbToHex(okhslToRgb(hue, saturation, lightness)) };
  }
  if (third.endsWith("%")) return { error: "the hue of oklch() is in degrees, not a percentage" };
  const lightness = amount(first, 1, 1);
  const chroma = amount(second, 0.4, 1);
  if (lightness < 0 || lightness > 1 || chroma < 0) return { error: "oklch() lightness is 0%-100% (or 0-1) and chroma is not negative" };
  return { hex: rgbToHex(oklchToRgb(lightness, chroma, Number.parseFloat(third))) };
}

// --- measures -------------------------------------------------------------------------

/** WCAG relative luminance (0 black .. 1 white). */
export function luminance({ r, g, b }: Rgb): number {
  return 0.2126 * toLinear(r) + 0.7152 * toLinear(g) + 0.0722 * toLinear(b);
}

/** WCAG contrast ratio between two colours (1 .. 21). */
export function contrast(first: Rgb, second: Rgb): number {
  const [light, dark] = [luminance(first), luminance(second)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

/** The xterm palette's colour for a 256-colour index (16–255 are fixed; 0–15 are xterm's defaults). */
export function xtermColor(index: number): Rgb {
  const ANSI = [0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff];
  if (index < 16) return hexToRgb(`#${ANSI[index]!.toString(16).padStart(6, "0")}`);
  if (index >= 232) {
    const grey = 8 + (index - 232) * 10;
    return { r: grey, g: grey, b: grey };
  }
  const LEVELS = [0, 95, 135, 175, 215, 255];
  const cube = index - 16;
  return { r: LEVELS[Math.floor(cube / 36)]!, g: LEVELS[Math.floor(cube / 6) % 6]!, b: LEVELS[cube % 6]! };
}
