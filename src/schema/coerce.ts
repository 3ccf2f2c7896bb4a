/**
 * The coercion of a model's tool arguments for tools whose parameters are plain JSON
 * Schema (an MCP tool's, or an extension's written by hand) rather than typebox's:
 * typebox's `Value.Convert` recognises only its own schemas, and pi 1.x gives plain
 * ones the same treatment. A numeric string where a number or integer is wanted
 * becomes that number, "true"/"false" a boolean, and a single value where an array
 * is wanted an array of one; objects and arrays are walked by their `properties` and
 * `items`. Anything else is left as it is, for validation to report.
 */

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  return typeof type === "string" ? [type] : Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === "string") : [];
}

function fitsType(value: unknown, type: string): boolean {
  switch (type) {
    case "number":
      return typeof value === "number";
    case "integer":
      return Number.isInteger(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    case "null":
      return value === null;
    default:
      return false;
  }
}

function convertScalar(value: unknown, type: string): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if ((type === "number" || type === "integer") && text !== "" && Number.isFinite(Number(text))) {
    const number = Number(text);
    return type === "integer" && !Number.isInteger(number) ? value : number;
  }
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  return value;
}

/** `value` coerced towards `schema`; a new value where something changed, the same one otherwise. */
export function coerceToJsonSchema(schema: unknown, value: unknown): unknown {
  if (!isObject(schema)) return value;
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((type) => fitsType(value, type))) {
    for (const type of types) {
      if (type === "array" && value !== undefined && value !== null) return coerceToJsonSchema(schema, [value]);
      const converted = convertScalar(value, type);
      if (fitsType(converted, type)) return converted;
    }
    return value;
  }
  if (Array.isArray(value) && isObject(schema.items)) return value.map((item) => coerceToJsonSchema(schema.items, item));
  if (isObject(value) && isObject(schema.properties)) {
    const properties = schema.properties as Record<string, unknown>;
    const result: Record<string, unknown> = { ...value };
    for (const [key, property] of Object.entries(properties)) {
      if (key in result) result[key] = coerceToJsonSchema(property, result[key]);
    }
    return result;
  }
  return value;
}
