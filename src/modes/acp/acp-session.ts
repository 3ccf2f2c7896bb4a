/**
 * One ACP session: an AgentSession (the same one RPC mode drives, on the same
 * session file) plus what ACP adds — the session mode and remembered permission
 * answers, the gate that asks before changing tools run, the prompt turn in
 * progress, and the stream of `session/update` notifications. Updates go out in
 * the order they were produced; a prompt's response is sent only after all of
 * its updates.
 */
import { RequestError, type AgentContext, type ClientCapabilities, type PromptResponse, type SessionConfigOption, type SessionUpdate } from "@agentclientprotocol/sdk";
import type { BeforeToolCallContext, BeforeToolCallResult } from "../../agent/types.ts";
import type { AssistantMessage, Model } from "../../ai/types.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import { RunMeter } from "../../core/run-limits.ts";
import type { TodoPhase } from "../../core/todos.ts";
import { clientBackedTools, clientFileReader } from "./client-tools.ts";
import { answerOf, decide, isModeId, permissionOptions, SESSION_MODES, type AcpModeId } from "./permissions.ts";
import { planEntries, todoPhasesFromTool } from "./plan.ts";
import { answerMcpCommand, isMcpCommand } from "../../mcp/session-command.ts";
import { promptInput } from "./prompt-input.ts";
import { SANDBOX_OPTION_ID, sandboxOption, setSandboxOption } from "./sandbox-option.ts";
import { changedFile, diffContent, toolKind, toolLocations, toolTitle } from "./tool-calls.ts";
import { replayUpdates, UpdateTranslator } from "./updates.ts";

export interface AcpSessionOptions {
  session: AgentSession;
  extensions?: ExtensionSystem;
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
  /** --max-turns: a prompt turn stops with `max_turn_requests` past this many model requests. */
  maxTurns?: number;
}

interface Turn {
  cancelled: boolean;
}

interface FileBefore {
  path: string;
  oldText: string | null;
}

const modelKey = (model: Model) => `${model.provider}/${model.id}`;

export class AcpSession {
  readonly id: string;
  readonly session: AgentSession;
  readonly extensions: ExtensionSystem | undefined;
  mode: AcpModeId = "default";
  private readonly client: AgentContext;
  private readonly capabilities: ClientCapabilities | undefined;
  private readonly maxTurns: number | undefined;
  private readonly memory = { allowed: new Set<string>(), rejected: new Set<string>() };
  private readonly translator: UpdateTranslator;
  private readonly before = new Map<string, FileBefore>();
  private readonly after = new Map<string, { oldText: string | null; newText: string }>();
  private outbox: Promise<void> = Promise.resolve();
  private turn: Turn | undefined;
  private closed = false;
  private stopping = false;
  private readonly readFile: (path: string) => Promise<string>;

  constructor(options: AcpSessionOptions) {
    this.session = options.session;
    this.extensions = options.extensions;
    this.client = options.client;
    this.capabilities = options.capabilities;
    this.maxTurns = options.maxTurns;
    this.id = this.session.sessionManager.getSessionId();
    const cwd = this.session.cwd;
    const clientRead = clientFileReader({ client: this.client, sessionId: this.id, cwd, capabilities: this.capabilities, embedTerminal: () => {} });
    this.readFile = this.capabilities?.fs?.readTextFile ? clientRead : (path) => Bun.file(path).text();
    this.translator = new UpdateTranslator(cwd, (toolCallId) => this.after.get(toolCallId));
    this.session.tools.replaceBuiltins(
      clientBackedTools({
        client: this.client,
        sessionId: this.id,
        cwd,
        capabilities: this.capabilities,
        embedTerminal: (toolCallId, terminalId) => {
          this.translator.markTerminal(toolCallId);
          this.send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress", content: [{ type: "terminal", terminalId }] });
        },
      }),
    );
    this.installGate();
    this.watchTodos();
    this.session.subscribe(async (event) => {
      if (event.type !== "tool_execution_end") {
        for (const update of this.translator.translate(event)) this.send(update);
        return;
      }
      await this.noteFileAfter(event.toolCallId, event.toolName, event.isError);
      const args = this.translator.argsOf(event.toolCallId);
      for (const update of this.translator.translate(event)) this.send(update);
      this.after.delete(event.toolCallId);
      const phases = event.isError ? undefined : todoPhasesFromTool(event.toolName, event.result, args);
      if (phases) this.session.todos.phases = phases;
    });
  }

  // --- updates ------------------------------------------------------------------

  /** Queues a session/update; updates leave in the order they were queued. */
  send(update: SessionUpdate): void {
    if (this.closed) return;
    const notify = () => this.client.notify("session/update", { sessionId: this.id, update });
    this.outbox = this.outbox.then(notify).catch((error) => {
      process.stderr.write(`xcsh: acp: could not send a session update: ${(error as Error).message}\n`);
    });
  }

  /** Resolves once every update queued so far has been written. */
  flushed(): Promise<void> {
    return this.outbox;
  }

  replay(): void {
    for (const update of replayUpdates(this.session.messages, this.session.cwd)) this.send(update);
  }

