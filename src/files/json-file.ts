/**
 * Reading JSON config files and checking them against a typebox schema, with errors a
 * person can act on: a syntax error gets its line and column (Bun's JSON.parse reports
 * neither), a schema violation gets the field path and what was expected there.
 */
import { accessSync, closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { TSchema } from "typebox";
import type { TLocalizedValidationError } from "typebox/error";
import { fitsSchema, typeboxValue } from "../schema/validate.ts";
import { ConfigError } from "./errors.ts";
import { writePrivateFileAtomically } from "./private-files.ts";
import { readOpenFile } from "./read-open-file.ts";

/**
 * Writes `value` as indented JSON beside `file` and renames it over the file (creating
 * its folder): a reader, or a crash mid-write, sees the old file or the new one, never half.
 * Config files may hold keys: the file is 0600 (private-files.ts).
 */
export function writeJsonFile(file: string, value: unknown): void {
  writePrivateFileAtomically(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The parsed content of a JSON file, or undefined when the file does not exist.
 * A file holding only whitespace counts as `{}`: an empty file is a common way to
 * start one, and nothing in it can be wrong.
 */
export function readJsonFile(file: string, hint?: string): unknown {
  if (isMissing(file)) return undefined;
  let text: string;
  try {
    text = readConfigText(file, hint);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EISDIR") throw new ConfigError(file, "is a directory, expected a JSON file", hint);
    const folder = code === "EACCES" || code === "EPERM" ? closedFolder(file) : undefined;
    if (folder !== undefined) {
      // The file may not even exist: "fix or delete the file" would send the person after nothing.
      const where = folder === process.cwd() ? "the working folder" : "the folder";
      throw new ConfigError(
        folder,
        `${where} cannot be opened (permission denied), so ${relative(folder, file)} in it cannot be looked for`,
        `Run xcsh from a folder you can open, or give yourself access to it (chmod u+rx '${folder}').`,
      );
    }
    throw new ConfigError(file, `cannot be read (${(error as Error).message})`, hint);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return {};
  // Checked before parsing: the syntax-error locator and the schema check recurse per level.
  const depth = nestingDepth(text);
  if (depth > MAX_CONFIG_DEPTH) {
    throw new ConfigError(file, `is nested ${depth} levels deep; a config file may nest at most ${MAX_CONFIG_DEPTH} levels`, hint);
  }
  try {
    return JSON.parse(text);
  } catch {
    const found = locateJsonSyntaxError(text);
    const where = found ? `${lineAndColumn(text, found.offset)}: ${found.message}` : "not valid JSON";
    throw new ConfigError(file, `invalid JSON at ${where}`, hint);
  }
}

/** Far more than any settings.json or models.json holds; a bigger one is a mistake or a trick. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/**
 * The file's text, read only when it is a regular file of at most MAX_CONFIG_BYTES. A cloned
 * repository chooses what its `.xcsh/settings.json` is: a pipe would hold the start for ever
 * (opened without blocking, then asked what it is), a 2 GB file would be read whole.
 */
function readConfigText(file: string, hint?: string): string {
  const descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stat = fstatSync(descriptor);
    if (stat.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    if (!stat.isFile()) throw new ConfigError(file, "is not a regular file (a pipe, a socket or a device), expected a JSON file", hint);
    if (stat.size > MAX_CONFIG_BYTES) throw new ConfigError(file, `is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB, too large for a config file`, hint);
    return readOpenFile(descriptor, stat.size).toString("utf8");
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Nothing at `path`. A missing config file is the common case, seen here without
 * building an error (the first one costs the process ~1 MiB before its first answer).
 * Anything else wrong (no permission) is left for the read to report.
 */
function isMissing(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** The outermost folder on `file`'s path that this process may not enter, else undefined. */
function closedFolder(file: string): string | undefined {
  const folders: string[] = [];
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    folders.unshift(folder);
    if (dirname(folder) === folder) break;
  }
  return folders.find((folder) => {
    try {
      accessSync(folder, constants.X_OK);
      return false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "EACCES" || code === "EPERM";
    }
  });
}

/** Far more than any settings.json or models.json needs, far less than a recursion can take. */
export const MAX_CONFIG_DEPTH = 64;

/** The deepest nesting of `[` and `{` outside strings, in one pass without recursion. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Where `text` stops being valid JSON and why; undefined when it is valid. */
export function locateJsonSyntaxError(text: string): { offset: number; message: string } | undefined {
  let pos = 0;
  const fail = (message: string, at = pos): never => {
    throw new JsonSyntaxError(at, message);
  };
  const describe = (at: number) => (at >= text.length ? "end of file" : `character ${JSON.stringify(text[at])}`);
  const skipWhitespace = () => {
    while (pos < text.length && " \t\r\n".includes(text[pos])) pos++;
  };
  const expect = (char: string, what: string) => {
    skipWhitespace();
    if (text[pos] !== char) fail(`expected ${what} but found ${describe(pos)}`);
    pos++;
  };

  const parseString = () => {
    const start = pos;
    pos++; // opening quote
    while (pos < text.length) {
      const char = text[pos];
      if (char === '"') {
        pos++;
        return;
      }
      if (char === "\\") {
        const escape = text[pos + 1];
        if (escape === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) fail("invalid \\u escape in string");
          pos += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
          pos += 2;
        } else {
          fail(`invalid escape "\\${escape ?? ""}" in string`);
        }
        continue;
      }
      if (char.charCodeAt(0) < 0x20) fail("line break or control character inside a string");
      pos++;
    }
    fail("unterminated string", start);
  };

  const parseLiteral = (word: string) => {
    if (text.startsWith(word, pos)) pos += word.length;
    else fail(`unexpected ${describe(pos)}`);
  };

  const parseNumber = () => {
    const pattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    pattern.lastIndex = pos;
    const match = pattern.exec(text);
    if (!match) fail(`invalid number`);
    pos += match![0].length;
  };

  const parseObject = () => {
    pos++; // {
    let comma: number | undefined;
    skipWhitespace();
    if (text[pos] === "}") {
      pos++;
      return;
    }
    for (;;) {
      skipWhitespace();
      if (text[pos] === "}" && comma !== undefined) fail("trailing comma before '}'", comma);
      if (text[pos] !== '"') fail(`expected a property name in double quotes but found ${describe(pos)}`);
      parseString();
      expect(":", "':' after the property name");
      parseValue();
      skipWhitespace();
      if (text[pos] === ",") {
        comma = pos++;
        continue;
      }
      if (text[pos] === "}") {
        pos++;
        return;
      }
      fail(`expected ',' or '}' but found ${describe(pos)}`);
    }
  };

  const parseArray = () => {
    pos++; // [
    let comma: number | undefined;
    skipWhitespace();
    if (text[pos] === "]") {
      pos++;
      return;
    }
    for (;;) {
      skipWhitespace();
      if (text[pos] === "]" && comma !== undefined) fail("trailing comma before ']'", comma);
      parseValue();
      skipWhitespace();
      if (text[pos] === ",") {
        comma = pos++;
        continue;
      }
      if (text[pos] === "]") {
        pos++;
        return;
      }
      fail(`expected ',' or ']' but found ${describe(pos)}`);
    }
  };

  function parseValue(): void {
    skipWhitespace();
    const char = text[pos];
    if (char === "{") return parseObject();
    if (char === "[") return parseArray();
    if (char === '"') return parseString();
    if (char === "t") return parseLiteral("true");
    if (char === "f") return parseLiteral("false");
    if (char === "n") return parseLiteral("null");
    if (char === "-" || (char >= "0" && char <= "9")) return parseNumber();
    fail(`unexpected ${describe(pos)}`);
  }

  try {
    parseValue();
    skipWhitespace();
    if (pos < text.length) fail(`unexpected ${describe(pos)} after the end of the JSON value`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { offset: error.offset, message: error.message };
    throw error;
  }
}

/**
 * Checks `value` against a schema; throws a ConfigError listing each field that
 * does not fit (at most a handful: the first ones usually explain the rest).
 * A file that fits is judged without typebox (src/schema/validate.ts says why).
 */
export function assertMatchesSchema<T>(schema: TSchema, value: unknown, file: string, hint?: string): asserts value is T {
  if (fitsSchema(schema, value)) return;
  throw new ConfigError(file, describeSchemaErrors(typeboxValue().Errors(schema, value), value), hint);
}

const MAX_REPORTED_PROBLEMS = 5;

/** One readable line per offending field: `providers.ollama.models[0].id: expected a string`. */
export function describeSchemaErrors(errors: readonly TLocalizedValidationError[], root: unknown): string[] {
  const byPath = new Map<string, TLocalizedValidationError[]>();
  for (const error of errors) {
    const path = requiredPropertyPath(error) ?? error.instancePath;
    const list = byPath.get(path) ?? [];
    list.push(error);
    byPath.set(path, list);
  }
  const problems: string[] = [];
  for (const [pointer, group] of byPath) {
    problems.push(`${formatPath(pointer)}: ${describeGroup(group, valueAt(root, pointer))}`);
    if (problems.length === MAX_REPORTED_PROBLEMS) break;
  }
  return problems;
}

/** A missing required property is reported at the property itself, not at its parent. */
function requiredPropertyPath(error: TLocalizedValidationError): string | undefined {
  if (error.keyword !== "required") return undefined;
  const [first] = (error.params as { requiredProperties: string[] }).requiredProperties;
  return `${error.instancePath}/${first.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function describeGroup(group: TLocalizedValidationError[], actual: unknown): string {
  if (group.some((error) => error.keyword === "required")) return "is required but missing";
  const allowed = group.flatMap((error) => {
    if (error.keyword === "const") return [(error.params as { allowedValue: unknown }).allowedValue];
    if (error.keyword === "enum") return (error.params as { allowedValues: unknown[] }).allowedValues;
    return [];
  });
  const got = actual === undefined ? "" : ` (got ${preview(actual)})`;
  if (allowed.length > 0) return `expected one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}${got}`;
  const types = group.filter((error) => error.keyword === "type").map((error) => typeName((error.params as { type: string | string[] }).type));
  if (types.length > 0) return `expected ${[...new Set(types)].join(" or ")}${got}`;
  const specific = group.find((error) => error.keyword !== "anyOf") ?? group[0];
  if (specific.keyword === "minLength") return "must not be empty";
  if (specific.keyword === "minimum") return `expected a number >= ${(specific.params as { limit: number }).limit}${got}`;
  return `${specific.message}${got}`;
}

function typeName(type: string | string[]): string {
  if (Array.isArray(type)) return type.map(typeName).join(" or ");
  const names: Record<string, string> = {
    string: "a string",
    number: "a number",
    integer: "a whole number",
    boolean: "true or false",
    object: "an object",
    array: "an array",
    null: "null",
  };
  return names[type] ?? type;
}

function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}...` : json;
}

/** The segments of a JSON pointer (`/a/b~1c` → ["a", "b/c"]). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value a JSON pointer names inside `root`; undefined when the path is not there. */
export function valueAt(root: unknown, pointer: string): unknown {
  let current = root;
  for (const segment of pointerSegments(pointer)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** A JSON pointer for path segments: `["providers", "a/b", 0]` → `/providers/a~1b/0`. */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** `/providers/ollama/models/0/id` → `providers.ollama.models[0].id`; odd keys are quoted. */
export function formatPath(pointer: string): string {
  let out = "";
  for (const segment of pointerSegments(pointer)) {
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out || "(top level)";
}
