/**
 * The shape of every RPC command (seeds 000 and 001): one typebox schema per command
 * type, checked before the command's handler runs. A command that does not fit changes
 * nothing and is answered with an error naming each offending field and what it must be
 * (`"images[0]" must be an image ({type:"image", data, mimeType}) (got null)`). Fields a
 * schema does not name are allowed: hosts add their own. The `id` is not checked here;
 * rpc-mode echoes it when it is a string or a number.
 *
 * Schemas are interpreted, not compiled, as in config/json-file.ts: a command is a
 * small object checked once, and paths are written the way that file writes them. A
 * command that fits is judged without loading typebox (src/schema/validate.ts).
 */
import type { Static, TProperties, TSchema } from "typebox";
import { lazySchema } from "../../schema/lazy.ts";
import { Type } from "../../schema/type.ts";
import { fitsSchema, typeboxValue } from "../../schema/validate.ts";
import { THINKING_LEVELS } from "../../ai/types.ts";
import { formatPath, pointerSegments, valueAt } from "../../config/json-file.ts";
import type { RpcCommand, RpcCommandType } from "./rpc-types.ts";

/** `expected`: how an error names a valid value, where the schema alone would say too little. */
const expected = (text: string) => ({ expected: text });

/**
 * Standard, padded base64. A `data:` URL, line breaks or a torn string would reach the
 * provider inside the session's context and fail every later turn. (One flat character
 * class: a grouped pattern gives up on a multi-megabyte image in JavaScriptCore. So the
 * length, a multiple of 4, is checked after the schema: see `tornImageProblem`.)
 */
const BASE64_EXPECTED = 'base64 text, without a "data:" prefix';
const IMAGE_SHAPE = '{type:"image", data, mimeType}';

// Built when a command that uses them first arrives (src/schema/lazy.ts says why).
const images = lazySchema(() => {
  const Base64 = Type.String({ minLength: 1, pattern: "^[A-Za-z0-9+/]*={0,2}$", ...expected(BASE64_EXPECTED) });
  const ImageContent = Type.Object(
    {
      type: Type.Literal("image"),
      data: Base64,
      mimeType: Type.String({ pattern: "^image/[A-Za-z0-9.+-]+$", ...expected('an image MIME type such as "image/png"') }),
    },
    expected(`an image (${IMAGE_SHAPE})`),
  );
  return Type.Optional(Type.Array(ImageContent, expected(`an array of images (${IMAGE_SHAPE})`)));
});

const queueMode = () => Type.Enum(["all", "one-at-a-time"]);
const tokenCount = () => Type.Number({ minimum: 0 });

const todoPhases = lazySchema(() => {
  /** Task text: normalized by trimming, so blank text would be an empty task. */
  const TaskText = Type.String({ pattern: "\\S", ...expected("a non-empty string") });
  const TodoTask = Type.Union(
    [TaskText, Type.Object({ id: Type.Optional(Type.String()), content: TaskText, status: Type.Optional(Type.String()) })],
    expected("a task: a non-empty string, or {id?, content, status?}"),
  );
  const TodoPhase = Type.Object(
    { id: Type.Optional(Type.String()), name: Type.Optional(Type.String()), tasks: Type.Optional(Type.Array(TodoTask)) },
    expected("a phase ({id?, name?, tasks?})"),
  );
  return Type.Array(TodoPhase, expected("an array of phases ({id?, name?, tasks?})"));
});

const hostTools = lazySchema(() => {
  const HostTool = Type.Object(
    {
      name: Type.String({ pattern: "^[a-zA-Z0-9_-]{1,64}$", ...expected('1-64 letters, digits, "_" or "-"') }),
      label: Type.Optional(Type.String()),
      description: Type.String(),
      parameters: Type.Record(Type.String(), Type.Unknown(), expected("a JSON Schema object")),
    },
    expected("a tool ({name, label?, description, parameters})"),
  );
  return Type.Array(HostTool, expected("an array of tools ({name, label?, description, parameters})"));
});

function command<T extends RpcCommandType, P extends TProperties = {}>(type: T, properties: P = {} as P) {
  return Type.Object({ type: Type.Literal(type), ...properties });
}

