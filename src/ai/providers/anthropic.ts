// PLACEHOLDER: replaced by the real anthropic-messages provider.
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";

export const stream: ApiStreamFunction = () => {
  throw new Error("anthropic-messages provider not written yet");
};
export const streamSimple: ApiStreamSimpleFunction = () => stream(undefined as never, undefined as never);
