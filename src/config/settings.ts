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
import { resolve } from "node:path";
import { lazySchema } from "../schema/lazy.ts";
import { Type } from "../schema/type.ts";
import { THINKING_LEVELS, type CacheRetention, type ModelThinkingLevel, type ThinkingBudgets } from "../ai/types.ts";
import { ConfigError } from "./errors.ts";
import { assertMatchesSchema, readJsonFile } from "./json-file.ts";
import { noteUnknownKeys } from "./unknown-keys.ts";
import { expandHome, getProjectSettingsPath, getSettingsPath } from "./paths.ts";
import { noteNotAppliedSettings, normalizePiSpellings, SETTINGS_THINKING_LEVELS } from "./settings-compat.ts";
import { stricterSandboxPart } from "./project-sandbox.ts";
import { boundedRetryPart, type RetryDefaults } from "./project-retry.ts";
import { isProjectTrustedThisRun } from "./run-trust.ts";

export interface CompactionSettings {
  enabled: boolean;
  /** Tokens kept free for the model's answer. */
  reserveTokens: number;
  /** Most recent tokens kept verbatim rather than summarized. */
  keepRecentTokens: number;
  /** Old tool output among the kept messages is sent trimmed (core/compaction/kept-tool-results.ts); default true. */
  trimToolResults?: boolean;
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
  /** Longest wait between xcsh's own retries (the backoff stops growing there); 0: no cap. Default 60000. */
  maxAgentDelayMs?: number;
  provider: ProviderRetrySettings;
}

export interface Settings {
  defaultProvider?: string;
  defaultModel?: string;
  /** pi's "max" arrives here as xcsh's highest level (settings-compat.ts). */
  defaultThinkingLevel?: ModelThinkingLevel;
  /** Startup thinking level by exact `provider/modelId`. */
  modelThinkingLevels?: Record<string, ModelThinkingLevel>;
  thinkingBudgets?: ThinkingBudgets;
  /** Model patterns (as `--model` takes them, plus globs) for startup selection and cycling. */
  enabledModels?: string[];
  /** Built-in tools active at startup when no tool flag is given. */
  defaultTools?: string[];
  /** Shell for the bash tool and user commands (a leading `~` expanded). */
  shellPath?: string;
  /** Prepended, on its own line, to every bash command. */
  shellCommandPrefix?: string;
  /** How long providers keep the prompt cache: "short" (5 minutes), "long" (1 hour / 24 hours), "none". */
  cacheRetention?: CacheRetention;
  /** Proxy URL for provider requests (global file only; applyHttpProxySetting). */
  httpProxy?: string;
  compaction: CompactionSettings;
  /** pi 1.x: the tokens a /tree branch summary reserves (default BRANCH_SUMMARY_RESERVE_TOKENS), and whether /tree skips asking for one. */
  branchSummary?: { reserveTokens?: number; skipPrompt?: boolean };
  retry: RetrySettings;
  /** Script for the offline faux provider (a path; relative ones are taken from the working directory). */
  fauxScript?: string;
  /** Whether a project with code to run is trusted when nothing else decides; honoured from the global file only. */
  defaultProjectTrust?: ProjectTrustSetting;
  /** Everything else in the files, known to other parts of xcsh or not, kept as written. */
  [key: string]: unknown;
}

/** pi's default for `branchSummary.reserveTokens`: a branch summary's reserve, apart from compaction's. */
export const BRANCH_SUMMARY_RESERVE_TOKENS = 16384;

/** Values used for anything neither file sets (see settings.md). */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  compaction: Object.freeze({ enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 }),
  retry: Object.freeze({ enabled: true, maxRetries: 3, baseDelayMs: 2000, provider: Object.freeze({ maxRetryDelayMs: 60000 }) }),
});

/** The retry numbers an untrusted project may not exceed when the user set none (project-retry.ts). */
const RETRY_DEFAULTS: RetryDefaults = Object.freeze({ maxRetries: 3, baseDelayMs: 2000, maxAgentDelayMs: 60000, maxRetryDelayMs: 60000 });

