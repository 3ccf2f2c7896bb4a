/**
 * The typebox-free check may say "certainly fits" only when typebox agrees; on the
 * schemas xcsh builds itself it must agree with typebox both ways, or a valid file
 * would load typebox for nothing (and an invalid one be waved through). Random
 * values, steered to sit near each schema's edges, hold it to that.
 */
import { describe, expect, test } from "bun:test";
import TypeBox, { type TSchema } from "typebox";
import { Value } from "typebox/value";
import { runtimeProviderSchema } from "../../src/config/runtime-provider-check.ts";
import { ModelsJsonSchema } from "../../src/config/models-json.ts";
import { settingsFileSchema } from "../../src/config/settings.ts";
import { COMMAND_TYPES, commandSchema } from "../../src/modes/rpc/rpc-schemas.ts";
import { judge, surelyFits } from "../../src/schema/check.ts";
import { Type } from "../../src/schema/type.ts";
import { createAllTools } from "../../src/tools/index.ts";

let seed = 7;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

const ODD_VALUES: unknown[] = [
  undefined, null, true, false, 0, -0, 1, -1, 1.5, NaN, Infinity, 2 ** 53, "", "a", " ", "\u{1F600}", "😀😀", "image/png",
  "iVBORw0KGgo=", "data:x", [], [1], ["a"], {}, { a: 1 }, Object.create(null),
];
const ODD_KEYS = ["extra", "__proto__", "constructor", "toString", "", "a/b"];

/** A value for `schema`: usually shaped like it, sometimes not, at any depth. */
function valueFor(schema: any, depth = 0): unknown {
  if (random() < 0.12 || depth > 6) return pick(ODD_VALUES);
  if ("const" in schema) return random() < 0.8 ? schema.const : pick(ODD_VALUES);
  if (Array.isArray(schema.enum)) return random() < 0.8 ? pick(schema.enum) : pick(ODD_VALUES);
  if (Array.isArray(schema.anyOf)) return valueFor(pick(schema.anyOf), depth + 1);
  switch (schema.type) {
    case "string": {
      const length = schema.minLength ? pick([0, schema.minLength - 1, schema.minLength, schema.minLength + 2]) : Math.floor(random() * 4);
      return pick(["x", "😀", "A", "=", "/", "image/png"]).repeat(Math.max(0, length));
    }
    case "number":
    case "integer": {
      const edge = typeof schema.minimum === "number" ? schema.minimum : 0;
      return pick([edge, edge - 1, edge + 0.5, edge + 1, -edge - 0.5, NaN, Infinity]);
    }
    case "boolean":
      return random() < 0.5;
    case "null":
      return null;
    case "array":
      return Array.from({ length: Math.floor(random() * 3) }, () => valueFor(schema.items ?? {}, depth + 1));
    case "object": {
      const value: Record<string, unknown> = {};
      const properties = Object.entries(schema.properties ?? {});
      // About eight properties each: on a schema with dozens (settings.json) a value with all of them set would almost never fit.
      const skip = Math.max(0.15, 1 - 8 / properties.length);
      for (const [key, property] of properties) {
        const roll = random();
        if (roll < skip) continue;
        value[key] = roll < skip + 0.05 ? undefined : valueFor(property, depth + 1);
      }
      for (const property of Object.values(schema.patternProperties ?? {})) {
        for (let i = Math.floor(random() * 3); i > 0; i--) value[`k${i}`] = valueFor(property, depth + 1);
      }
      if (random() < 0.15) Object.defineProperty(value, pick(ODD_KEYS), { value: pick(ODD_VALUES), enumerable: true, configurable: true, writable: true });
      return value;
    }
    default:
      return pick(ODD_VALUES);
  }
}