/** How to build each command type's schema: the spec's shapes, as `RpcCommand` declares them. */
const COMMAND_SCHEMA_BUILDERS = {
  prompt: () => command("prompt", { message: Type.String(), images: images(), streamingBehavior: Type.Optional(Type.Enum(["steer", "followUp"])) }),
  steer: () => command("steer", { message: Type.String(), images: images() }),
  follow_up: () => command("follow_up", { message: Type.String(), images: images() }),
  abort: () => command("abort"),
  clear_queue: () => command("clear_queue"),
  abort_and_prompt: () => command("abort_and_prompt", { message: Type.String(), images: images() }),
  new_session: () => command("new_session", { parentSession: Type.Optional(Type.String()) }),
  get_state: () => command("get_state"),
  get_messages: () => command("get_messages"),
  set_model: () => command("set_model", { provider: Type.String(), modelId: Type.String() }),
  cycle_model: () => command("cycle_model"),
  get_available_models: () => command("get_available_models"),
  set_thinking_level: () => command("set_thinking_level", { level: Type.Enum([...THINKING_LEVELS, "max"]) }),
  cycle_thinking_level: () => command("cycle_thinking_level"),
  get_available_thinking_levels: () => command("get_available_thinking_levels"),
  set_steering_mode: () => command("set_steering_mode", { mode: queueMode() }),
  set_follow_up_mode: () => command("set_follow_up_mode", { mode: queueMode() }),
  set_interrupt_mode: () => command("set_interrupt_mode", { mode: Type.Enum(["immediate", "wait"]) }),
  compact: () => command("compact", {
    customInstructions: Type.Optional(Type.String()),
    reserveTokens: Type.Optional(tokenCount()),
    keepRecentTokens: Type.Optional(tokenCount()),
  }),
  set_auto_compaction: () => command("set_auto_compaction", { enabled: Type.Boolean() }),
  set_auto_retry: () => command("set_auto_retry", { enabled: Type.Boolean() }),
  abort_retry: () => command("abort_retry"),
  bash: () => command("bash", { command: Type.String(), excludeFromContext: Type.Optional(Type.Boolean()) }),
  abort_bash: () => command("abort_bash"),
  get_session_stats: () => command("get_session_stats"),
  export_html: () => command("export_html", { outputPath: Type.Optional(Type.String()) }),
  switch_session: () => command("switch_session", { sessionPath: Type.String() }),
  fork: () => command("fork", { entryId: Type.String() }),
  branch: () => command("branch", { entryId: Type.String() }),
  clone: () => command("clone"),
  get_fork_messages: () => command("get_fork_messages"),
  get_branch_messages: () => command("get_branch_messages"),
  get_entries: () => command("get_entries", { since: Type.Optional(Type.String({ ...expected("an entry id (a string)") })) }),
  get_tree: () => command("get_tree"),
  get_last_assistant_text: () => command("get_last_assistant_text"),
  set_session_name: () => command("set_session_name", { name: Type.String() }),
  get_commands: () => command("get_commands"),
  set_todos: () => command("set_todos", { phases: todoPhases() }),
  set_host_tools: () => command("set_host_tools", { tools: hostTools() }),
};

type CommandSchemaBuilders = typeof COMMAND_SCHEMA_BUILDERS;
export type CommandSchema<T extends RpcCommandType> = ReturnType<CommandSchemaBuilders[T]>;

export const COMMAND_TYPES = Object.keys(COMMAND_SCHEMA_BUILDERS) as RpcCommandType[];
const builtSchemas = new Map<RpcCommandType, TSchema>();

/** The schema of one command type, built the first time that type arrives. */
export function commandSchema<T extends RpcCommandType>(type: T): CommandSchema<T> {
  let schema = builtSchemas.get(type);
  if (!schema) builtSchemas.set(type, (schema = COMMAND_SCHEMA_BUILDERS[type]()));
  return schema as CommandSchema<T>;
}

// A schema and its `RpcCommand` member must describe the same object: this fails to
// type-check when one changes without the other, or when a command has no schema.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type ShapeOf<T extends RpcCommandType> = Omit<Extract<RpcCommand, { type: T }>, "id">;
type AllTrue<T extends Record<RpcCommandType, true>> = T;
export type SchemasMatchCommandTypes = AllTrue<{ [T in RpcCommandType]: Same<Static<CommandSchema<T>>, ShapeOf<T>> }>;

const MAX_REPORTED_FIELDS = 3;

/** Undefined when the command fits its schema; otherwise what is wrong, one clause per field. */
export function commandProblem(frame: RpcCommand): string | undefined {
  const schema: TSchema = commandSchema(frame.type);
  if (!fitsSchema(schema, frame)) return describeProblems(schema, frame);
  return tornImageProblem(frame);
}

/** An image whose base64 length is not a multiple of 4 was cut short somewhere. */
function tornImageProblem(frame: RpcCommand): string | undefined {
  const images = "images" in frame ? frame.images : undefined;
  const index = images?.findIndex((image) => image.data.length % 4 !== 0) ?? -1;
  if (index < 0) return undefined;
  return `"images[${index}].data" must be ${BASE64_EXPECTED} (got ${preview(images![index].data)})`;
}

