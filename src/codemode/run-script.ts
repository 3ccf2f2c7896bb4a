/**
 * One codemode script, from the agent's side: reads its `// @options:` line,
 * takes a QuickJS worker for it (warm-worker.ts), answers the worker's tool calls through the
 * host (core's tool path), collects the output, and ends the worker when the
 * script is done, its deadline passes or the run is aborted. Calls still
 * running then are cancelled. The usage the calls report (a tool that asks a
 * model, MCP sampling) is added up on the script's result, as pi 1.x rolls it
 * up. Imported on the first script only.
 */
import type { AgentToolResult, AgentToolUpdateCallback } from "../agent/types.ts";
import type { ToolCallOutcome } from "../agent/tool-execution.ts";
import type { ImageContent, TextContent, Usage } from "../ai/types.ts";
import { addUsage } from "../ai/usage.ts";
import { describeCallable, toolIdentifier, type CallableTool } from "./declarations.ts";
import type { CodemodeHost } from "./index.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS, detailsCalls, scriptResult, type CallRecord, type OutputItem } from "./output.ts";
import { ModelsBridge } from "./models-global.ts";
import type { CatalogEntry, HostMessage, WorkerMessage } from "./protocol.ts";
import { takeCodemodeWorker, warmCodemodeWorker } from "./warm-worker.ts";

/** Core warms through this module, so the runner is loaded by the time a script comes. */
export { warmCodemodeWorker };

export interface ScriptRun {
  host: CodemodeHost;
  toolCallId: string;
  code: string;
  signal?: AbortSignal;
  onUpdate?: AgentToolUpdateCallback;
}

interface ScriptOptions {
  maxOutputTokens: number;
  timeoutMs?: number;
}

const OPTIONS_LINE = /^[ \t]*\/\/ @options:(.*)$/;
/** bash's `output` inside scripts holds up to this much; longer keeps its start and end. */
const BASH_OUTPUT_LIMIT = 1024 * 1024;
/** How long the end of a script waits for its cancelled calls to report. */
const CANCEL_GRACE_MS = 2000;
/** pi 1.6.0's limits on live workers (each may hold 256 MB) and on the wait for one. */
const DEFAULT_MAX_WORKERS = 2;
const MAX_WAIT_FOR_WORKER_MS = 60_000;

/** Workers alive in this process, and scripts waiting for one, in arrival order. */
let liveWorkers = 0;
const waitingForWorker: (() => void)[] = [];

function maxWorkers(): number {
  const configured = Number(process.env.XCSH_CODEMODE_MAX_WORKERS);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_WORKERS;
}

/** Waits for a worker slot; false when `limitMs` passes or `signal` aborts first (the script then does not run). */
async function acquireWorker(limitMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (liveWorkers < maxWorkers() && waitingForWorker.length === 0) {
    liveWorkers++;
    return true;
  }
  return new Promise<boolean>((resolve) => {
    const granted = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", refused);
      liveWorkers++;
      resolve(true);
    };
    const refused = () => {
      clearTimeout(timer);
      const index = waitingForWorker.indexOf(granted);
      if (index !== -1) waitingForWorker.splice(index, 1);
      resolve(false);
    };
    const timer = setTimeout(refused, limitMs);
    signal?.addEventListener("abort", refused, { once: true });
    waitingForWorker.push(granted);
  });
}

function releaseWorker(): void {
  liveWorkers--;
  if (liveWorkers < maxWorkers()) waitingForWorker.shift()?.();
}

