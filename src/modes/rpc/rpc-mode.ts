/**
 * `xcsh --mode rpc`: JSONL commands on stdin, responses and events on stdout.
 * Every command gets exactly one response, echoing its id. Commands that change
 * state run one after another in arrival order; commands that must never wait
 * (abort, steer, queries, host-tool frames) are handled the moment they arrive.
 * Stdin EOF ends the process with code 0 once the work in progress is done; SIGTERM,
 * SIGHUP and an extension's ctx.shutdown() end it in the same orderly way (rpc-shutdown.ts).
 */
import type { RunOptions } from "../../core/run-options.ts";
import { UserError } from "../../core/user-error.ts";
import { claimStdoutForProtocol, flushProtocolOutput, guardProcessStdout, writeFrameInPieces } from "../protocol-output.ts";
import { createSessionFromArgs } from "../session-from-args.ts";
import { HostToolBridge } from "./host-tools.ts";
import { RpcExtensionUI } from "./extension-ui-bridge.ts";
import { AcceptedPrompts, AnswerWhenKnown, handlers, isKnownCommand, ThenStart, type RpcContext } from "./rpc-commands.ts";
import { commandProblem } from "./rpc-schemas.ts";
import { hasStreamedArray, readJsonlLines } from "./jsonl.ts";
import { createEventWriter } from "../event-writer.ts";
import { RpcShutdown } from "./rpc-shutdown.ts";
import type { HostToolResultFrame, HostToolUpdateFrame, RpcCommand } from "./rpc-types.ts";

/** Never queued behind a long command: they stop, steer or only read state. */
const IMMEDIATE = new Set<string>([
  "abort",
  "abort_and_prompt",
  "abort_retry",
  "abort_bash",
  "steer",
  "follow_up",
  "clear_queue",
  "get_state",
  "get_messages",
  "get_session_stats",
  "get_last_assistant_text",
  "get_fork_messages",
  "get_branch_messages",
  "get_entries",
  "get_tree",
  "get_commands",
  "get_available_models",
  "get_available_thinking_levels",
  "set_steering_mode",
  "set_follow_up_mode",
  "set_interrupt_mode",
  "set_auto_retry",
  "set_auto_compaction",
]);

/**
 * The request's id, when it has a usable one: a host waiting on it must get its answer.
 * A number too large for a double (`1e400`) parses as Infinity, which JSON cannot carry
 * (it would go out as `"id":null`): such an id is not echoed, like any other unusable one.
 */
