/**
 * The provider-neutral LLM layer, in the shape extensions know from pi-ai.
 * Provider SDKs are not imported here: they load when a model is first used.
 */
export type { Static, TSchema } from "typebox";
export { Type } from "typebox";
export * from "./types.ts";
export * from "./event-stream.ts";
export * from "./stream.ts";
export * from "./api-registry.ts";
export * from "./models.ts";
export { calculateCost, emptyUsage } from "./usage.ts";
export { clampThinkingLevel, getSupportedThinkingLevels, isThinkingLevel } from "./thinking.ts";
export { isContextOverflow, getOverflowPatterns, isTransientError } from "./errors.ts";
export { parseStreamingJson } from "./json-parse.ts";
export { StringEnum } from "./typebox-helpers.ts";
export { getEnvApiKey, findEnvKeys } from "./env-api-keys.ts";