/** The options of the first line; an options line anywhere else is an error before anything runs. */
export function parseOptions(code: string): ScriptOptions | string {
  const lines = code.split("\n");
  if (lines.slice(1).some((line) => OPTIONS_LINE.test(line))) return "The // @options: line must be the script's first line.";
  const match = OPTIONS_LINE.exec(lines[0] ?? "");
  if (!match) return { maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS };
  let parsed: unknown;
  try {
    parsed = JSON.parse(match[1]);
  } catch {
    return `The // @options: line is not a JSON object: ${match[1].trim()}`;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return "The // @options: line must hold a JSON object.";
  const { max_output_tokens: maxTokens, timeout_ms: timeout } = parsed as Record<string, unknown>;
  if (maxTokens !== undefined && !(typeof maxTokens === "number" && maxTokens > 0)) return "max_output_tokens must be a positive number.";
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0)) return "timeout_ms must be a positive number.";
  return { maxOutputTokens: (maxTokens as number | undefined) ?? DEFAULT_MAX_OUTPUT_TOKENS, ...(timeout === undefined ? {} : { timeoutMs: timeout as number }) };
}

const textOf = (content: (TextContent | ImageContent)[]) =>
  content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");

/** bash inside a script: a structured value, also for a non-zero exit; undefined when the command did not finish. */
async function bashValue(outcome: ToolCallOutcome): Promise<Record<string, unknown> | undefined> {
  let body = textOf(outcome.result.content);
  let exitCode = 0;
  if (outcome.isError) {
    const exited = /(?:^|\n\n)Command exited with code (\d+)$/.exec(body);
    if (!exited) return undefined;
    exitCode = Number(exited[1]);
    body = body.slice(0, exited.index);
  } else if (body === "(no output)") body = "";
  let fullOutputPath: string | undefined = outcome.result.details?.fullOutputPath;
  const notice = /\n*\[Output truncated: [^\n]*?(?:Full output: (\S+))?\]$/.exec(body);
  if (notice) {
    fullOutputPath ??= notice[1];
    body = body.slice(0, notice.index);
  }
  let truncated = notice !== null;
  if (fullOutputPath) {
    // The model saw the tail; a script gets the whole output, up to a limit.
    const whole = await Bun.file(fullOutputPath).text().catch(() => undefined);
    if (whole !== undefined) {
      truncated = whole.length > BASH_OUTPUT_LIMIT;
      body = truncated ? `${whole.slice(0, BASH_OUTPUT_LIMIT / 2)}\n[… ${whole.length - BASH_OUTPUT_LIMIT} characters left out …]\n${whole.slice(-BASH_OUTPUT_LIMIT / 2)}` : whole;
    }
  }
  return {
    output: body,
    truncated,
    ...(fullOutputPath ? { full_output_path: fullOutputPath } : {}),
    exit_code: exitCode,
    wall_time_seconds: Math.round(outcome.durationMs ?? 0) / 1000,
  };
}

/** What `tools.<name>()` resolves to, or the error it rejects with. */
async function callValue(name: string, outcome: ToolCallOutcome): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  if (name === "bash") {
    const value = await bashValue(outcome);
    return value ? { ok: true, value } : { ok: false, error: textOf(outcome.result.content) };
  }
  if (outcome.isError) return { ok: false, error: textOf(outcome.result.content) || `${name} failed` };
  const image = outcome.result.content.find((block): block is ImageContent => block.type === "image");
  if (name === "read" && image) return { ok: true, value: { type: "image", data: image.data, mimeType: image.mimeType, note: textOf(outcome.result.content) } };
  return { ok: true, value: textOf(outcome.result.content) };
}

/**
 * An MCP tool inside a script resolves to its CallToolResult (pi 1.6.0), an `isError`
 * one too; a call that never reached the server (refused, bad arguments) rejects.
 * Text the model would see cut short is whole here, from its temp file.
 */
async function mcpCallValue(outcome: ToolCallOutcome): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const details = outcome.result.details as { server?: string; structuredContent?: unknown; fullOutputPath?: string } | undefined;
  if (outcome.isError && details?.server === undefined) return { ok: false, error: textOf(outcome.result.content) || "the call failed" };
  const whole = details?.fullOutputPath ? await Bun.file(details.fullOutputPath).text().catch(() => undefined) : undefined;
  const content = outcome.result.content.flatMap((block): Record<string, string>[] =>
    block.type === "image" ? [{ type: "image", data: block.data, mimeType: block.mimeType }] : whole !== undefined ? [] : [{ type: "text", text: block.text }],
  );
  if (whole !== undefined) content.unshift({ type: "text", text: whole });
  return {
    ok: true,
    value: { content, ...(details?.structuredContent !== undefined ? { structuredContent: details.structuredContent } : {}), isError: outcome.isError },
  };
}

