/**
 * Keys a config file sets that xcsh does not know: usually a typo ("colour",
 * "reserveToken"), which would otherwise be ignored without a word. They are
 * kept (the files are shared with other tools and versions) but reported once
 * per key and process, naming the file, the JSON path and the nearest known key.
 */
import type { TSchema } from "typebox";
import { nearestName } from "./nearest-name.ts";

type Schema = TSchema & {
  type?: string;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
};

const reported = new Set<string>();
let pending: string[] = [];

/** The warnings noted since the last call (shown by whoever runs the session: stderr). */
export function takeConfigWarnings(): string[] {
  const taken = pending;
  pending = [];
  return taken;
}

/** Notes a warning once per `id` and process (the same file is read by several parts of xcsh). */
export function noteConfigWarning(id: string, warning: string): void {
  if (reported.has(id)) return;
  reported.add(id);
  pending.push(warning);
}

/** Notes a warning for each key of `value` that `schema` does not describe, once per key and process. */
export function noteUnknownKeys(schema: TSchema, value: unknown, file: string): void {
  pending.push(...unknownKeyWarnings(schema, value, file));
}

/**
 * A key as the warning shows it: control characters written as JSON escapes (`\u001b`). A
 * cloned repository's settings file names its own keys, and one holding an escape sequence
 * must not reach the terminal through the warning; everyday keys are unchanged.
 */
const shown = (key: string): string => key.replace(/[\x00-\x1f\x7f-\x9f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);

export function unknownKeyWarnings(schema: TSchema, value: unknown, file: string): string[] {
  const warnings: string[] = [];
  walk(schema as Schema, value, [], (path, key, known) => {
    const where = [...path, key].join(".");
    const id = `${file}\0${where}`;
    if (reported.has(id)) return;
    reported.add(id);
    const nearest = nearestName(key, known);
    warnings.push(`${file}: unknown key "${shown(key)}" at ${shown(where)}${nearest ? ` (did you mean "${nearest}"?)` : ""}; it is ignored`);
  });
  return warnings;
}

function walk(schema: Schema, value: unknown, path: string[], report: (path: string[], key: string, known: string[]) => void): void {
  if (Array.isArray(value)) {
    if (schema.type !== "array" || !schema.items) return;
    // models[0] is one path element: the index goes onto the key that holds the array.
    const parent = path.slice(0, -1);
    const key = path.at(-1) ?? "";
    value.forEach((item, index) => walk(schema.items!, item, [...parent, `${key}[${index}]`], report));
    return;
  }
  if (typeof value !== "object" || value === null || schema.type !== "object") return;
  const record = schema.patternProperties ? Object.values(schema.patternProperties)[0] : undefined;
  for (const [key, child] of Object.entries(value)) {
    const property = schema.properties?.[key] ?? record;
    if (property) walk(property, child, [...path, key], report);
    else if (schema.properties) report(path, key, Object.keys(schema.properties));
  }
}