  // --- prompt turns ---------------------------------------------------------------

  get busy(): boolean {
    return this.turn !== undefined;
  }

  async prompt(blocks: Parameters<typeof promptInput>[0], requestSignal: AbortSignal): Promise<PromptResponse> {
    if (this.turn) {
      throw RequestError.invalidRequest(undefined, `session ${this.id} is already answering a prompt; wait for its response, or send session/cancel first`);
    }
    // The client is gone (stdin ended): a prompt it sent last is answered, but no run starts.
    if (this.stopping) return { stopReason: "cancelled" };
    const turn: Turn = { cancelled: false };
    this.turn = turn;
    const onRequestCancelled = () => void this.cancel();
    requestSignal.addEventListener("abort", onRequestCancelled, { once: true });
    const meter = this.maxTurns !== undefined ? new RunMeter(this.session, { maxTurns: this.maxTurns }) : undefined;
    try {
      const input = await promptInput(blocks, this.readFile);
      // /mcp (unless an extension took the name) is answered as a message of the agent; no run starts.
      if (isMcpCommand(input.text) && !this.session.isCommand(input.text)) {
        const answer = await answerMcpCommand(this.session.mcp, input.text);
        this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: answer.text } });
        await this.flushed();
        return { stopReason: "end_turn" };
      }
      const firstNew = this.session.messages.length;
      meter?.start();
      try {
        await this.session.prompt(input.text, { images: input.images.length > 0 ? input.images : undefined, source: "rpc" });
      } catch (error) {
        if (!turn.cancelled) throw RequestError.internalError(undefined, (error as Error).message);
      } finally {
        meter?.finish();
      }
      await this.flushed();
      if (turn.cancelled) return { stopReason: "cancelled" };
      if (meter?.reached === "max_turns") return { stopReason: "max_turn_requests" };
      const last = this.session.messages.slice(firstNew).findLast((message): message is AssistantMessage => message.role === "assistant");
      return stopReasonOf(last);
    } finally {
      requestSignal.removeEventListener("abort", onRequestCancelled);
      if (this.turn === turn) this.turn = undefined;
    }
  }

  /** The client has gone: the run in progress stops, and prompts still on their way are answered `cancelled` without running. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.cancel();
  }

  /** session/cancel: stops the run (model stream, tools, bash trees, a pending permission request). */
  async cancel(): Promise<void> {
    if (!this.turn) return;
    this.turn.cancelled = true;
    await this.session.abort();
  }

  async close(): Promise<void> {
    await this.cancel();
    await this.session.waitForIdle();
    await this.outbox;
    this.closed = true;
    await this.extensions?.shutdown();
    // The session's MCP servers (the client's and the configured ones) end with it.
    await this.session.mcp?.close();
  }

  // --- modes and config ---------------------------------------------------------------

  modeState() {
    return { currentModeId: this.mode, availableModes: SESSION_MODES };
  }

  setMode(modeId: string): void {
    if (!isModeId(modeId)) {
      throw RequestError.invalidParams(undefined, `unknown mode "${modeId}"; use one of: ${SESSION_MODES.map((mode) => mode.id).join(", ")}`);
    }
    this.mode = modeId;
    this.send({ sessionUpdate: "current_mode_update", currentModeId: modeId });
  }

  configOptions(): SessionConfigOption[] {
    const current = this.session.model;
    const models = this.session.models.availableModels();
    if (!models.some((model) => modelKey(model) === modelKey(current))) models.unshift(current);
    return [
      {
        type: "select",
        id: "model",
        name: "Model",
        category: "model",
        currentValue: modelKey(current),
        options: models.map((model) => ({ value: modelKey(model), name: model.name || model.id, description: model.provider })),
      },
      {
        type: "select",
        id: "mode",
        name: "Mode",
        category: "mode",
        currentValue: this.mode,
        options: SESSION_MODES.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description })),
      },
      sandboxOption(),
    ];
  }

  async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
    if (typeof value !== "string") throw RequestError.invalidParams(undefined, `config option "${configId}" takes a string value`);
    if (configId === "mode") this.setMode(value);
    else if (configId === "model") {
      const slash = value.indexOf("/");
      const model = slash > 0 ? this.session.registry.find(value.slice(0, slash), value.slice(slash + 1)) : undefined;
      if (!model) throw RequestError.invalidParams(undefined, `unknown model "${value}"; use a value from the "model" config option's list`);
      try {
        await this.session.models.setModel(model);
      } catch (error) {
        throw RequestError.authRequired(undefined, (error as Error).message);
      }
    } else if (configId === SANDBOX_OPTION_ID) setSandboxOption(value, this.session.settings, this.session.cwd);
    else throw RequestError.invalidParams(undefined, `unknown config option "${configId}"; this agent has "model", "mode" and "sandbox"`);
    return this.configOptions();
  }

  /** Extension commands, prompt templates and skills, as the client's slash-command list. */
  sendAvailableCommands(): void {
    const extensionCommands = this.extensions?.commandEntries() ?? [];
    const commands = this.session.resources?.commands(extensionCommands) ?? extensionCommands.map((command) => ({ ...command, source: "extension" as const }));
    this.send({
      sessionUpdate: "available_commands_update",
      availableCommands: commands.map((command) => ({
        name: command.name,
        description: command.description ?? (command.source === "extension" ? "Extension command" : command.source === "skill" ? "Skill" : "Prompt template"),
        ...(command.source === "extension" ? {} : { input: { hint: "optional arguments" } }),
      })).concat(
        // The session's MCP servers: state and errors, or `reconnect <name>` (src/mcp/session-command.ts).
        this.session.mcp && !commands.some((command) => command.name === "mcp")
          ? [{ name: "mcp", description: "MCP servers: state, tools, last error; reconnect <name>", input: { hint: "[reconnect <name>]" } }]
          : [],
      ),
    });
  }

  // --- todos as plans --------------------------------------------------------------

  /** Every change of the session's todo plan (set_todos, a todo tool) goes to the client as a `plan` update. */
  private watchTodos(): void {
    this.session.todos.onChange((phases) => this.send({ sessionUpdate: "plan", entries: planEntries(phases) }));
  }

  // --- permissions --------------------------------------------------------------

  /** The ACP gate runs after whatever `beforeToolCall` extensions install; their block wins. */
  private installGate(): void {
    this.session.agent.permissionGate = (context, signal) => this.gate(context, signal);
  }

  private async gate(context: BeforeToolCallContext, signal?: AbortSignal): Promise<BeforeToolCallResult | undefined> {
    const { id: toolCallId, name } = context.toolCall;
    const args = (context.args ?? {}) as Record<string, unknown>;
    const marked = context.context.tools?.find((tool) => tool.name === name)?.changesState === true;
    const verdict = decide(this.mode, name, this.memory, marked);
    if (verdict.action === "deny") return { block: true, reason: verdict.reason };
    await this.noteFileBefore(toolCallId, name, args);
    if (verdict.action === "ask") {
      const refusal = await this.askPermission(toolCallId, name, args, signal);
      if (refusal) return { block: true, reason: refusal };
    }
    this.send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
    return undefined;
  }

  /** Asks the client; undefined when the call may run, else why it may not. */
  private async askPermission(toolCallId: string, name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string | undefined> {
    const cwd = this.session.cwd;
    const before = this.before.get(toolCallId);
    const preview = name === "write" && before && typeof args.content === "string" ? { oldText: before.oldText, newText: args.content } : undefined;
    await this.flushed();
    let outcome: { outcome: string; optionId?: string };
    try {
      const response = await this.client.request(
        "session/request_permission",
        {
          sessionId: this.id,
          toolCall: {
            toolCallId,
            title: toolTitle(name, args),
            kind: toolKind(name),
            status: "pending",
            content: diffContent(name, args, cwd, preview),
            locations: toolLocations(name, args, cwd),
            rawInput: args,
          },
          options: permissionOptions(name),
        },
        signal ? { cancellationSignal: signal } : undefined,
      );
      outcome = response.outcome;
    } catch (error) {
      if (signal?.aborted) return "The prompt was cancelled before the user answered; the tool was not run.";
      return `Permission could not be asked (${(error as Error).message}); the tool was not run.`;
    }
    switch (answerOf(outcome)) {
      case "allow_always":
        this.memory.allowed.add(name);
        return undefined;
      case "allow_once":
        return undefined;
      case "reject_always":
        this.memory.rejected.add(name);
        return `The user rejected this "${name}" call and every later one in this session; it was not run.`;
      case "reject_once":
        return `The user rejected this "${name}" call; it was not run. Ask what they want instead.`;
      case "cancelled":
        return "The permission request was cancelled; the tool was not run.";
    }
  }

  /** The whole file before an edit or write, so the client can be shown a real diff. */
  private async noteFileBefore(toolCallId: string, name: string, args: Record<string, unknown>): Promise<void> {
    const path = changedFile(name, args, this.session.cwd);
    if (!path || this.before.has(toolCallId)) return;
    const oldText = await this.readFile(path).catch(() => null);
    this.before.set(toolCallId, { path, oldText });
  }

  private async noteFileAfter(toolCallId: string, name: string, isError: boolean): Promise<void> {
    const before = this.before.get(toolCallId);
    this.before.delete(toolCallId);
    if (!before || isError) return;
    const newText = await this.readFile(before.path).catch(() => undefined);
    if (newText !== undefined && (name === "edit" || name === "write")) this.after.set(toolCallId, { oldText: before.oldText, newText });
  }
}

/** How a finished run ended, as ACP names it. A provider failure is an error response, not a stop reason. */
function stopReasonOf(last: AssistantMessage | undefined): PromptResponse {
  switch (last?.stopReason) {
    case "length":
      return { stopReason: "max_tokens" };
    case "aborted":
      return { stopReason: "cancelled" };
    case "error": {
      const message = last.errorMessage ?? "the model request failed";
      if (/refus/i.test(message)) return { stopReason: "refusal" };
      throw RequestError.internalError({ errorMessage: message }, message);
    }
    default:
      return { stopReason: "end_turn" };
  }
}
