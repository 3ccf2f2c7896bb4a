/**
 * pi's theme file format (pi 1.6.0 docs/themes.md): a `name`, an optional `appearance`
 * ("dark" or "light": the background it is made for), optional `vars`, a colour for
 * every role under `colors`, and optional `export` backgrounds. A colour is "#RGB",
 * "#RRGGBB", "oklch(L C H)", "okhsl(H S L)" (theme-colors.ts turns these into sRGB), a
 * 256-colour index (0–255), the name of a var (a var may name another var), or "" for
 * the terminal's own colour. This module checks a parsed document and
 * resolves every role to a concrete colour. A document is all or nothing: any problem
 * is an error that names each bad token, never a theme with holes in it.
 *
 * The structure is checked against a typebox schema (src/schema: a valid file never
 * loads typebox); what a schema cannot say — that a string is a colour or a defined
 * var, that vars do not go round in a circle — is checked while resolving.
 */
import type { TSchema } from "typebox";
import { describeSchemaErrors } from "../config/json-file.ts";
import { lazySchema } from "../schema/lazy.ts";
import { Type } from "../schema/type.ts";
import { fitsSchema, typeboxValue } from "../schema/validate.ts";
import { parseColorText } from "./theme-colors.ts";

/** Roles drawn as text colour, in the schema's order. */
export const FOREGROUND_TOKENS = [
  "accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim", "text", "thinkingText",
  "userMessageText", "customMessageText", "customMessageLabel", "toolTitle", "toolOutput",
  "mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote", "mdQuoteBorder", "mdHr", "mdListBullet",
  "toolDiffAdded", "toolDiffRemoved", "toolDiffContext",
  "syntaxComment", "syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber", "syntaxType", "syntaxOperator", "syntaxPunctuation",
  "thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh", "thinkingXhigh", "bashMode",
] as const;

/** Roles drawn as background colour. */
export const BACKGROUND_TOKENS = ["selectedBg", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg"] as const;

/** Roles a file may leave out, and the role each then takes its colour from. */
export const OPTIONAL_TOKENS = {
  scrollbarTrack: "muted",
  scrollbarThumb: "text",
  searchMatchBg: "selectedBg",
  searchMatchText: "text",
  thinkingMax: "thinkingXhigh",
} as const;

export const EXPORT_TOKENS = ["pageBg", "cardBg", "infoBg"] as const;

type RequiredToken = (typeof FOREGROUND_TOKENS)[number] | (typeof BACKGROUND_TOKENS)[number];
export type ThemeToken = RequiredToken | keyof typeof OPTIONAL_TOKENS;

export const REQUIRED_TOKENS: readonly RequiredToken[] = [...FOREGROUND_TOKENS, ...BACKGROUND_TOKENS];
export const ALL_TOKENS: readonly ThemeToken[] = [...REQUIRED_TOKENS, ...(Object.keys(OPTIONAL_TOKENS) as (keyof typeof OPTIONAL_TOKENS)[])];

/** A colour as written: "#RGB", "#RRGGBB", "oklch(…)", "okhsl(…)", a var's name, "" or a 256-colour index. */
export type ColorValue = string | number;

/** A resolved colour: "#rrggbb", a 256-colour index, or "" (the terminal's own). */
export type ResolvedColor = string | number;

export type ThemeAppearance = "dark" | "light";

/** A theme document as pi writes it. */
export interface ThemeDocument {
  $schema?: string;
  name: string;
  appearance?: ThemeAppearance;
  vars?: Record<string, ColorValue>;
  colors: Partial<Record<ThemeToken, ColorValue>>;
  export?: Partial<Record<(typeof EXPORT_TOKENS)[number], ColorValue>>;
}

/** A theme ready to draw with: every role has a colour. */
export interface ThemeDefinition {
  name: string;
  /** The file it came from; undefined for a built-in theme. */
  path?: string;
  /** The background it is made for, as the file declares it (else guessed from its colours where needed: see modes/interactive/theme.ts). */
  appearance?: ThemeAppearance;
  colors: Readonly<Record<ThemeToken, ResolvedColor>>;
  /** Text roles drawn faint (SGR 2) besides their colour: the system theme's when the terminal tells nothing. */
  faint?: ReadonlySet<ThemeToken>;
  exportColors: Readonly<Partial<Record<(typeof EXPORT_TOKENS)[number], ResolvedColor>>>;
}

/** What is wrong with a theme document: one line per bad token. */
export class ThemeFormatError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "ThemeFormatError";
  }
}

