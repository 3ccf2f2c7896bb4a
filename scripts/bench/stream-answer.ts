/** The streamed answer's script: 20 000 characters of prose in 2 500 deltas. */
import type { FakeReply } from "../../test/support/fake-llm/server.ts";

export const ANSWER_CHARS = 20_000;
export const DELTAS = 2_500;

/** Prose-like text, so the answer looks like a model's and not one repeated byte. */
function answerText(): string {
  const words = ["the", "agent", "streams", "tokens", "to", "its", "host", "while", "tools", "wait", "and", "sessions", "grow"];
  let text = "";
  for (let i = 0; text.length < ANSWER_CHARS; i++) text += words[(i * 7 + (i >> 3)) % words.length] + (i % 17 === 16 ? ".\n" : " ");
  return text.slice(0, ANSWER_CHARS);
}

export const STREAM_REPLY: FakeReply = { content: [{ type: "text", text: answerText() }], chunkSize: ANSWER_CHARS / DELTAS };

/** The streamed tool call's size: a `write` of 200 KB, its arguments in 2 500 deltas. */
export const TOOL_CALL_CHARS = 200_000;
export const TOOL_CALL_PROMPT = "Write the big file.";

function fileContent(): string {
  const line = "export const value = computeSomethingUseful(input, options); // keep going\n";
  return line.repeat(Math.ceil(TOOL_CALL_CHARS / line.length)).slice(0, TOOL_CALL_CHARS);
}

export const TOOL_CALL_REPLY: FakeReply = {
  content: [{ type: "toolCall", name: "write", arguments: { path: "big.ts", content: fileContent() } }],
  chunkSize: Math.ceil(TOOL_CALL_CHARS / DELTAS),
};

export const AFTER_TOOL_REPLY: FakeReply = { content: [{ type: "text", text: "Written." }] };
