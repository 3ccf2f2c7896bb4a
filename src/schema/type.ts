/**
 * The typebox builders xcsh's own schemas use, without loading typebox: the tools',
 * settings.json's and models.json's schemas exist from the first millisecond, and
 * evaluating typebox (~300 KB) cost every start ~4 ms and ~5 MiB before the first
 * RPC answer. Each builder returns the object typebox's builder of the same name
 * returns — the same enumerable keys in the same order, the same hidden `~kind` and
 * `~optional` markers (test/schema/type.test.ts compares them) — so typebox's
 * `Value`, `Type.Partial` and friends treat these schemas as their own, an
 * extension may extend a built-in tool's parameters, and `Static<>` reads them.
 * Only the types come from typebox; they are erased at build time.
 */
import type {
  TArray,
  TArrayOptions,
  TBoolean,
  TEnum,
  TEnumValue,
  TInteger,
  TLiteral,
  TLiteralValue,
  TNull,
  TNumber,
  TNumberOptions,
  TObject,
  TObjectOptions,
  TOptional,
  TProperties,
  TRecord,
  TSchema,
  TSchemaOptions,
  TString,
  TStringOptions,
  TUnion,
  TUnknown,
  TUnsafe,
} from "typebox";

/**
 * typebox's hidden properties are writable and configurable but not enumerable (not
 * in JSON). One ready descriptor per marker value, set by each builder itself: a
 * shared helper would run once per schema node, ~170 times at start-up, often enough
 * for JavaScriptCore's optimizing compiler to step in (~2 MiB of memory).
 */
const hidden = (value: unknown): PropertyDescriptor => ({ value, writable: true, configurable: true, enumerable: false });
const KIND = {
  String: hidden("String"),
  Number: hidden("Number"),
  Integer: hidden("Integer"),
  Boolean: hidden("Boolean"),
  Null: hidden("Null"),
  Unknown: hidden("Unknown"),
  Literal: hidden("Literal"),
  Enum: hidden("Enum"),
  Union: hidden("Union"),
  Array: hidden("Array"),
  Object: hidden("Object"),
  Record: hidden("Record"),
};
const OPTIONAL = hidden(true);
const UNSAFE = hidden(null);

/**
 * A copy of a schema with the hidden markers these builders set (`~kind`, `~unsafe`,
 * `~readonly`), without `~optional`. Only xcsh's own schemas come here, so typebox's
 * other markers (a refinement, a codec) never need carrying.
 */
function copy(schema: object): Record<string, unknown> {
  const source = schema as Record<string, unknown>;
  const result: Record<string, unknown> = { ...source };
  if ("~kind" in source) Object.defineProperty(result, "~kind", hidden(source["~kind"]));
  if ("~unsafe" in source) Object.defineProperty(result, "~unsafe", UNSAFE);
  if ("~readonly" in source) Object.defineProperty(result, "~readonly", hidden(source["~readonly"]));
  return result;
}

/** The builders, named as typebox names them so that schema code reads the same either way. */
export const Type = {
  String(options?: TStringOptions): TString {
    return Object.defineProperty({ type: "string", ...options }, "~kind", KIND.String) as TString;
  },

  Number(options?: TNumberOptions): TNumber {
    return Object.defineProperty({ type: "number", ...options }, "~kind", KIND.Number) as TNumber;
  },

  Integer(options?: TNumberOptions): TInteger {
    return Object.defineProperty({ type: "integer", ...options }, "~kind", KIND.Integer) as TInteger;
  },

  Boolean(options?: TSchemaOptions): TBoolean {
    return Object.defineProperty({ type: "boolean", ...options }, "~kind", KIND.Boolean) as TBoolean;
  },

  Null(options?: TSchemaOptions): TNull {
    return Object.defineProperty({ type: "null", ...options }, "~kind", KIND.Null) as TNull;
  },

  Unknown(options?: TSchemaOptions): TUnknown {
    return Object.defineProperty({ ...options }, "~kind", KIND.Unknown) as unknown as TUnknown;
  },

  Literal<Value extends TLiteralValue>(value: Value, options?: TSchemaOptions): TLiteral<Value> {
    return Object.defineProperty({ type: typeof value, const: value, ...options }, "~kind", KIND.Literal) as TLiteral<Value>;
  },

  Enum<const Values extends TEnumValue[]>(values: readonly [...Values], options?: TSchemaOptions): TEnum<Values> {
    return Object.defineProperty({ enum: [...values], ...options }, "~kind", KIND.Enum) as TEnum<Values>;
  },

  Union<Types extends TSchema[]>(anyOf: [...Types], options?: TSchemaOptions): TUnion<Types> {
    return Object.defineProperty({ anyOf, ...options }, "~kind", KIND.Union) as TUnion<Types>;
  },

  Array<Type extends TSchema>(items: Type, options?: TArrayOptions): TArray<Type> {
    return Object.defineProperty({ type: "array", items, ...options }, "~kind", KIND.Array) as TArray<Type>;
  },

  Object<Properties extends TProperties>(properties: Properties, options?: TObjectOptions): TObject<Properties> {
    const required: string[] = [];
    for (const key in properties) if (!("~optional" in properties[key])) required.push(key);
    const schema = required.length > 0 ? { type: "object", required, properties, ...options } : { type: "object", properties, ...options };
    return Object.defineProperty(schema, "~kind", KIND.Object) as TObject<Properties>;
  },

  /** `Record(String(), value)`: an object whose every key holds `value`. typebox's other key types are not needed here. */
  Record<Value extends TSchema>(_key: TString, value: Value, options?: TObjectOptions): TRecord<"^.*$", Value> {
    return Object.defineProperty({ type: "object", patternProperties: { "^.*$": value }, ...options }, "~kind", KIND.Record) as TRecord<"^.*$", Value>;
  },

  Optional<Type extends TSchema>(type: Type): TOptional<Type> {
    return Object.defineProperty(copy(type), "~optional", OPTIONAL) as unknown as TOptional<Type>;
  },

  Unsafe<Type>(schema: TSchema): TUnsafe<Type> {
    return Object.defineProperty(copy(schema), "~unsafe", UNSAFE) as unknown as TUnsafe<Type>;
  },
};
