/**
 * When a codemode script's QuickJS worker is started ahead of the script: the moment the
 * model's streamed answer begins a `codemode` call. The script's code is still streaming
 * in then, which hides most of the worker's start (a thread, QuickJS's compiled
 * WebAssembly, a VM), and the worker that waits (~11 MiB) is paid for only by a session
 * whose model does write a script. A process that never prompts (an idle RPC host,
 * `--help`, `--list-models`) or whose model only calls tools directly starts none. After
 * each script the runner keeps the next one's worker waiting (warm-worker.ts), so later
 * scripts start at once. This module imports neither the runner nor QuickJS: both load
 * on that first call.
 */
import type { AgentEvent } from "../agent/types.ts";
import { CODEMODE_TOOL_NAME } from "../codemode/index.ts";

/** The tool a streamed update begins or completes a call of; undefined for any other event. */
function streamedToolCallName(event: AgentEvent): string | undefined {
  if (event.type !== "message_update") return undefined;
  const update = event.assistantMessageEvent;
  if (update.type === "toolcall_end") return update.toolCall.name;
  if (update.type !== "toolcall_start") return undefined;
  const block = update.partial.content[update.contentIndex];
  return block?.type === "toolCall" ? block.name : undefined;
}

/**
 * Starts a script worker when `event` begins a codemode call and codemode is active; never
 * throws and never waits. The call's end is looked at too: an OpenAI-compatible server may
 * send a call's name after its first fragment. Warming is a no-op while a worker waits.
 */
export function warmCodemodeForScript(event: AgentEvent, codemodeActive: () => boolean): void {
  if (streamedToolCallName(event) !== CODEMODE_TOOL_NAME || !codemodeActive()) return;
  import("../codemode/run-script.ts").then(
    (runner) => runner.warmCodemodeWorker(),
    // A runner that cannot load fails the script itself, with its own message.
    () => undefined,
  );
}
