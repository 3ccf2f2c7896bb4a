/**
 * What an untrusted project's `retry` setting may still do: retry less, never more. A
 * repository could otherwise make xcsh retry a failing provider without end (or wait on
 * it without end) with the user's key and money: `maxRetries: 1e9`, `maxAgentDelayMs: 0`.
 * Each number counts only when it is at most the user's own value (or the default where
 * the user set none); `enabled` only when it turns retrying off. The SDK's own
 * `provider.maxRetries` and `provider.timeoutMs` have no default here (the SDK keeps its
 * own), so an untrusted project may only set them to at most the user's value, and
 * `provider.maxRetries` to 0. A 0 that means "no cap" (`maxAgentDelayMs`,
 * `provider.maxRetryDelayMs`) counts only when the user's is 0 too. Pure: the two files'
 * values in, the part that applies and the dotted names of the parts left out back.
 */

export interface ProjectRetryPart {
  /** The part of the project's `retry` that applies untrusted; undefined: nothing does. */
  kept?: Record<string, unknown>;
  /** Dotted names of the parts left out (`retry.maxRetries`, …). */
  ignored: string[];
}

/** The defaults of settings.ts DEFAULT_SETTINGS.retry, for a user who set none. */
export interface RetryDefaults {
  maxRetries: number;
  baseDelayMs: number;
  maxAgentDelayMs: number;
  maxRetryDelayMs: number;
}

/** A cap whose 0 means "no cap": larger is looser, and 0 is loosest. */
function capAtMost(value: unknown, limit: number): boolean {
  if (typeof value !== "number") return false;
  if (limit === 0) return true;
  return value > 0 && value <= limit;
}

function atMost(value: unknown, limit: number | undefined): boolean {
  return typeof value === "number" && limit !== undefined && value <= limit;
}

/** The no-more-than-the-user's part of an untrusted project's `retry`. */
export function boundedRetryPart(project: unknown, user: unknown, defaults: RetryDefaults): ProjectRetryPart {
  if (project === undefined) return { ignored: [] };
  if (!isRecord(project)) return { ignored: ["retry"] };
  const mine = isRecord(user) ? user : {};
  const myProvider = isRecord(mine.provider) ? mine.provider : {};
  const numberOr = (value: unknown, fallback: number) => (typeof value === "number" ? value : fallback);
  const kept: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(project)) {
    if (key === "provider") {
      if (!isRecord(value)) {
        ignored.push("retry.provider");
        continue;
      }
      const provider: Record<string, unknown> = {};
      for (const [name, setting] of Object.entries(value)) {
        const applies =
          name === "maxRetries"
            ? setting === 0 || atMost(setting, typeof myProvider.maxRetries === "number" ? myProvider.maxRetries : undefined)
            : name === "timeoutMs"
              ? atMost(setting, typeof myProvider.timeoutMs === "number" ? myProvider.timeoutMs : undefined)
              : name === "maxRetryDelayMs"
                ? capAtMost(setting, numberOr(myProvider.maxRetryDelayMs, defaults.maxRetryDelayMs))
                : false;
        if (applies) provider[name] = setting;
        else ignored.push(`retry.provider.${name}`);
      }
      if (Object.keys(provider).length > 0) kept.provider = provider;
      continue;
    }
    const applies =
      key === "enabled"
        ? value === false || (value === true && mine.enabled !== false)
        : key === "maxRetries"
          ? atMost(value, numberOr(mine.maxRetries, defaults.maxRetries))
          : key === "baseDelayMs"
            ? atMost(value, numberOr(mine.baseDelayMs, defaults.baseDelayMs))
            : key === "maxAgentDelayMs"
              ? capAtMost(value, numberOr(mine.maxAgentDelayMs, defaults.maxAgentDelayMs))
              : false;
    if (applies) kept[key] = value;
    else ignored.push(`retry.${key}`);
  }
  return { ...(Object.keys(kept).length > 0 ? { kept } : {}), ignored };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