const SETTINGS_HINT = "Fix or delete the file and try again.";

/** What `defaultProjectTrust` means once read: ask the person, trust every project, or trust none. */
export const PROJECT_TRUST_SETTINGS = ["ask", "trust", "deny"] as const;
export type ProjectTrustSetting = (typeof PROJECT_TRUST_SETTINGS)[number];
/** What the file may say: xcsh's words, and pi's "always" and "never" (read as "trust" and "deny"). */
const PROJECT_TRUST_SPELLINGS = [...PROJECT_TRUST_SETTINGS, "always", "never"];

/**
 * Why a project settings key waits for the project to be trusted (docs/security.md lists
 * every key): it runs code or names a program; it picks the model, and so where prompts and
 * keys go; it moves the user's data out of their agent dir; or it could loosen the sandbox.
 */
export type TrustReason = "runs code" | "picks the model" | "moves your data" | "loosens the sandbox";

/**
 * Project settings keys that apply only once the project is trusted. An untrusted project's
 * file is merged without them (see loadSettingsWithTrust) — except that its `sandbox` may
 * still make the sandbox stricter (project-sandbox.ts); everything else in it only shapes
 * text and still applies.
 * Defined here rather than in extensions/ because config sits below extensions.
 */
export const PROJECT_KEYS_NEEDING_TRUST: Readonly<Record<string, TrustReason>> = Object.freeze({
  extensions: "runs code",
  packages: "runs code",
  shellPath: "runs code",
  shellCommandPrefix: "runs code",
  npmCommand: "runs code",
  shellEnv: "runs code",
  externalEditor: "runs code",
  // A scripted model's tool calls run for real; the script is also a model of the project's choosing.
  fauxScript: "runs code",
  defaultProvider: "picks the model",
  defaultModel: "picks the model",
  enabledModels: "picks the model",
  sessionDir: "moves your data",
  sandbox: "loosens the sandbox",
});

/** The keys of PROJECT_KEYS_NEEDING_TRUST. */
export const TRUST_GATED_PROJECT_KEYS: readonly string[] = Object.freeze(Object.keys(PROJECT_KEYS_NEEDING_TRUST));

/**
 * Keys a project file never sets, trusted or not: a project must not decide how far
 * projects are trusted. They are read from the global file only.
 */
const GLOBAL_ONLY_KEYS: readonly string[] = ["defaultProjectTrust", "httpProxy"];

/**
 * Known settings and their types. Every field is optional and unknown fields are allowed
 * (the schema is open), so only a known key with a wrong value is rejected. Built when
 * a settings file is first read (src/schema/lazy.ts says why).
 */