function namespaceFields(namespace: CallableTool["namespace"]): Partial<CatalogEntry> {
  if (!namespace) return {};
  const instructions = namespace.instructions;
  return {
    namespace: namespace.name,
    ...(namespace.aliases?.length ? { namespaceAliases: [...namespace.aliases] } : {}),
    ...(namespace.description ? { namespaceDescription: namespace.description } : {}),
    ...(instructions ? { namespaceInstructions: instructions } : {}),
  };
}

export async function runScript(run: ScriptRun): Promise<AgentToolResult> {
  const began = performance.now();
  const items: OutputItem[] = [];
  const consoleLines: string[] = [];
  const calls: CallRecord[] = [];
  const used: { usage?: Usage } = {};
  const options = parseOptions(run.code);
  const maxOutputTokens = typeof options === "string" ? DEFAULT_MAX_OUTPUT_TOKENS : options.maxOutputTokens;
  const models = new ModelsBridge(run.host.models?.(), run.signal);
  const finish = (ok: boolean, error?: string): AgentToolResult => withModelCalls(models, items, {
    ...scriptResult({ ok, error, items, consoleLines, calls, wallMs: performance.now() - began, maxOutputTokens }),
    ...(used.usage ? { usage: used.usage } : {}),
    isError: !ok,
  });
  if (typeof options === "string") return finish(false, options);
  if (run.signal?.aborted) return finish(false, "The script was aborted before it ran.");

  // A timeout counts from the call, the wait for a worker included.
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  if (!(await acquireWorker(Math.min(options.timeoutMs ?? MAX_WAIT_FOR_WORKER_MS, MAX_WAIT_FOR_WORKER_MS), run.signal))) {
    return finish(false, run.signal?.aborted ? "The script was aborted before it ran." : "No codemode worker became free in time; the script did not run.");
  }
  try {
    let worker: Worker;
    try {
      worker = await takeCodemodeWorker();
    } catch (error) {
      return finish(false, `The script could not run: ${error instanceof Error ? error.message : String(error)}`);
    }
    return await runInWorker(worker, run, options, deadline, { items, consoleLines, calls, used, models }, finish);
  } finally {
    releaseWorker();
    // The next script's worker starts now, while the model reads this one's result.
    warmCodemodeWorker();
  }
}

interface Collected {
  items: OutputItem[];
  consoleLines: string[];
  calls: CallRecord[];
  /** The nested calls' usage, added up. */
  used: { usage?: Usage };
  models: ModelsBridge;
}

/** The script's model calls on its result: their usage (added to the nested calls'; it counts toward the session's cost) and a list in the details. */
function withModelCalls(models: ModelsBridge, items: OutputItem[], result: AgentToolResult): AgentToolResult {
  if (models.records.length === 0) return result;
  const usage = addUsage(result.usage, models.totalUsage());
  const content = [...result.content];
  if (models.unshownImages > 0 && !items.some((item) => item.type === "image")) {
    content.push({ type: "text", text: `Note: the script generated ${models.unshownImages} image(s) but showed none; pass each image block to image() to see it.` });
  }
  return { ...result, content, details: { ...result.details, modelCalls: models.records }, ...(usage ? { usage } : {}) };
}

