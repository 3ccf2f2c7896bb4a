import type { TUnsafe } from "typebox";
import { Type } from "../schema/type.ts";

/**
 * A string enum as `{type:"string", enum:[…]}`. Typebox's own union of literals
 * becomes `anyOf`/`const`, which Google's API and some OpenAI-compatible servers
 * reject in tool schemas.
 */
export function StringEnum<T extends readonly string[]>(
  values: T,
  options?: { description?: string; default?: T[number] },
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({
    type: "string",
    enum: [...values],
    ...(options?.description !== undefined ? { description: options.description } : {}),
    ...(options?.default !== undefined ? { default: options.default } : {}),
  });
}