export const settingsFileSchema = lazySchema(() => {
  const StringList = Type.Array(Type.String());
  const TokenCount = Type.Number({ minimum: 0 });
  return Type.Object({
    /** An editor's schema reference (schemas/settings.schema.json, or pi's URL); xcsh does not read it. */
    $schema: Type.Optional(Type.String()),
    defaultProvider: Type.Optional(Type.String()),
    defaultModel: Type.Optional(Type.String()),
    defaultThinkingLevel: Type.Optional(Type.Enum(SETTINGS_THINKING_LEVELS)),
    modelThinkingLevels: Type.Optional(Type.Record(Type.String(), Type.Enum(SETTINGS_THINKING_LEVELS))),
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
    // pi 1.6.0: "header" keeps the startup header and hides the rest.
    quietStartup: Type.Optional(Type.Union([Type.Boolean(), Type.Literal("header")])),
    compaction: Type.Optional(
      Type.Object({
        enabled: Type.Optional(Type.Boolean()),
        reserveTokens: Type.Optional(TokenCount),
        keepRecentTokens: Type.Optional(TokenCount),
        trimToolResults: Type.Optional(Type.Boolean()),
        modelOverrides: Type.Optional(Type.Unknown()),
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
        maxAgentDelayMs: Type.Optional(Type.Number({ minimum: 0 })),
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
    // How long providers keep the prompt cache (docs/costs.md).
    cacheRetention: Type.Optional(Type.Enum(["short", "long", "none"])),
    followUpMode: Type.Optional(Type.Enum(["all", "one-at-a-time"])),
    transport: Type.Optional(Type.Enum(["sse", "websocket", "websocket-cached", "auto"])),
    sessionDir: Type.Optional(Type.String()),
    enabledModels: Type.Optional(StringList),
    defaultTools: Type.Optional(StringList),
    // How the codemode tool presents the other tools (src/codemode/): beside them, or in their place.
    codemode: Type.Optional(Type.Object({ mode: Type.Optional(Type.Enum(["on", "only"])), inlineBudget: Type.Optional(Type.Number({ minimum: 0 })) })),
    shellPath: Type.Optional(Type.String()),
    shellCommandPrefix: Type.Optional(Type.String()),
    npmCommand: Type.Optional(StringList),
    extensions: Type.Optional(StringList),
    skills: Type.Optional(StringList),
    prompts: Type.Optional(StringList),
    themes: Type.Optional(StringList),
    enableSkillCommands: Type.Optional(Type.Boolean()),
    fauxScript: Type.Optional(Type.String()),
    rpc: Type.Optional(Type.Object({ lean: Type.Optional(Type.Boolean()) })),
    packages: Type.Optional(Type.Array(Type.Unknown())),
    // pi's terminal and display settings: known keys (no typo warning), used by a terminal UI.
    doubleEscapeAction: Type.Optional(Type.Unknown()),
    editorPaddingX: Type.Optional(Type.Unknown()),
    autocompleteMaxVisible: Type.Optional(Type.Unknown()),
    showHardwareCursor: Type.Optional(Type.Unknown()),
    collapseChangelog: Type.Optional(Type.Unknown()),
    lastChangelogVersion: Type.Optional(Type.Unknown()),
    enableInstallTelemetry: Type.Optional(Type.Unknown()),
    treeFilterMode: Type.Optional(Type.Unknown()),
    images: Type.Optional(Type.Unknown()),
    markdown: Type.Optional(Type.Unknown()),
    terminal: Type.Optional(Type.Unknown()),
    warnings: Type.Optional(Type.Unknown()),
    // pi 0.87.1's further keys that xcsh accepts without applying (settings-compat.ts says which warn).
    showCacheMissNotices: Type.Optional(Type.Unknown()),
    cacheWarming: Type.Optional(Type.Unknown()),
    externalEditor: Type.Optional(Type.Unknown()),
    // The fullscreen terminal UI's (src/modes/interactive/fullscreen/tui-mode.ts reads and checks them).
    tuiMode: Type.Optional(Type.Unknown()),
    fullscreenExitOutput: Type.Optional(Type.Unknown()),
    fullscreenScrollbar: Type.Optional(Type.Unknown()),
    fullscreenCopyOnSelect: Type.Optional(Type.Unknown()),
    fullscreenWheelScrollLines: Type.Optional(Type.Unknown()),
    outputPad: Type.Optional(Type.Unknown()),
    httpProxy: Type.Optional(Type.String()),
    httpIdleTimeoutMs: Type.Optional(Type.Unknown()),
    websocketConnectTimeoutMs: Type.Optional(Type.Unknown()),
    enableAnalytics: Type.Optional(Type.Unknown()),
    trackingId: Type.Optional(Type.Unknown()),
    sessionShareDestination: Type.Optional(Type.Unknown()),
    selfUpdateCommand: Type.Optional(Type.Unknown()),
    defaultProjectTrust: Type.Optional(Type.Enum(PROJECT_TRUST_SPELLINGS)),
    // What commands may reach (src/sandbox/): the sandbox, and the environment they get.
    sandbox: Type.Optional(
      Type.Object({
        mode: Type.Optional(Type.Enum(["off", "read-only", "workspace-write"])),
        network: Type.Optional(Type.Union([Type.Enum(["deny", "allow"]), StringList])),
        writableRoots: Type.Optional(StringList),
        tmpSockets: Type.Optional(StringList),
      }),
    ),
    shellEnv: Type.Optional(
      Type.Object({
        inherit: Type.Optional(Type.Enum(["all", "core", "none"])),
        set: Type.Optional(Type.Record(Type.String(), Type.String())),
        passthrough: Type.Optional(StringList),
        exclude: Type.Optional(StringList),
      }),
    ),
  });
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
  assertMatchesSchema<SettingsFile>(settingsFileSchema(), content, file, SETTINGS_HINT);
  noteUnknownKeys(settingsFileSchema(), content, file);
  noteNotAppliedSettings(content, file);
  return normalizePiSpellings(content);
}

/**
 * The effective settings for `cwd` in a trusted project: defaults, then the global file,
 * then the project file without the global-only keys (a cloned repository must not choose
 * the proxy that sees your API keys). Missing files are fine; a broken one throws ConfigError.
 */
export function loadSettings(cwd: string): Settings {
  return loadSettingsWithTrust(cwd, true).settings;
}

/** The global settings file as written (missing → `{}`); throws ConfigError when broken. */
export function readGlobalSettingsFile(): SettingsFile {
  return readSettingsFile(getSettingsPath());
}

/** The project's `.xcsh/settings.json` as written (missing → `{}`); throws ConfigError when broken. */
export function readProjectSettingsFile(cwd: string): SettingsFile {
  return readSettingsFile(getProjectSettingsPath(cwd));
}

/**
 * The project's settings file as written, not checked against the schema (missing → `{}`):
 * what trust decisions look at, so that one malformed key cannot hide the others from the
 * notice. Throws ConfigError only when the file is no JSON object.
 */
export function readProjectSettingsObject(cwd: string): Record<string, unknown> {
  return readProjectObject(getProjectSettingsPath(cwd));
}

/**
 * Like loadSettings, for a project whose trust is decided: an untrusted project's file is
 * merged without its trust-gated keys (only the stricter part of its `sandbox` stays), and
 * no project file sets the global-only keys. The left-out keys are not validated either,
 * so a malformed `shellPath` in a project nobody trusts cannot stop xcsh from starting.
 * Returns which of the file's keys were left out (dotted for parts of `sandbox`), for the
 * notice that tells the person.
 */
export function loadSettingsWithTrust(cwd: string, projectTrusted: boolean): { settings: Settings; ignoredProjectKeys: string[] } {
  const global = readGlobalSettingsFile();
  const file = getProjectSettingsPath(cwd);
  const { kept, omitted } = splitProjectSettings(readProjectObject(file), global, projectTrusted);
  const project = validated(kept, file);
  const settings = mergeSettings(mergeSettings(DEFAULT_SETTINGS, global), project) as Settings;
  const tools = layeredDefaultTools(global.defaultTools, project.defaultTools);
  if (tools !== undefined) settings.defaultTools = tools;
  return { settings, ignoredProjectKeys: omitted };
}

/**
 * defaultTools across the two files: a project list of only `+name`/`-name` entries
 * changes the user's selection rather than replacing it. The user's list followed by the
 * project's means just that (plain names form the selection, the changes apply in order).
 */
function layeredDefaultTools(global: unknown, project: unknown): string[] | undefined {
  if (!Array.isArray(global) || !Array.isArray(project) || project.length === 0) return undefined;
  if (!project.every((entry) => typeof entry === "string" && (entry.startsWith("+") || entry.startsWith("-")))) return undefined;
  return [...global, ...project];
}

/**
 * The trust-gated keys an untrusted project's settings set, as loadSettingsWithTrust would
 * leave them out (an empty list or string sets nothing). Pure; `global` is the user's
 * settings file, against which the project's `sandbox` is judged.
 */
export function projectKeysAwaitingTrust(project: Record<string, unknown>, global: Record<string, unknown>): string[] {
  return splitProjectSettings(project, global, false).omitted.filter((key) => !GLOBAL_ONLY_KEYS.includes(key));
}

/** The project's settings that apply, and the keys left out: global-only ones always, trust-gated ones untrusted. */
function splitProjectSettings(content: Record<string, unknown>, global: Record<string, unknown>, projectTrusted: boolean): { kept: Record<string, unknown>; omitted: string[] } {
  const kept: Record<string, unknown> = {};
  const omitted: string[] = [];
  for (const [key, value] of Object.entries(content)) {
    if (GLOBAL_ONLY_KEYS.includes(key)) omitted.push(key);
    else if (key === "retry" && !projectTrusted) {
      // Untrusted, a project may retry less, never more (project-retry.ts): it spends the user's key.
      const part = boundedRetryPart(value, global.retry, RETRY_DEFAULTS);
      if (part.kept) kept.retry = part.kept;
      omitted.push(...part.ignored);
    } else if (projectTrusted || !Object.hasOwn(PROJECT_KEYS_NEEDING_TRUST, key)) kept[key] = value;
    else if (key === "sandbox") {
      const part = stricterSandboxPart(value, global.sandbox);
      if (part.kept) kept.sandbox = part.kept;
      omitted.push(...part.ignored);
    } else if (setsSomething(value)) omitted.push(key); // dropped either way: an empty list still replaces the user's
  }
  return { kept, omitted };
}

/** The project file as written, unvalidated (missing → `{}`); throws ConfigError when it is no JSON object. */
function readProjectObject(file: string): Record<string, unknown> {
  const content = readJsonFile(file, SETTINGS_HINT);
  if (content === undefined) return {};
  if (!isPlainObject(content)) {
    throw new ConfigError(file, `expected a JSON object at the top level, found ${describeKind(content)}`, SETTINGS_HINT);
  }
  return content;
}

/** Validates what is kept of one file, notes its warnings, and turns pi's spellings into xcsh's. */
function validated(kept: Record<string, unknown>, file: string): SettingsFile {
  assertMatchesSchema<SettingsFile>(settingsFileSchema(), kept, file, SETTINGS_HINT);
  noteUnknownKeys(settingsFileSchema(), kept, file);
  noteNotAppliedSettings(kept, file);
  return normalizePiSpellings(kept);
}

/** An empty list or string sets nothing worth naming in a notice. */
function setsSomething(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value) || typeof value === "string") return value.length > 0;
  return true;
}

/**
 * `sessionDir` for `cwd`: the project file's when this run trusted the project
 * (run-trust.ts: a project must not move the conversation to a folder of its choosing),
 * else the global file's; taken from `cwd` when relative (a leading `~` expanded). Only
 * this key is checked here; a broken file is reported when the settings load.
 */
export function readSessionDirSetting(cwd: string): string | undefined {
  const files = isProjectTrustedThisRun(cwd) ? [getProjectSettingsPath(cwd), getSettingsPath()] : [getSettingsPath()];
  for (const file of files) {
    let content: unknown;
    try {
      content = readJsonFile(file, SETTINGS_HINT);
    } catch {
      continue;
    }
    if (!isPlainObject(content) || content.sessionDir === undefined) continue;
    if (typeof content.sessionDir !== "string") {
      throw new ConfigError(file, `sessionDir: expected a string (a folder), found ${describeKind(content.sessionDir)}`, SETTINGS_HINT);
    }
    if (content.sessionDir.trim() !== "") return resolve(cwd, expandHome(content.sessionDir));
  }
  return undefined;
}

/**
 * `httpProxy` (global file only): the proxy for xcsh's HTTP requests, set as HTTP_PROXY and
 * HTTPS_PROXY unless the environment already sets them. Bun's fetch, which every provider
 * SDK uses, reads them per request; commands xcsh runs inherit them, as under pi.
 */
export function applyHttpProxySetting(settings: Pick<Settings, "httpProxy">): void {
  const proxy = typeof settings.httpProxy === "string" ? settings.httpProxy.trim() : "";
  if (proxy === "") return;
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY"]) {
    if (!process.env[name] && !process.env[name.toLowerCase()]) process.env[name] = proxy;
  }
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
