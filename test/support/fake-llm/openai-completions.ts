// PLACEHOLDER: replaced by the real openai-completions wire encoder.
import type { WireEncoder } from "./script.ts";

export const openaiCompletionsEncoder: WireEncoder = {
  api: "openai-completions",
  encode() {
    throw new Error("openai-completions encoder not written yet");
  },
  errorBody(status, message) {
    return { error: { code: status, message } };
  },
};
