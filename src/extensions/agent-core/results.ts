/**
 * pi-agent-core's result values and error classes (as of pi 0.87): `ok`/`err`
 * results, `TaggedError` factories with `matchError`, and the coded errors its
 * harness returns. xcsh has no harness that returns them, but an extension may
 * build, return or test for them, so they are real here: small and self-contained.
 */

export type Result<TValue, TError> = { ok: true; value: TValue } | { ok: false; error: TError };

export function ok<TValue, TError = never>(value: TValue): Result<TValue, TError> {
  return { ok: true, value };
}

export function err<TValue = never, TError = unknown>(error: TError): Result<TValue, TError> {
  return { ok: false, error };
}

function isResult(value: unknown): value is Result<unknown, unknown> {
  return typeof value === "object" && value !== null && typeof (value as { ok?: unknown }).ok === "boolean";
}

/** The value, or the error thrown as it is. */
export function getOrThrow<TValue, TError>(result: Result<TValue, TError>): TValue {
  if (!isResult(result)) throw new TypeError("getOrThrow expects a result ({ ok, value } or { ok, error })");
  if (result.ok) return result.value;
  throw result.error;
}

export function getOrUndefined<TValue extends object, TError>(result: Result<TValue, TError>): TValue | undefined {
  return isResult(result) && result.ok ? result.value : undefined;
}

/** An Error for any thrown value: strings become the message, other values their JSON. */
export function toError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (typeof error === "string") return new Error(error);
  try {
    const json = JSON.stringify(error);
    return new Error(json === undefined ? String(error) : json);
  } catch {
    return new Error(String(error));
  }
}

export const ResultNamespace = {
  ok,
  err,
  isOk: <TValue, TError>(result: Result<TValue, TError>): result is { ok: true; value: TValue } => result.ok,
  isErr: <TValue, TError>(result: Result<TValue, TError>): result is { ok: false; error: TError } => !result.ok,
};

// --- tagged errors -----------------------------------------------------------------------

export interface TaggedErrorValue<Tag extends string> extends Error {
  readonly _tag: Tag;
  toJSON(): { _tag: Tag; message: string } & Record<string, unknown>;
}

export interface TaggedErrorFactory<Tag extends string> {
  new <Props extends { message: string }>(props: Props): TaggedErrorValue<Tag> & Readonly<Props>;
  is(value: unknown): value is TaggedErrorValue<Tag>;
}

/** A base class for errors told apart by `_tag`; the constructor's props become fields. */
export function TaggedError<Tag extends string>(tag: Tag): TaggedErrorFactory<Tag> {
  if (typeof tag !== "string" || tag === "") throw new TypeError("TaggedError(tag): tag must be a non-empty string");
  class Tagged extends Error {
    readonly _tag = tag;
    constructor(props: { message: string } & Record<string, unknown>) {
      super(props?.message ?? "");
      this.name = tag;
      for (const [key, value] of Object.entries(props ?? {})) {
        if (key !== "message") (this as Record<string, unknown>)[key] = value;
      }
    }
    static is(value: unknown): value is TaggedErrorValue<Tag> {
      return value instanceof Error && (value as { _tag?: unknown })._tag === tag;
    }
    toJSON(): { _tag: Tag; message: string } & Record<string, unknown> {
      const fields = Object.fromEntries(Object.entries(this).filter(([key]) => key !== "_tag"));
      return { _tag: tag, message: this.message, ...fields };
    }
  }
  return Tagged as unknown as TaggedErrorFactory<Tag>;
}

/** Calls the matcher named by the error's `_tag`. */
export function matchError<TValue>(error: { _tag: string }, matchers: Record<string, (error: any) => TValue>): TValue {
  const matcher = matchers?.[error?._tag];
  if (typeof matcher !== "function") throw new Error(`matchError: no matcher for "${String(error?._tag)}"`);
  return matcher(error);
}

/** The tagged errors pi's harness defines, by tag. */
export const HARNESS_ERROR_TAGS = [
  "LaneBusy",
  "OperationMismatch",
  "NoActiveRun",
  "NoActiveOperation",
  "NothingToResume",
  "NothingToCompact",
  "InvalidMessage",
  "InvalidNavigation",
  "UnknownSkill",
  "UnknownTemplate",
  "UnknownTarget",
  "InvalidLane",
  "Closed",
] as const;

export function harnessErrorClasses(): Record<string, TaggedErrorFactory<string>> {
  return Object.fromEntries(HARNESS_ERROR_TAGS.map((tag) => [tag, TaggedError(tag)]));
}

// --- coded errors ------------------------------------------------------------------------

/** An Error with a stable `code` (and the cause it wraps), as pi's harness returns them. */
function codedError(name: string) {
  return class extends Error {
    code: string;
    constructor(code: string, message: string, cause?: Error) {
      super(message, cause === undefined ? undefined : { cause });
      this.name = name;
      this.code = code;
    }
  };
}

export const ExecutionError = codedError("ExecutionError");
export const CompactionError = codedError("CompactionError");
export const BranchSummaryError = codedError("BranchSummaryError");

export class FileError extends Error {
  code: string;
  path?: string;
  constructor(code: string, message: string, path?: string, cause?: Error) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "FileError";
    this.code = code;
    if (path !== undefined) this.path = path;
  }
}

export class HarnessFault extends Error {
  constructor(message: string, override readonly cause: unknown) {
    super(message);
    this.name = "HarnessFault";
  }
}

export class HarnessClosed extends Error {
  constructor() {
    super("The agent harness is closed");
    this.name = "HarnessClosed";
  }
}
