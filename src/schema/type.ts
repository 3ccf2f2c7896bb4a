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

/** typebox's hidden properties: present, writable and configurable, but not enumerable (not in JSON). */
function hide<T extends object>(schema: T, hidden: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(hidden)) {
    Object.defineProperty(schema, key, { value, writable: true, configurable: true, enumerable: false });
  }
  return schema;
}

function make<T>(kind: string, enumerable: object, options: object | undefined): T {
  return hide({ ...enumerable, ...options }, { "~kind": kind }) as T;
}

/** A copy of `schema` with its hidden markers, plus `extra` ones. */
function copyWith(schema: object, extra: Record<string, unknown>): object {
  const hidden: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(schema)) {
    if (key.startsWith("~")) hidden[key] = (schema as Record<string, unknown>)[key];
  }
  return hide({ ...schema }, { ...hidden, ...extra });
}

/** The builders, named as typebox names them so that schema code reads the same either way. */
export const Type = {
  String(options?: TStringOptions): TString {
    return make("String", { type: "string" }, options);
  },

  Number(options?: TNumberOptions): TNumber {
    return make("Number", { type: "number" }, options);
  },

  Integer(options?: TNumberOptions): TInteger {
    return make("Integer", { type: "integer" }, options);
  },

  Boolean(options?: TSchemaOptions): TBoolean {
    return make("Boolean", { type: "boolean" }, options);
  },

  Null(options?: TSchemaOptions): TNull {
    return make("Null", { type: "null" }, options);
  },

  Unknown(options?: TSchemaOptions): TUnknown {
    return make("Unknown", {}, options);
  },

  Literal<Value extends TLiteralValue>(value: Value, options?: TSchemaOptions): TLiteral<Value> {
    return make("Literal", { type: typeof value, const: value }, options);
  },

  Enum<const Values extends TEnumValue[]>(values: readonly [...Values], options?: TSchemaOptions): TEnum<Values> {
    return make("Enum", { enum: [...values] }, options);
  },

  Union<Types extends TSchema[]>(anyOf: [...Types], options?: TSchemaOptions): TUnion<Types> {
    return make("Union", { anyOf }, options);
  },

  Array<Type extends TSchema>(items: Type, options?: TArrayOptions): TArray<Type> {
    return make("Array", { type: "array", items }, options);
  },

  Object<Properties extends TProperties>(properties: Properties, options?: TObjectOptions): TObject<Properties> {
    const required = Object.keys(properties).filter((key) => !("~optional" in properties[key]));
    return make("Object", required.length > 0 ? { type: "object", required, properties } : { type: "object", properties }, options);
  },

  /** `Record(String(), value)`: an object whose every key holds `value`. typebox's other key types are not needed here. */
  Record<Value extends TSchema>(_key: TString, value: Value, options?: TObjectOptions): TRecord<"^.*$", Value> {
    return make("Record", { type: "object", patternProperties: { "^.*$": value } }, options);
  },

  Optional<Type extends TSchema>(type: Type): TOptional<Type> {
    return copyWith(type, { "~optional": true }) as TOptional<Type>;
  },

  Unsafe<Type>(schema: TSchema): TUnsafe<Type> {
    return copyWith(schema, { "~unsafe": null }) as TUnsafe<Type>;
  },
};
