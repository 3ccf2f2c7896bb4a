// PLACEHOLDER: replaced by the real openai-responses wire encoder.
import type { WireEncoder } from "./script.ts";

export const openaiResponsesEncoder: WireEncoder = {
  api: "openai-responses",
  encode() {
    throw new Error("openai-responses encoder not written yet");
  },
  errorBody(status, message) {
    return { error: { code: status, message } };
  },
};
