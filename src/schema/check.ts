/**
 * A fast yes to "does this value fit this schema?", without loading typebox. It knows
 * the JSON Schema keywords xcsh's own schemas use (src/schema/type.ts builds them),
 * with typebox's meaning for each: `number` is finite, lengths count code points,
 * patterns are Unicode, an optional property may hold `undefined`. A schema with any
 * other keyword — a `$ref`, a `format`, a typebox refinement — is not judged here.
 *
 * `judge` answers true or false when every keyword it met is one of those, and
 * undefined otherwise; the caller then asks typebox, which decides and words the
 * errors (src/schema/validate.ts). So a valid config file or command never loads
 * typebox, and a gap in this module can only cost time, never accept a bad value.
 * test/schema/check.test.ts holds it to typebox on random values.
 */
import type { TSchema } from "typebox";

type Schema = Record<string, unknown>;

/** Keywords that describe and never constrain. `expected` is xcsh's own wording for errors. */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "expected", "$comment", "deprecated", "readOnly", "writeOnly"]);
const CONSTRAINTS = new Set([
  "type",
  "required",
  "properties",
  "additionalProperties",
  "patternProperties",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "const",
  "enum",
  "anyOf",
]);
/** typebox's hidden markers that do not change what fits. `~refine`, `~codec` and the like do. */
const NEUTRAL_MARKERS = new Set(["~kind", "~optional", "~readonly", "~unsafe"]);
const TYPE_NAMES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

const judgeable = new WeakMap<object, boolean>();

/** Whether every keyword of this one schema node (not its children) is understood here. */
function isJudgeable(schema: Schema): boolean {
  let known = judgeable.get(schema);
  if (known === undefined) {
    known = Object.getOwnPropertyNames(schema).every((key) =>
      key.startsWith("~") ? NEUTRAL_MARKERS.has(key) : CONSTRAINTS.has(key) || ANNOTATIONS.has(key),
    );
    if (known && "type" in schema) known = [schema.type].flat().every((name) => TYPE_NAMES.has(name as string));
    if (known && "const" in schema) known = isValueLike(schema.const);
    if (known && "enum" in schema) known = Array.isArray(schema.enum) && schema.enum.every(isValueLike);
    if (known && "items" in schema) known = isSchemaObject(schema.items);
    if (known && "additionalProperties" in schema) known = typeof schema.additionalProperties === "boolean" || isSchemaObject(schema.additionalProperties);
    judgeable.set(schema, known);
  }
  return known;
}

function isValueLike(value: unknown): boolean {
  return value === null || value === undefined || ["string", "number", "boolean", "bigint"].includes(typeof value);
}

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const patterns = new Map<string, RegExp>();
function unicodeRegExp(pattern: string): RegExp {
  let regexp = patterns.get(pattern);
  if (!regexp) patterns.set(pattern, (regexp = new RegExp(pattern, "u")));
  return regexp;
}

/** `key in value`, except for the keys that would find the prototype's (as typebox does). */
function hasKey(value: object, key: string): boolean {
  return key === "__proto__" || key === "constructor" || key === "prototype" ? Object.prototype.hasOwnProperty.call(value, key) : key in value;
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

function isType(name: unknown, value: unknown): boolean {
  switch (name) {
    case "object":
      return isSchemaObject(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "number":
      return Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    default:
      return value === null;
  }
}

function fitsObject(schema: Schema, value: Record<string, unknown>): boolean {
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (!required.every((key) => hasKey(value, key))) return false;
  const properties = schema.properties as Record<string, Schema> | undefined;
  const patternProperties = schema.patternProperties as Record<string, Schema> | undefined;
  if (properties) {
    for (const [key, property] of Object.entries(properties)) {
      if (!hasKey(value, key)) continue;
      if (value[key] === undefined && !required.includes(key)) continue;
      if (!fits(property, value[key])) return false;
    }
  }
  if (patternProperties) {
    for (const [pattern, property] of Object.entries(patternProperties)) {
      const regexp = unicodeRegExp(pattern);
      for (const [key, item] of Object.entries(value)) if (regexp.test(key) && !fits(property, item)) return false;
    }
  }
  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== true) {
    for (const key of Object.getOwnPropertyNames(value)) {
      if (properties && Object.hasOwn(properties, key)) continue;
      if (patternProperties && Object.keys(patternProperties).some((pattern) => unicodeRegExp(pattern).test(key))) continue;
      if (additional === false || !fits(additional as Schema, value[key])) return false;
    }
  }
  return true;
}

function fitsArray(schema: Schema, value: unknown[]): boolean {
  if (typeof schema.minItems === "number" && value.length < schema.minItems) return false;
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return false;
  const items = schema.items as Schema | undefined;
  return !items || value.every((item) => fits(items, item));
}

function fitsString(schema: Schema, value: string): boolean {
  if (typeof schema.minLength === "number" && codePoints(value) < schema.minLength) return false;
  if (typeof schema.maxLength === "number" && codePoints(value) > schema.maxLength) return false;
  return typeof schema.pattern !== "string" || unicodeRegExp(schema.pattern).test(value);
}

function fitsNumber(schema: Schema, value: number): boolean {
  if (typeof schema.minimum === "number" && !(value >= schema.minimum)) return false;
  if (typeof schema.maximum === "number" && !(value <= schema.maximum)) return false;
  if (typeof schema.exclusiveMinimum === "number" && !(value > schema.exclusiveMinimum)) return false;
  return typeof schema.exclusiveMaximum !== "number" || value < schema.exclusiveMaximum;
}

/** Set when a schema node met on the way could not be judged: a `false` then means "cannot tell". */
let undecided = false;

function fits(schema: Schema, value: unknown): boolean {
  // A bigint is JSON's nothing; typebox compares it as a number, this module does not try.
  if (!isSchemaObject(schema) || !isJudgeable(schema) || typeof value === "bigint") {
    undecided = true;
    return false;
  }
  if ("type" in schema && ![schema.type].flat().some((name) => isType(name, value))) return false;
  if (isSchemaObject(value) && !fitsObject(schema, value)) return false;
  if (Array.isArray(value) && !fitsArray(schema, value)) return false;
  if (typeof value === "string" && !fitsString(schema, value)) return false;
  if (Number.isFinite(value) && !fitsNumber(schema, value as number)) return false;
  if ("const" in schema && value !== schema.const) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => option === value)) return false;
  return !Array.isArray(schema.anyOf) || schema.anyOf.some((option) => fits(option as Schema, value));
}

/** Whether `value` fits `schema` as typebox would decide; undefined when this module cannot tell. */
export function judge(schema: TSchema, value: unknown): boolean | undefined {
  undecided = false;
  if (fits(schema as unknown as Schema, value)) return true;
  return undecided ? undefined : false;
}

/** True only when `value` certainly fits `schema`; false when it does not, or when this module cannot tell. */
export function surelyFits(schema: TSchema, value: unknown): boolean {
  return judge(schema, value) === true;
}
