/**
 * How a headless run ended, as a CI pipeline reads it: one exit code from a fixed
 * table (the same for `-p`, `--mode json` and `--output-format json`), and the
 * result envelope — the last line of json mode, the only output of
 * `--output-format json`. docs/headless.md documents both; change them together.
 */
import { isTransientError } from "../../ai/errors.ts";
import type { Usage } from "../../ai/types.ts";
import type { RunLimitReason } from "../../core/run-limits.ts";
import { MissingSessionCwdError } from "../../core/session-cwd.ts";

/** `truncated`: the last answer stopped at the model's output token limit (stopReason "length"); its partial text is kept. */
export type RunStatus = "success" | "error" | "truncated" | RunLimitReason | "interrupted";

/** What kind of failure: decides the exit code, and tells a pipeline whether trying again may help. */
export type RunErrorKind = "usage" | "config" | "session" | "credentials" | "provider" | "model" | "internal";

export interface RunError {
  kind: RunErrorKind;
  message: string;
  /** True when the same run may succeed later unchanged (overload, rate limit, 5xx, dropped connection). */
  retryable: boolean;
  httpStatus?: number;
}

export interface ResultEnvelope {
  type: "result";
  status: RunStatus;
  /** The stopReason of the run's last model response ("stop", "toolUse", "error", "aborted", …), null when none came. */
  stopReason: string | null;
  turns: number;
  usage: Usage;
  costUsd: number;
  durationMs: number;
  sessionId: string | null;
  sessionFile: string | null;
  /** Files the edit and write tools changed, relative to the working directory when inside it. */
  filesChanged: string[];
  error?: RunError;
}

/** Exit codes by outcome. 141 (stdout closed) is set in ../protocol-output.ts. */
export const EXIT_CODES = {
  success: 0,
  error: 1,
  // As pi 1.6.0: the partial answer is printed, and the exit status says it is partial.
  truncated: 1,
  usage: 2,
  credentials: 3,
  provider: 4,
  max_turns: 5,
  max_cost: 6,
  timeout: 7,
  idle_timeout: 7,
  interrupted: 130,
} as const;

export function exitCodeFor(status: RunStatus, error?: RunError): number {
  if (status !== "error") return EXIT_CODES[status];
  switch (error?.kind) {
    case "usage":
    case "config":
      return EXIT_CODES.usage;
    case "credentials":
      return EXIT_CODES.credentials;
    case "provider":
      return EXIT_CODES.provider;
    default:
      return EXIT_CODES.error;
  }
}

/** A response that ended in a provider failure (its errorMessage starts with the HTTP status when there was one). */
export function classifyProviderError(errorMessage: string, retryAdvised = false): RunError {
  const status = /^(\d{3})\b/.exec(errorMessage);
  const httpStatus = status ? Number(status[1]) : undefined;
  const withStatus = httpStatus === undefined ? {} : { httpStatus };
  if (httpStatus === 401 || httpStatus === 403 || /^No API key\b/i.test(errorMessage)) {
    return { kind: "credentials", message: errorMessage, retryable: false, ...withStatus };
  }
  // Auto-retry has already run out of attempts by the time a transient error ends the run.
  // The provider's own `x-should-retry: true` (retryAdvised) makes even a 409 worth trying later.
  if (isTransientError(errorMessage, retryAdvised)) return { kind: "provider", message: errorMessage, retryable: true, ...withStatus };
  return { kind: "model", message: errorMessage, retryable: false, ...withStatus };
}

/** A failure thrown before the model was asked: bad flags, config, model or key. */
export function classifyThrown(error: unknown): RunError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === "ConfigError") return { kind: "config", message, retryable: false };
  if (error instanceof Error && error.name === "UserError") {
    const exitCode = (error as { exitCode?: number }).exitCode;
    if (exitCode === EXIT_CODES.credentials) return { kind: "credentials", message, retryable: false };
    // The session asked for cannot open where it was recorded (its folder is gone): exit 1, as pi.
    if (error instanceof MissingSessionCwdError) return { kind: "session", message, retryable: false };
    // Everything else a user can fix is about how xcsh was called or configured.
    return { kind: "usage", message, retryable: false };
  }
  return { kind: "internal", message, retryable: false };
}