function echoedId(frame: object): { id?: string | number } {
  const id = (frame as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? { id } : {};
}

/** Names what was sent without converting it: `String()` of a crafted object can throw or recurse without end. */
function unknownCommandError(type: unknown): string {
  if (typeof type === "string") return `Unknown command: ${type.length > 200 ? `${type.slice(0, 200)}…` : type}`;
  if (type === undefined) return 'Unknown command: the object has no "type" field';
  const kind = type === null ? "null" : Array.isArray(type) ? "an array" : typeof type === "object" ? "an object" : `a ${typeof type}`;
  return `Unknown command: "type" must be a string, got ${kind}`;
}

function parseFailure(error: string) {
  return { type: "response", command: "parse", success: false, error };
}

/** Options that shape one headless run; an RPC host runs many and sets its own limits. */
function headlessOnlyOption(args: RunOptions): string | undefined {
  if (args.maxTurns !== undefined) return "--max-turns";
  if (args.maxCostUsd !== undefined) return "--max-cost";
  if (args.timeoutSeconds !== undefined) return "--timeout";
  if (args.idleTimeoutSeconds !== undefined) return "--idle-timeout";
  if (args.outputFormat !== undefined) return "--output-format";
  return undefined;
}

export async function runRpcMode(args: RunOptions, hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  // As pi: the host sends prompts (and their files) as commands; a file named on the command line has no prompt to go with.
  if (args.fileArgs.length > 0) {
    throw new UserError(`@file arguments are not supported in rpc mode (@${args.fileArgs[0]}): send the file's text in a prompt command, an image in its "images"`, 2);
  }
  if (args.resume) process.stderr.write("xcsh: --resume is ignored in rpc mode: there is no one to pick a session; pass --session <file|id>, or send switch_session\n");
  const headlessOnly = headlessOnlyOption(args);
  if (headlessOnly) {
    throw new UserError(`${headlessOnly} applies to -p and --mode json runs, not to --mode rpc: the host decides when a run has gone on long enough (abort)`);
  }
  // process.stdout is pointed at stderr only when foreign code may run: when an
  // extension loads, or at the first session event (a run, and a provider SDK, starting).
  const protocolWrite = claimStdoutForProtocol({ deferStdoutGuard: true });
  // Muted once a signal asked the process to go: the host is no longer reading (as pi 1.6.0).
  let muted = false;
  const write = (frame: unknown) => {
    if (!muted) protocolWrite(frame);
  };
  // Extension dialogs become extension_ui_request frames; the answers are read the moment they arrive.
  const ui = new RpcExtensionUI(write, { emitTitle: process.env.PI_RPC_EMIT_TITLE === "1" });
  let shutdown: RpcShutdown | undefined;
  // A host can choose a model with a key later (set_model); a missing key is reported when prompting.
  const { session, setup, extensions } = await createSessionFromArgs(args, {
    requireApiKey: false,
    quietLoadWarnings: true,
    extensions: {
      mode: "rpc",
      ui,
      hostApi: () => {
        guardProcessStdout();
        return hostApi();
      },
      reportError: (report) => write({ type: "extension_error", ...report }),
      notice: (line) => process.stderr.write(`${line}\n`),
      onShutdownRequested: () => shutdown?.request(),
    },
    // An MCP server that fails to start or stops is a notice frame, like the session's load warnings.
    mcpNotice: (message) => write({ type: "notice", level: "warning", message }),
  });

  for (const message of session.sessionManager.getLoadWarnings()) write({ type: "notice", level: "warning", message });
  const lean = args.rpcLean || (setup.settings.rpc as { lean?: boolean } | undefined)?.lean === true;
  const wireForm = args.rpcWire ?? (lean ? "lean" : "full");
  const writeEvent = createEventWriter(write, wireForm);
  // One listener guards stdout at the first event and writes every event: with a second,
  // asynchronous listener in front, two events emitted back to back could go out swapped.
  session.subscribe((event) => {
    guardProcessStdout();
    writeEvent(event);
  });
  const context: RpcContext = {
    session,
    hostTools: new HostToolBridge(write),
    hostToolNames: new Set(),
    extensions,
    prompts: new AcceptedPrompts(session),
    notify: (message, type) => ui.notify(message, type),
  };
  shutdown = new RpcShutdown({
    abort: () => session.abort(),
    idle: async () => {
      await context.prompts.landed();
      await session.waitForIdle();
    },
    close: async () => {
      await extensions?.shutdown();
      await session.mcp?.close();
    },
    mute: () => {
      muted = true;
      // Nobody is left to answer a host tool call or a dialog.
      context.hostTools.close("xcsh is shutting down");
      ui.close("xcsh is shutting down");
    },
    flush: flushProtocolOutput,
  });
  shutdown.listen();
  process.on("SIGINT", () => void session.abort());

  const respond = (command: RpcCommand) => shutdown.command(() => answer(command));
  const answer = async (command: RpcCommand) => {
    const id = echoedId(command);
    try {
      // Checked when its turn comes, so a bad field is answered in order like any other failure.
      const problem = commandProblem(command);
      if (problem !== undefined) throw new Error(problem);
      const result = await (handlers[command.type] as (c: RpcCommand, ctx: RpcContext) => unknown)(command, context);
      if (result instanceof AnswerWhenKnown) {
        // Written from inside the work, the moment its data is known: before the run it starts.
        const { promise, resolve, reject } = Promise.withResolvers<void>();
        result.begin((data) => {
          write({ ...id, type: "response", command: command.type, success: true, data });
          resolve();
        }, reject);
        await promise;
      } else {
        const data = result instanceof ThenStart ? result.data : result;
        const response = { ...id, type: "response", command: command.type, success: true, ...(data === undefined ? {} : { data }) };
        // A long list (get_messages of a big session) goes out in pieces, never as one string.
        if (hasStreamedArray(data)) await writeFrameInPieces(response);
        else write(response);
        if (result instanceof ThenStart) result.start();
      }
    } catch (error) {
      write({ ...id, type: "response", command: command.type, success: false, error: (error as Error).message || String(error) });
    }
  };

  let ordered: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  };

  for await (const line of readJsonlLines(Bun.stdin.stream())) {
    // After SIGTERM or SIGHUP a new prompt would only hold the shutdown up, and no answer could be written.
    if (shutdown.signalReceived) continue;
    if (line.trim() === "") continue;
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch (error) {
      write(parseFailure(`Failed to parse command: ${(error as Error).message}`));
      continue;
    }
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
      write(parseFailure("Failed to parse command: a command must be a JSON object"));
      continue;
    }
    const type = (frame as { type?: unknown }).type;
    if (type === "host_tool_update") context.hostTools.handleUpdate(frame as HostToolUpdateFrame);
    else if (type === "host_tool_result") context.hostTools.handleResult(frame as HostToolResultFrame);
    else if (type === "extension_ui_response") ui.handleResponse(frame);
    else if (!isKnownCommand(type)) {
      write({ ...echoedId(frame), type: "response", command: typeof type === "string" ? type : "unknown", success: false, error: unknownCommandError(type) });
    } else if (IMMEDIATE.has(type)) {
      track(respond(frame as RpcCommand));
    } else {
      ordered = ordered.then(() => respond(frame as RpcCommand));
      track(ordered);
    }
  }

  // EOF: the host can no longer answer host tool calls, so they fail now rather than
  // leaving the run waiting forever. The commands and the run in progress finish, so
  // nothing is lost, then the process exits cleanly.
  context.hostTools.close("The host closed stdin");
  // Dialogs still open can never be answered now: they resolve to their defaults.
  ui.close("The host closed stdin");
  await ordered;
  await Promise.all(inFlight);
  // A prompt accepted just before EOF may not have begun its run yet: let it, then wait for it.
  await shutdown.finish();
  return shutdown.code;
}