const XCSH_SCHEMAS: [string, TSchema][] = [
  ["settings.json", settingsFileSchema()],
  ["models.json", ModelsJsonSchema],
  ["a provider registered at runtime", runtimeProviderSchema()],
  ...Object.values(createAllTools("/tmp")).map((tool): [string, TSchema] => [`the ${tool.name} tool's arguments`, tool.parameters]),
  ...COMMAND_TYPES.map((type): [string, TSchema] => [`the ${type} command`, commandSchema(type)]),
];

describe("surelyFits", () => {
  test.each(XCSH_SCHEMAS)("agrees with typebox on %s", (_name, schema) => {
    let fitting = 0;
    for (let i = 0; i < 3000; i++) {
      const value = valueFor(schema);
      const expected = Value.Check(schema, value);
      // Never undecided on xcsh's own schemas: a bad value is refused without loading typebox.
      if (judge(schema, value) !== expected) throw new Error(`disagrees on ${Bun.inspect(value)} (typebox: ${expected})`);
      if (expected) fitting++;
    }
    // Both verdicts were exercised.
    expect(fitting).toBeGreaterThan(30);
    expect(fitting).toBeLessThan(2970);
  });

  test.each([
    ["a string", Type.String({ minLength: 2 }), "ab", "a"],
    ["code points, not UTF-16 units", Type.String({ maxLength: 1 }), "😀", "ab"],
    ["a Unicode pattern", Type.String({ pattern: "^\\p{L}+$" }), "héllo", "h1"],
    ["a finite number", Type.Number(), 1.5, NaN],
    ["not Infinity either", Type.Number(), -3, Infinity],
    ["a whole number", Type.Integer({ minimum: 1 }), 3, 2.5],
    ["a minimum", Type.Number({ minimum: 0 }), 0, -0.1],
    ["null", Type.Null(), null, undefined],
    ["a literal", Type.Literal("image"), "image", "img"],
    ["an enum", Type.Enum(["a", 1]), 1, "1"],
    ["a union", Type.Union([Type.String(), Type.Null()]), null, 1],
    ["an array's items", Type.Array(Type.Number(), { minItems: 1 }), [1], []],
    ["a record's values", Type.Record(Type.String(), Type.Boolean()), { a: true }, { a: 1 }],
    ["a required property", Type.Object({ a: Type.String() }), { a: "" }, {}],
    ["an optional property left undefined", Type.Object({ a: Type.Optional(Type.String()) }), { a: undefined }, { a: 1 }],
    ["a closed object", Type.Object({ a: Type.Optional(Type.String()) }, { additionalProperties: false }), { a: "x" }, { b: 1 }],
    ["an object, not an array", Type.Object({}), {}, []],
  ])("judges %s", (_name, schema, fits, misfits) => {
    expect(Value.Check(schema, fits)).toBe(true);
    expect(surelyFits(schema, fits)).toBe(true);
    expect(Value.Check(schema, misfits)).toBe(false);
    expect(surelyFits(schema, misfits)).toBe(false);
  });

  test.each([
    ["a refinement", TypeBox.Refine(TypeBox.String(), (text) => text.length % 4 === 0), "abcd"],
    ["a $ref", { $ref: "#/definitions/x" } as TSchema, 1],
    ["a format", TypeBox.String({ format: "email" }), "a@b.c"],
    ["a tuple", TypeBox.Tuple([TypeBox.String()]), ["a"]],
    ["an object constant", { const: { a: 1 } } as TSchema, { a: 1 }],
    ["a non-JSON type", TypeBox.Undefined(), undefined],
    ["not", { not: { type: "string" } } as TSchema, 1],
  ])("leaves %s to typebox", (_name, schema, value) => {
    expect(surelyFits(schema, value)).toBe(false);
    expect(judge(schema, value)).toBeUndefined();
  });

  test("a union decided by a branch it understands is decided, whatever the other branches hold", () => {
    const schema = { anyOf: [{ type: "string" }, { $ref: "#/x" }] } as TSchema;
    expect(judge(schema, "a")).toBe(true);
    expect(judge(schema, 1)).toBeUndefined();
  });
});
