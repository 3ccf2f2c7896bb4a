/**
 * Codemode tests drive `xcsh --mode rpc --tools codemode,…` against the fake
 * LLM: the model's turn is a `codemode` call with a script, and the test reads
 * what the model would get back (the tool_execution_end of the codemode call).
 */
import type { FakeLlmServer } from "../support/fake-llm/server.ts";
import type { Frame, RpcProcess } from "../support/rpc-harness.ts";

export const CODEMODE_ARGS = ["--model", "fake/fake-model", "--tools", "codemode,read,bash"];

/** Scripts the model's next turn as one codemode call running `code`, then a closing text reply. */
export function scriptTurn(server: FakeLlmServer, id: string, code: string): void {
  server.enqueue({ content: [{ type: "toolCall", id, name: "codemode", arguments: { code } }] }, { content: [{ type: "text", text: "done" }] });
}

/** Runs one prompt whose turn is the script; resolves to the codemode call's end event. */
export async function runScriptPrompt(rpc: RpcProcess, server: FakeLlmServer, id: string, code: string, timeoutMs = 15_000): Promise<Frame> {
  scriptTurn(server, id, code);
  const from = rpc.mark();
  await rpc.request({ type: "prompt", message: `run ${id}` });
  const end = await rpc.waitForEvent("tool_execution_end", (frame) => frame.toolCallId === id, timeoutMs, from);
  await rpc.waitForEvent("agent_end", () => true, timeoutMs, from);
  return end;
}

/** The text the model reads: header and output, joined. */
export function resultText(end: Frame): string {
  return (end.result.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("");
}