/** A theme file's shape (also published as schemas/theme.schema.json). */
export const themeSchema = lazySchema(() => {
  const Color = Type.Union([Type.String(), Type.Integer({ minimum: 0, maximum: 255 })]);
  const colors = Object.fromEntries([...REQUIRED_TOKENS.map((token) => [token, Color]), ...Object.keys(OPTIONAL_TOKENS).map((token) => [token, Type.Optional(Color)])]);
  return Type.Object(
    {
      $schema: Type.Optional(Type.String()),
      name: Type.String({ minLength: 1, pattern: "^[^/]+$" }),
      appearance: Type.Optional(Type.Union([Type.Literal("dark"), Type.Literal("light")])),
      vars: Type.Optional(Type.Record(Type.String(), Color)),
      colors: Type.Object(colors, { additionalProperties: false }),
      export: Type.Optional(Type.Object(Object.fromEntries(EXPORT_TOKENS.map((token) => [token, Type.Optional(Color)])), { additionalProperties: false })),
    },
    { additionalProperties: false },
  );
});

const MAX_PROBLEMS = 5;
const COLOR_FORMS = '"#RGB", "#RRGGBB", "oklch(…)", "okhsl(…)", a 256-colour index 0-255, "" or a name in "vars"';

/** Checks a parsed theme file and resolves it; throws ThemeFormatError naming each bad token. */
export function themeFromJson(json: unknown, path?: string): ThemeDefinition {
  const schema = themeSchema() as TSchema;
  if (!fitsSchema(schema, json)) throw new ThemeFormatError(describeThemeSchemaErrors(schema, json));
  return resolveTheme(json as ThemeDocument, path);
}

/** The `name` a document gives itself, when it gives a usable one (even if the rest is broken). */
export function themeNameOf(json: unknown): string | undefined {
  const name = typeof json === "object" && json !== null ? (json as { name?: unknown }).name : undefined;
  return typeof name === "string" && name !== "" && !name.includes("/") ? name : undefined;
}

/**
 * What is wrong with a document the schema refused, in the words of the format: each
 * bad token with what it holds and what it should. typebox's own wording is the last
 * resort, for anything these checks do not name.
 */
function describeThemeSchemaErrors(schema: TSchema, json: unknown): string[] {
  if (!isRecord(json)) return ['expected a JSON object with "name" and "colors"'];
  const problems: string[] = [];
  const { name } = json;
  if (name === undefined) problems.push("name: is required but missing");
  else if (typeof name !== "string" || name === "") problems.push(`name: expected the theme's name (got ${preview(name)})`);
  else if (name.includes("/")) problems.push(`name: "${name}" must not contain "/" (settings use it for "light/dark" pairs)`);
  for (const key of Object.keys(json)) if (!TOP_LEVEL_KEYS.includes(key)) problems.push(`${key}: not part of a theme file (it has ${TOP_LEVEL_KEYS.join(", ")})`);
  if (json.$schema !== undefined && typeof json.$schema !== "string") problems.push(`$schema: expected a string (got ${preview(json.$schema)})`);
  if (json.appearance !== undefined && json.appearance !== "dark" && json.appearance !== "light") problems.push(`appearance: expected "dark" or "light" (got ${preview(json.appearance)})`);
  const sections: [string, Set<string> | undefined][] = [["vars", undefined], ["colors", new Set<string>(ALL_TOKENS)], ["export", new Set<string>(EXPORT_TOKENS)]];
  for (const [section, known] of sections) {
    const value = json[section];
    if (value === undefined) continue;
    if (!isRecord(value)) {
      problems.push(`${section}: expected an object (got ${preview(value)})`);
      continue;
    }
    for (const [key, color] of Object.entries(value)) {
      if (known && !known.has(key)) problems.push(`${section}.${key}: not a theme colour${suggestion(key, known)}`);
      else if (typeof color === "number" ? !Number.isInteger(color) || color < 0 || color > 255 : typeof color !== "string") {
        problems.push(`${section}.${key}: expected ${COLOR_FORMS} (got ${preview(color)})`);
      }
    }
  }
  if (json.colors === undefined) problems.push("colors: is required but missing");
  else if (isRecord(json.colors)) {
    const missing = REQUIRED_TOKENS.filter((token) => !Object.hasOwn(json.colors as object, token));
    if (missing.length > 0) problems.push(`colors: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required but missing`);
  }
  if (problems.length === 0) problems.push(...describeSchemaErrors(typeboxValue().Errors(schema, json), json));
  return (problems.length > 0 ? problems : ["does not fit the theme format"]).slice(0, MAX_PROBLEMS);
}

