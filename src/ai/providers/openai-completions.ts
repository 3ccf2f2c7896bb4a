// PLACEHOLDER: replaced by the real openai-completions provider.
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";

export const stream: ApiStreamFunction = () => {
  throw new Error("openai-completions provider not written yet");
};
export const streamSimple: ApiStreamSimpleFunction = () => stream(undefined as never, undefined as never);
