// PLACEHOLDER: replaced by the real google-generative-ai provider.
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";

export const stream: ApiStreamFunction = () => {
  throw new Error("google-generative-ai provider not written yet");
};
export const streamSimple: ApiStreamSimpleFunction = () => stream(undefined as never, undefined as never);
