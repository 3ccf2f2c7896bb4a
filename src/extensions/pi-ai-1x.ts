/**
 * pi-ai names that arrived between 0.87 and 1.6 and that xcsh backs with its own
 * code: the model-type checks (every model xcsh serves is a chat model; pi 1.x
 * adds classifier and image models, which xcsh has none of), the parse of a
 * finished tool call's arguments, and the two incremental parsers for streamed
 * arguments. The incremental parsers re-read the text seen so far on each piece
 * (parseStreamingJson), which is linear per piece rather than overall: correct
 * values, a cost an extension notices only on very long arguments.
 */
import { parseStreamingJson } from "../ai/json-parse.ts";

/** The pi-ai API level these modules follow (pi-ai's own `PI_AI_VERSION` names its package version). */
export const PI_AI_VERSION = "1.6.0";

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
type JsonChange = { kind: "set"; path: readonly (string | number)[]; value: JsonValue };

/** A model's type: pi 1.x tags classifier and image models; a model without `type` is a chat model. */
export function getModelType(model: { type?: unknown } | undefined): string {
  return typeof model?.type === "string" ? model.type : "chat";
}

export function isModelType(model: { type?: unknown } | undefined, type: string): boolean {
  return getModelType(model) === type;
}

/**
 * The arguments of a finished tool call. Malformed text (or anything but an object) gives
 * `{}` and an `argumentsError` that quotes what the model sent, for validation to report back.
 */
export function parseToolCallArguments(json: string | undefined): { arguments: Record<string, unknown>; argumentsError?: string } {
  if (json === undefined || json.trim() === "") return { arguments: {} };
  try {
    const value = JSON.parse(json);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return { arguments: value };
    return { arguments: {}, argumentsError: `Tool call arguments must be a JSON object, got: ${json.slice(0, 500)}` };
  } catch (error) {
    return { arguments: {}, argumentsError: `Malformed tool call arguments (${(error as Error).message}): ${json.slice(0, 500)}` };
  }
}

/** The value of JSON text that arrives in pieces; snapshots are frozen copies, never changed afterwards. */
export class StreamingJsonParser {
  #text = "";
  #snapshot: JsonValue | undefined;
  #serialized = "";

  /** Reads the next piece; the change is reported as one `set` of the whole value when it changed. */
  append(text: string): readonly JsonChange[] {
    this.#text += text;
    const value = this.#parse();
    const serialized = JSON.stringify(value) ?? "";
    if (serialized === this.#serialized) return [];
    this.#serialized = serialized;
    this.#snapshot = value === undefined ? undefined : (structuredClone(value) as JsonValue);
    return value === undefined ? [] : [{ kind: "set", path: [], value: this.#snapshot! }];
  }

  snapshot(): JsonValue | undefined {
    return this.#snapshot;
  }

  #parse(): JsonValue | undefined {
    const trimmed = this.#text.trimStart();
    if (trimmed === "") return undefined;
    try {
      return JSON.parse(trimmed) as JsonValue;
    } catch {
      // Only objects and arrays can be closed off; a partial scalar waits until it ends.
      if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return this.#snapshot;
      const value = parseStreamingJson<JsonValue>(trimmed);
      return trimmed.startsWith("[") && !Array.isArray(value) ? this.#snapshot : value;
    }
  }
}

/** One streaming tool call's arguments: the raw text, the partial arguments while it streams, one full parse at the end. */
export class ToolCallArgumentsStream {
  #text = "";
  #arguments: Record<string, unknown> = {};

  get text(): string {
    return this.#text;
  }

  append(delta: string): Record<string, unknown> {
    this.#text += delta;
    return this.#partial();
  }

  replace(text: string): { delta: string | undefined; arguments: Record<string, unknown> } {
    const delta = text.startsWith(this.#text) ? text.slice(this.#text.length) : undefined;
    this.#text = text;
    return { delta, arguments: this.#partial() };
  }

  finish(): { arguments: Record<string, unknown>; argumentsError?: string } {
    return parseToolCallArguments(this.#text);
  }

  #partial(): Record<string, unknown> {
    const value = parseStreamingJson<unknown>(this.#text);
    const next = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    // A new object only when the arguments changed, so callers can compare by identity.
    if (JSON.stringify(next) !== JSON.stringify(this.#arguments)) this.#arguments = next;
    return this.#arguments;
  }
}

/** `@…/pi-ai/models`: the model helpers of the root, on a subpath of their own since pi 1.x. */
export const MODELS_SUBPATH_NAMES = [
  "AI_TELEMETRY_SCHEMA",
  "ModelsError",
  "calculateCost",
  "clampThinkingLevel",
  "createModels",
  "createProvider",
  "getModelType",
  "getSupportedThinkingLevels",
  "hasApi",
  "isModelType",
  "modelsAreEqual",
] as const;

/** `@…/pi-ai/session-resources`. */
export const SESSION_RESOURCES_NAMES = ["cleanupSessionResources", "registerSessionResourceCleanup"] as const;
