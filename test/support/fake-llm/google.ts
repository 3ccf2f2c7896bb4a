// PLACEHOLDER: replaced by the real google-generative-ai wire encoder.
import type { WireEncoder } from "./script.ts";

export const googleEncoder: WireEncoder = {
  api: "google-generative-ai",
  encode() {
    throw new Error("google-generative-ai encoder not written yet");
  },
  errorBody(status, message) {
    return { error: { code: status, message } };
  },
};