const TOP_LEVEL_KEYS = ["$schema", "name", "appearance", "vars", "colors", "export"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}...` : json;
}

function suggestion(key: string, known: Set<string>): string {
  const lower = key.toLowerCase();
  const close = [...known].find((token) => token.toLowerCase() === lower || (Math.abs(token.length - key.length) <= 1 && editDistance(token.toLowerCase(), lower) <= 1));
  return close ? ` (did you mean "${close}"?)` : "";
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Every role of a structurally valid document resolved to a colour: optional roles
 * absent take their fallback's colour; vars are followed to the end of their chain.
 * Built-in themes come here directly (they are written in this format too).
 */
export function resolveTheme(document: ThemeDocument, path?: string): ThemeDefinition {
  const problems: string[] = [];
  const vars = document.vars ?? {};
  const resolve = (where: string, value: ColorValue): ResolvedColor | undefined => {
    const seen: string[] = [];
    // A Set beside the list: a hostile file's chain of many thousand vars would be checked in quadratic time.
    const seenNames = new Set<string>();
    let current: ColorValue = value;
    for (;;) {
      if (typeof current === "number") return current;
      if (current === "") return current;
      const color = parseColorText(current);
      if (color && "hex" in color) return color.hex;
      if (color) {
        problems.push(`${where}: ${JSON.stringify(current)} is not a colour (${color.error})`);
        return undefined;
      }
      if (seenNames.has(current)) {
        const circle = [...seen, current];
        // A long circle is named by its ends: the whole of one could be thousands of names on one line.
        const shown = circle.length > 8 ? [...circle.slice(0, 4), "…", ...circle.slice(-2)] : circle;
        problems.push(`${where}: vars refer to each other in a circle (${shown.join(" → ")})`);
        return undefined;
      }
      if (!Object.hasOwn(vars, current)) {
        const via = seen.length > 0 ? ` (through ${seen.map((name) => `vars.${name}`).join(" → ")})` : "";
        problems.push(`${where}: ${JSON.stringify(current)} is neither a colour (#RGB, #RRGGBB, oklch(…), okhsl(…), 0-255, "") nor a name in "vars"${via}`);
        return undefined;
      }
      seen.push(current);
      seenNames.add(current);
      current = vars[current]!;
    }
  };
  const colors: Partial<Record<ThemeToken, ResolvedColor>> = {};
  for (const token of REQUIRED_TOKENS) {
    const value = document.colors[token];
    if (value === undefined) problems.push(`colors.${token}: is required but missing`);
    else colors[token] = resolve(`colors.${token}`, value);
  }
  for (const [token, fallback] of Object.entries(OPTIONAL_TOKENS) as [keyof typeof OPTIONAL_TOKENS, RequiredToken][]) {
    const value = document.colors[token];
    colors[token] = value === undefined ? colors[fallback] : resolve(`colors.${token}`, value);
  }
  const exportColors: Partial<Record<(typeof EXPORT_TOKENS)[number], ResolvedColor>> = {};
  for (const token of EXPORT_TOKENS) {
    const value = document.export?.[token];
    if (value !== undefined) exportColors[token] = resolve(`export.${token}`, value);
  }
  if (problems.length > 0) throw new ThemeFormatError(problems.slice(0, MAX_PROBLEMS));
  return { name: document.name, ...(path ? { path } : {}), ...(document.appearance ? { appearance: document.appearance } : {}), colors: colors as Record<ThemeToken, ResolvedColor>, exportColors };
}
