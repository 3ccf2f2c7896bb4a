/**
 * xcsh's typebox-free builders must build exactly what typebox builds: the same
 * enumerable keys in the same order (the JSON a provider sees), and the same hidden
 * markers (what typebox's Value and Type functions read). Otherwise an extension that
 * extends a built-in tool's parameters, or a tool call coerced by Value.Convert,
 * would behave differently from pi.
 */
import { describe, expect, test } from "bun:test";
import TypeBox from "typebox";
import { Value } from "typebox/value";
import { Type } from "../../src/schema/type.ts";

/** Every own key with its value and whether it is enumerable, recursively, in key order. */
function anatomy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anatomy);
  if (value === null || typeof value !== "object") return value;
  return Reflect.ownKeys(value).map((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    return [String(key), descriptor.enumerable, descriptor.writable, anatomy(descriptor.value)];
  });
}

const pairs: [string, unknown, unknown][] = [
  ["String", Type.String(), TypeBox.String()],
  ["String with options", Type.String({ description: "d", minLength: 1, pattern: "^a" }), TypeBox.String({ description: "d", minLength: 1, pattern: "^a" })],
  ["Number", Type.Number({ minimum: 0 }), TypeBox.Number({ minimum: 0 })],
  ["Integer", Type.Integer({ minimum: 1 }), TypeBox.Integer({ minimum: 1 })],
  ["Boolean", Type.Boolean({ description: "b" }), TypeBox.Boolean({ description: "b" })],
  ["Null", Type.Null(), TypeBox.Null()],
  ["Unknown", Type.Unknown(), TypeBox.Unknown()],
  ["Literal string", Type.Literal("a"), TypeBox.Literal("a")],
  ["Literal number", Type.Literal(3), TypeBox.Literal(3)],
  ["Literal boolean", Type.Literal(true, { description: "t" }), TypeBox.Literal(true, { description: "t" })],
  ["Enum", Type.Enum(["a", "b"]), TypeBox.Enum(["a", "b"])],
  ["Union", Type.Union([Type.String(), Type.Null()], { description: "u" }), TypeBox.Union([TypeBox.String(), TypeBox.Null()], { description: "u" })],
  ["Array", Type.Array(Type.String(), { description: "x", minItems: 1 }), TypeBox.Array(TypeBox.String(), { description: "x", minItems: 1 })],
  ["Record", Type.Record(Type.String(), Type.Boolean()), TypeBox.Record(TypeBox.String(), TypeBox.Boolean())],
  ["Optional", Type.Optional(Type.String({ description: "o" })), TypeBox.Optional(TypeBox.String({ description: "o" }))],
  ["Optional twice", Type.Optional(Type.Optional(Type.Boolean())), TypeBox.Optional(TypeBox.Optional(TypeBox.Boolean()))],
  ["Unsafe", Type.Unsafe<string>({ type: "string", enum: ["x"] }), TypeBox.Unsafe<string>({ type: "string", enum: ["x"] })],
  ["empty Object", Type.Object({}), TypeBox.Object({})],
  [
    "Object",
    Type.Object(
      { a: Type.String(), b: Type.Optional(Type.Number()), c: Type.Array(Type.Object({ d: Type.Optional(Type.Literal("x")) })) },
      { additionalProperties: false, description: "o" },
    ),
    TypeBox.Object(
      { a: TypeBox.String(), b: TypeBox.Optional(TypeBox.Number()), c: TypeBox.Array(TypeBox.Object({ d: TypeBox.Optional(TypeBox.Literal("x")) })) },
      { additionalProperties: false, description: "o" },
    ),
  ],
  ["Object of only optionals", Type.Object({ a: Type.Optional(Type.String()) }), TypeBox.Object({ a: TypeBox.Optional(TypeBox.String()) })],
];

describe("schema builders", () => {
  test.each(pairs)("%s is built as typebox builds it", (_name, ours, theirs) => {
    expect(anatomy(ours)).toEqual(anatomy(theirs));
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
  });

  test("typebox's type functions and Value treat the schemas as typebox's own", () => {
    const ours = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Number()) });
    expect(JSON.stringify(TypeBox.Partial(ours))).toBe('{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"number"}}}');
    expect(Object.keys(TypeBox.Pick(ours, ["path"]).properties)).toEqual(["path"]);
    // A tool extended by an extension: the built-in's optional stays optional.
    expect((TypeBox.Object({ ...ours.properties, extra: TypeBox.Boolean() }) as { required?: unknown }).required).toEqual(["path", "extra"]);
    expect(Value.Convert(ours, { path: 1, limit: "2" })).toEqual({ path: "1", limit: 2 });
    expect(Value.Check(ours, { path: "a" })).toBe(true);
    expect(Value.Check(ours, { limit: 1 })).toBe(false);
  });

  test("Optional does not change the schema it is given", () => {
    const inner = Type.String();
    Type.Optional(inner);
    expect("~optional" in inner).toBe(false);
  });
});