async function runInWorker(
  worker: Worker,
  run: ScriptRun,
  options: ScriptOptions,
  deadline: number | undefined,
  { items, consoleLines, calls, used, models }: Collected,
  finish: (ok: boolean, error?: string) => AgentToolResult,
): Promise<AgentToolResult> {
  const callable = run.host.callableTools();
  const catalog: CatalogEntry[] = callable.map((tool) => ({
    name: tool.name,
    identifier: toolIdentifier(tool.name),
    description: describeCallable(tool),
    ...namespaceFields(tool.namespace),
  }));
  const mcpTools = new Set(callable.filter((tool) => tool.mcp).map((tool) => tool.name));
  const storeChanges: Record<string, unknown> = {};
  const nested = new AbortController();
  const running = new Set<Promise<void>>();
  const stop = new SharedArrayBuffer(4);
  const report = () => run.onUpdate?.({ content: [], details: { calls: detailsCalls(calls) } });

  const send = (message: HostMessage) => {
    try {
      worker.postMessage(message);
    } catch {
      // The worker is gone: the script is over.
    }
  };

  const runCall = (id: number, name: string, args: unknown) => {
    const record: CallRecord = { id: `${run.toolCallId}/${calls.length + 1}`, name, args, status: "running" };
    calls.push(record);
    report();
    const began = performance.now();
    const call = run.host
      .runNestedCall({ type: "toolCall", id: record.id, name, arguments: (args ?? {}) as Record<string, any> }, run.toolCallId, nested.signal)
      .then(async (outcome) => {
        record.durationMs = Math.round(performance.now() - began);
        used.usage = addUsage(used.usage, outcome.result.usage);
        const answer = mcpTools.has(name) ? await mcpCallValue(outcome) : await callValue(name, outcome);
        record.status = nested.signal.aborted ? "cancelled" : outcome.blocked ? "blocked" : answer.ok ? "ok" : "error";
        report();
        send(answer.ok ? { type: "reply", id, ok: true, value: answer.value } : { type: "reply", id, ok: false, error: answer.error });
      });
    running.add(call);
    void call.finally(() => running.delete(call));
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<{ ok: boolean; error?: string }>((resolve) => {
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const message = event.data;
      switch (message.type) {
        case "text":
          items.push({ type: "text", text: message.text });
          break;
        case "image":
          items.push({ type: "image", data: message.data, mimeType: message.mimeType });
          break;
        case "console":
          consoleLines.push(message.line);
          break;
        case "store":
          storeChanges[message.key] = message.value;
          break;
        case "call":
          runCall(message.id, message.name, message.args);
          break;
        case "models": {
          const answered = models.answer(message.operation, message.args).then(
            (value) => send({ type: "reply", id: message.id, ok: true, value }),
            (error: unknown) => send({ type: "reply", id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
          );
          running.add(answered);
          void answered.finally(() => running.delete(answered));
          break;
        }
        case "done":
          resolve(message.ok ? { ok: true } : { ok: false, error: message.error });
          break;
      }
    };
    worker.onerror = (event) => resolve({ ok: false, error: `The script's runtime failed: ${event.message}` });
    // The worker stops itself at the deadline too; this one also holds while it waits on a call.
    if (deadline !== undefined) timer = setTimeout(() => resolve({ ok: false, error: `Script timed out after ${options.timeoutMs} ms` }), Math.max(0, deadline - Date.now()));
    onAbort = () => resolve({ ok: false, error: "The script was aborted." });
    run.signal?.addEventListener("abort", onAbort, { once: true });
  });

  send({
    type: "start",
    code: run.code,
    catalog,
    stop,
    store: run.host.loadStore(),
    ...(deadline === undefined ? {} : { deadline, timeoutMs: options.timeoutMs }),
  });
  const end = await ended;
  if (timer) clearTimeout(timer);
  if (onAbort) run.signal?.removeEventListener("abort", onAbort);
  Atomics.store(new Int32Array(stop), 0, 1);
  worker.terminate();
  // Calls still running are cancelled; their results (and events) arrive before the script's own.
  nested.abort(new Error("The codemode script ended"));
  models.cancel();
  if (running.size > 0) await Promise.race([Promise.allSettled([...running]), Bun.sleep(CANCEL_GRACE_MS)]);
  if (end.ok && Object.keys(storeChanges).length > 0) run.host.saveStore(storeChanges);
  return finish(end.ok, end.error);
}