interface Problem {
  /** The schema the value at this path had to fit (the outermost, for a union). */
  node: TSchema;
  depth: number;
  missing: boolean;
}

function describeProblems(schema: TSchema, value: unknown): string {
  const problems = new Map<string, Problem>();
  const note = (pointer: string, problem: Problem) => {
    const known = problems.get(pointer);
    // A union's own node describes the value better than any one of its branches.
    if (!known || problem.depth < known.depth) problems.set(pointer, problem);
  };
  for (const error of typeboxValue().Errors(schema, value)) {
    const segments = pointerSegments(error.schemaPath.replace(/^#/, ""));
    const node = nodeAt(schema, segments);
    if (error.keyword === "required") {
      for (const name of (error.params as { requiredProperties: string[] }).requiredProperties) {
        const property = (node as { properties?: Record<string, TSchema> }).properties?.[name] ?? {};
        note(`${error.instancePath}/${escapePointer(name)}`, { node: property, depth: segments.length + 2, missing: true });
      }
    } else {
      note(error.instancePath, { node, depth: segments.length, missing: false });
    }
  }
  // A value that fits no branch of a union also gets errors from inside the branch it
  // was closest to; those deeper fields are the ones to fix.
  const pointers = [...problems.keys()];
  const innermost = pointers.filter((pointer) => !pointers.some((other) => other.startsWith(`${pointer}/`)));
  return innermost
    .slice(0, MAX_REPORTED_FIELDS)
    .map((pointer) => {
      const { node, missing } = problems.get(pointer)!;
      const field = `"${formatPath(pointer)}"`;
      if (missing) return `${field} is required and must be ${describe(node)}`;
      return `${field} must be ${describe(node)} (got ${preview(valueAt(value, pointer))})`;
    })
    .join("; ");
}

/** What a valid value is, in words: `a string`, `"steer" or "followUp"`, `an image (…)`. */
function describe(node: TSchema): string {
  const schema = node as Record<string, any>;
  if (typeof schema.expected === "string") return schema.expected;
  if ("const" in schema) return JSON.stringify(schema.const);
  const choices: unknown[] | undefined =
    schema.enum ?? (Array.isArray(schema.anyOf) && schema.anyOf.every((branch: object) => "const" in branch) ? schema.anyOf.map((branch: { const: unknown }) => branch.const) : undefined);
  if (choices) {
    const quoted = choices.map((choice) => JSON.stringify(choice));
    return quoted.length === 2 ? `${quoted[0]} or ${quoted[1]}` : `one of: ${quoted.join(", ")}`;
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(describe).join(", or ");
  switch (schema.type) {
    case "string":
      return schema.minLength ? "a non-empty string" : "a string";
    case "number":
    case "integer": {
      const kind = schema.type === "integer" ? "a whole number" : "a number";
      return typeof schema.minimum === "number" ? `${kind} >= ${schema.minimum}` : kind;
    }
    case "boolean":
      return "true or false";
    case "array":
      return "an array";
    case "object":
      return "an object";
    default:
      return "valid";
  }
}

const PREVIEW_LENGTH = 40;

/**
 * The value as JSON, cut to 40 characters; long strings are cut first, so a large image
 * costs nothing. Only as much of the value is walked as the preview shows: an array
 * nested 100,000 deep (which JSON.stringify cannot take) or a huge one costs nothing either.
 */
function preview(value: unknown): string {
  if (value === undefined) return "undefined";
  let json = "";
  /** False once the preview is long enough: the walk stops there. */
  const add = (text: string) => (json += text).length <= PREVIEW_LENGTH;
  const walk = (item: unknown): boolean => {
    if (typeof item === "string") return add(JSON.stringify(item.length > PREVIEW_LENGTH ? item.slice(0, PREVIEW_LENGTH) : item));
    if (item === null || typeof item !== "object") return add(JSON.stringify(item) ?? "null");
    const array = Array.isArray(item);
    if (!add(array ? "[" : "{")) return false;
    const keys = array ? item.keys() : Object.keys(item);
    let first = true;
    for (const key of keys) {
      if (!first && !add(",")) return false;
      if (!array && !add(`${JSON.stringify(key)}:`)) return false;
      if (!walk((item as Record<string | number, unknown>)[key])) return false;
      first = false;
    }
    return add(array ? "]" : "}");
  };
  walk(value);
  return json.length > PREVIEW_LENGTH ? `${json.slice(0, 37)}...` : json;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function nodeAt(schema: TSchema, segments: string[]): TSchema {
  let node: unknown = schema;
  for (const segment of segments) node = (node as Record<string, unknown> | undefined)?.[segment];
  return (node ?? {}) as TSchema;
}

