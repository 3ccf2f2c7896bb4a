/**
 * settings.json: the global file under the agent dir, overridden by the project's
 * `<cwd>/.xcsh/settings.json`. Nested objects merge key by key (project wins); arrays
 * and scalars are replaced whole. Keys xcsh does not know are kept as they are, so a
 * newer or older xcsh (or an extension) sharing the file loses nothing.
 *
 * Known keys are type-checked: a wrong type is an error naming the field and what it
 * accepts, because silently ignoring `"defaultThinkingLevel": "huge"` would leave a
 * person wondering why their setting has no effect.
 */
import Type from "typebox";
import { THINKING_LEVELS, type ModelThinkingLevel, type ThinkingBudgets } from "../ai/types.ts";
import { ConfigError } from "./errors.ts";
import { assertMatchesSchema, readJsonFile } from "./json-file.ts";
import { getProjectSettingsPath, getSettingsPath } from "./paths.ts";

export interface CompactionSettings {
  enabled: boolean;
  /** Tokens kept free for the model's answer. */
  reserveTokens: number;
  /** Most recent tokens kept verbatim rather than summarized. */
  keepRecentTokens: number;
}

export interface ProviderRetrySettings {
  /** SDK request timeout; undefined keeps the SDK default. */
  timeoutMs?: number;
  /** SDK-level retries; undefined keeps the SDK default. */
  maxRetries?: number;
  /** Longest server-requested retry delay to wait for; 0 disables the cap. */
  maxRetryDelayMs: number;
}

export interface RetrySettings {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
  provider: ProviderRetrySettings;
}

export interface Settings {
  defaultProvider?: string;
  defaultModel?: string;
  defaultThinkingLevel?: ModelThinkingLevel;
  thinkingBudgets?: ThinkingBudgets;
  compaction: CompactionSettings;
  retry: RetrySettings;
  /** Script for the offline faux provider (a path; relative ones are taken from the working directory). */
  fauxScript?: string;
  /** Everything else in the files, known to other parts of xcsh or not, kept as written. */
  [key: string]: unknown;
}

/** Values used for anything neither file sets (see settings.md). */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  compaction: Object.freeze({ enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 }),
  retry: Object.freeze({ enabled: true, maxRetries: 3, baseDelayMs: 2000, provider: Object.freeze({ maxRetryDelayMs: 60000 }) }),
});

const SETTINGS_HINT = "Fix or delete the file and try again.";

const StringList = Type.Array(Type.String());
const TokenCount = Type.Number({ minimum: 0 });

/**
 * Known settings and their types. Every field is optional and unknown fields are allowed
 * (the schema is open), so only a known key with a wrong value is rejected.
 */
const SettingsFileSchema = Type.Object({
  defaultProvider: Type.Optional(Type.String()),
  defaultModel: Type.Optional(Type.String()),
  defaultThinkingLevel: Type.Optional(Type.Enum(THINKING_LEVELS)),
  hideThinkingBlock: Type.Optional(Type.Boolean()),
  thinkingBudgets: Type.Optional(
    Type.Object({
      minimal: Type.Optional(TokenCount),
      low: Type.Optional(TokenCount),
      medium: Type.Optional(TokenCount),
      high: Type.Optional(TokenCount),
    }),
  ),
  theme: Type.Optional(Type.String()),
  quietStartup: Type.Optional(Type.Boolean()),
  compaction: Type.Optional(
    Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      reserveTokens: Type.Optional(TokenCount),
      keepRecentTokens: Type.Optional(TokenCount),
    }),
  ),
  branchSummary: Type.Optional(
    Type.Object({ reserveTokens: Type.Optional(TokenCount), skipPrompt: Type.Optional(Type.Boolean()) }),
  ),
  retry: Type.Optional(
    Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      maxRetries: Type.Optional(Type.Integer({ minimum: 0 })),
      baseDelayMs: Type.Optional(Type.Number({ minimum: 0 })),
      provider: Type.Optional(
        Type.Object({
          timeoutMs: Type.Optional(Type.Number({ minimum: 0 })),
          maxRetries: Type.Optional(Type.Integer({ minimum: 0 })),
          maxRetryDelayMs: Type.Optional(Type.Number({ minimum: 0 })),
        }),
      ),
    }),
  ),
  steeringMode: Type.Optional(Type.Enum(["all", "one-at-a-time"])),
  followUpMode: Type.Optional(Type.Enum(["all", "one-at-a-time"])),
  transport: Type.Optional(Type.Enum(["sse", "websocket", "auto"])),
  sessionDir: Type.Optional(Type.String()),
  enabledModels: Type.Optional(StringList),
  shellPath: Type.Optional(Type.String()),
  shellCommandPrefix: Type.Optional(Type.String()),
  npmCommand: Type.Optional(StringList),
  extensions: Type.Optional(StringList),
  skills: Type.Optional(StringList),
  prompts: Type.Optional(StringList),
  themes: Type.Optional(StringList),
  enableSkillCommands: Type.Optional(Type.Boolean()),
  fauxScript: Type.Optional(Type.String()),
});

/** Settings as written in one file: only what the file sets, validated. */
export interface SettingsFile {
  defaultProvider?: string;
  defaultModel?: string;
  defaultThinkingLevel?: ModelThinkingLevel;
  thinkingBudgets?: ThinkingBudgets;
  compaction?: Partial<CompactionSettings>;
  retry?: Partial<Omit<RetrySettings, "provider">> & { provider?: Partial<ProviderRetrySettings> };
  [key: string]: unknown;
}

/** Reads and validates one settings file (missing → `{}`); throws ConfigError naming the file and the problem. */
export function readSettingsFile(file: string): SettingsFile {
  const content = readJsonFile(file, SETTINGS_HINT);
  if (content === undefined) return {};
  if (!isPlainObject(content)) {
    throw new ConfigError(file, `expected a JSON object at the top level, found ${describeKind(content)}`, SETTINGS_HINT);
  }
  assertMatchesSchema<SettingsFile>(SettingsFileSchema, content, file, SETTINGS_HINT);
  return content;
}

/**
 * The effective settings for `cwd`: defaults, then the global file, then the project
 * file. Missing files are fine; a broken one throws ConfigError.
 */
export function loadSettings(cwd: string): Settings {
  const global = readSettingsFile(getSettingsPath());
  const project = readSettingsFile(getProjectSettingsPath(cwd));
  return mergeSettings(mergeSettings(DEFAULT_SETTINGS, global), project) as Settings;
}

/**
 * Deep-merges `override` onto `base` without touching either: nested plain objects merge
 * key by key, anything else (arrays included) is replaced.
 */
export function mergeSettings<T extends Record<string, unknown>>(base: T, override: Record<string, unknown>): T {
  const result: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(override)) {
    const current = result[key];
    result[key] = isPlainObject(current) && isPlainObject(value) ? mergeSettings(current, value) : structuredClone(value);
  }
  return result as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeKind(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return `a ${typeof value}`;
}
