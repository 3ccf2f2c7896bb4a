/**
 * How a settings.json written for pi 0.87.1 is read: the spellings of values pi accepts
 * that xcsh names differently, and the keys xcsh accepts without acting on them.
 *
 * A person who copies their pi settings believes each one applies. So a key xcsh does
 * not act on is never dropped without a word: one warning per file and run lists those
 * whose value asks for something xcsh does not do (docs/settings.md says why for each).
 * A value that asks for what xcsh does anyway (pi's default, mostly) is not worth a
 * warning: pi's /settings writes such values back into the file.
 */
import { THINKING_LEVELS, type ModelThinkingLevel } from "../ai/types.ts";
import { expandHome } from "./paths.ts";
import { noteConfigWarning } from "./unknown-keys.ts";

/** pi's highest thinking level. xcsh's levels end below it: it means the model's highest. */
export const MAX_THINKING_LEVEL = "max";

/** What `defaultThinkingLevel` and `modelThinkingLevels` accept: xcsh's levels and pi's "max". */
export const SETTINGS_THINKING_LEVELS: readonly string[] = [...new Set<string>([...THINKING_LEVELS, MAX_THINKING_LEVEL])];

/** pi's names for the trust settings ("always", "never") beside xcsh's ("trust", "deny"). */
const TRUST_ALIASES: Record<string, string> = { always: "trust", never: "deny" };

/** A key xcsh accepts without acting on it, and when its value is worth a warning. */
interface NotApplied {
  /** Dotted path in the file. */
  path: string;
  /** Why xcsh does not act on it, for the warning. */
  reason: string;
  /** Values that ask for nothing beyond what xcsh does; undefined: every value warns. */
  inert?: (value: unknown) => boolean;
}

const equalTo = (expected: unknown) => (value: unknown) => JSON.stringify(value) === JSON.stringify(expected);
const emptyList = (value: unknown) => Array.isArray(value) && value.length === 0;
const never = () => true;

/**
 * pi 0.87.1's settings (its settings.md, table by table) that xcsh does not apply. Keys
 * marked `never` have nothing to apply in xcsh (no changelog or telemetry
 * to configure) and never warn.
 */
export const NOT_APPLIED_SETTINGS: readonly NotApplied[] = [
  { path: "showCacheMissNotices", reason: "no cache-miss notices", inert: equalTo(false) },
  { path: "cacheWarming", reason: "no prompt-cache warming", inert: equalTo("off") },
  { path: "compaction.modelOverrides", reason: "per-model compaction settings are not supported; compaction's own settings apply to every model" },
  { path: "outputPad", reason: "the transcript's padding is fixed", inert: equalTo(1) },
  { path: "terminal.showImages", reason: "no inline images in the terminal", inert: equalTo(false) },
  { path: "terminal.imageWidthCells", reason: "no inline images in the terminal", inert: never },
  { path: "terminal.images", reason: "no inline images in the terminal", inert: (value) => value === false || value === "auto" },
  { path: "markdown.mermaid", reason: "no Mermaid rendering", inert: equalTo("off") },
  { path: "transport", reason: "providers are reached over HTTP streaming (server-sent events) only", inert: (value) => value === "auto" || value === "sse" },
  { path: "httpIdleTimeoutMs", reason: "use retry.provider.timeoutMs for a request timeout", inert: equalTo(300000) },
  { path: "websocketConnectTimeoutMs", reason: "no WebSocket transport", inert: never },
  { path: "collapseChangelog", reason: "no changelog", inert: never },
  { path: "lastChangelogVersion", reason: "no changelog", inert: never },
  { path: "enableInstallTelemetry", reason: "xcsh sends no telemetry", inert: never },
  { path: "enableAnalytics", reason: "xcsh sends no analytics", inert: never },
  { path: "trackingId", reason: "xcsh sends no analytics", inert: never },
  { path: "warnings.anthropicExtraUsage", reason: "no subscription sign-in", inert: never },
  { path: "sessionShareDestination", reason: "no /share", inert: never },
  { path: "selfUpdateCommand", reason: "xcsh does not update itself", inert: never },
];

/**
 * A copy of one file's settings with pi's spellings turned into xcsh's: "max" thinking
 * becomes the highest level (the model's own clamp then picks its highest), trust
 * "always"/"never" become "trust"/"deny", and a leading `~` of `shellPath` is expanded.
 * Only validated content comes here.
 */
export function normalizePiSpellings<T extends Record<string, unknown>>(content: T): T {
  const result: Record<string, unknown> = { ...content };
  if (typeof result.defaultThinkingLevel === "string") result.defaultThinkingLevel = thinkingLevelFromSettings(result.defaultThinkingLevel);
  if (isRecord(result.modelThinkingLevels)) {
    result.modelThinkingLevels = Object.fromEntries(
      Object.entries(result.modelThinkingLevels).map(([model, level]) => [model, typeof level === "string" ? thinkingLevelFromSettings(level) : level]),
    );
  }
  if (typeof result.defaultProjectTrust === "string") result.defaultProjectTrust = TRUST_ALIASES[result.defaultProjectTrust] ?? result.defaultProjectTrust;
  if (typeof result.shellPath === "string" && result.shellPath !== "") result.shellPath = expandHome(result.shellPath);
  return result as T;
}

/** "max" → xcsh's highest level, unless xcsh has a "max" of its own by now. */
export function thinkingLevelFromSettings(level: string): ModelThinkingLevel {
  if (level === MAX_THINKING_LEVEL && !(THINKING_LEVELS as readonly string[]).includes(level)) return THINKING_LEVELS[THINKING_LEVELS.length - 1];
  return level as ModelThinkingLevel;
}

/** Notes the one warning for `file` listing the keys it sets that xcsh does not apply (see NOT_APPLIED_SETTINGS). */
export function noteNotAppliedSettings(content: Record<string, unknown>, file: string): void {
  const listed = NOT_APPLIED_SETTINGS.filter(({ path, inert }) => {
    const value = valueAtPath(content, path);
    return value !== undefined && !(inert?.(value) ?? false);
  }).map(({ path, reason }) => `"${path}" (${reason})`);
  if (listed.length === 0) return;
  noteConfigWarning(`${file}\0not-applied`, `${file}: settings xcsh accepts but does not apply: ${listed.join(", ")}. See docs/settings.md.`);
}

function valueAtPath(content: Record<string, unknown>, path: string): unknown {
  let current: unknown = content;
  for (const segment of path.split(".")) {
    if (!isRecord(current)) return undefined;
    current = current[segment];
  }
  return current;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
