/**
 * Checking a value against a schema at the edge (config files, RPC commands, tool
 * arguments) without paying for typebox at start-up. src/schema/check.ts answers the
 * common case, a value that fits, on its own; only a value it cannot vouch for loads
 * typebox's `Value` (~100 KB), which then decides and words the errors. `require`
 * because the callers are synchronous; the bundle keeps typebox in the binary,
 * unevaluated until this first runs.
 */
import type { Static, TSchema } from "typebox";
import { traceModuleLoad } from "../ai/load-trace.ts";
import { judge } from "./check.ts";

type ValueApi = (typeof import("typebox/value"))["Value"];

let loaded: ValueApi | undefined;

/** typebox's `Value`, loaded on first use. */
export function typeboxValue(): ValueApi {
  if (!loaded) {
    loaded = (require("typebox/value") as typeof import("typebox/value")).Value;
    traceModuleLoad("typebox");
  }
  return loaded;
}

/** Whether `value` fits `schema`, exactly as typebox's `Value.Check` decides. */
export function fitsSchema<T extends TSchema>(schema: T, value: unknown): value is Static<T> {
  return judge(schema, value) ?? typeboxValue().Check(schema, value);
}
