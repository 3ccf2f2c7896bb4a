// PLACEHOLDER: replaced by the real anthropic-messages wire encoder.
import type { WireEncoder } from "./script.ts";

export const anthropicEncoder: WireEncoder = {
  api: "anthropic-messages",
  encode() {
    throw new Error("anthropic-messages encoder not written yet");
  },
  errorBody(status, message) {
    return { error: { code: status, message } };
  },
};
