/**
 * Builds the agent a run uses from what prepareRun resolved: every coding tool
 * for the working directory (the selected ones active) and codemode, whose
 * scripts reach the active tools through the agent's one tool-call path
 * (Agent.runNestedToolCall), the system prompt with
 * SYSTEM.md / APPEND_SYSTEM.md, the project's context files and skills, and provider
 * options from settings.
 */
import { Agent } from "../agent/agent.ts";
import { convertToLlm } from "../agent/messages.ts";
import type { AgentMessage } from "../agent/types.ts";
import { imagesBlocked, withoutImages } from "./blocked-images.ts";
import type { QueueMode } from "../agent/types.ts";
import type { CacheRetention } from "../ai/types.ts";
import { getAgentDir } from "../config/paths.ts";
import { loadContextFiles } from "../resources/context-files.ts";
import { loadSystemPromptFiles } from "../resources/system-prompt-files.ts";
import type { PromptSkill } from "../resources/system-prompt.ts";
import { allToolNames, createTools } from "../tools/index.ts";
import type { ShellSessionContext } from "../tools/session-environment.ts";
import { CODEMODE_TOOL_NAME, createCodemodeTool, DEFAULT_INLINE_BUDGET, type CodemodeMode } from "../codemode/index.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { trimKeptToolResults } from "./compaction/kept-tool-results.ts";
import type { RunSetup } from "./run-setup.ts";
import { ToolSet } from "./tool-set.ts";
import { createToolSearchTool, TOOL_SEARCH_NAME } from "./tool-search.ts";
import { activeBuiltins, mayActivateByItself, startsActive, type ToolSelection } from "./tool-selection.ts";
import { codemodeStore } from "./codemode-store.ts";
import { imagePolicy } from "./image-policy.ts";
import { fitToolResultImages } from "./tool-result-images.ts";

/**
 * The prompt-cache retention every request asks for: settings' `cacheRetention`,
 * else pi's PI_CACHE_RETENTION=long, else the providers' default (short).
 */
export function cacheRetentionOf(setting: CacheRetention | undefined, env: Record<string, string | undefined> = process.env): CacheRetention | undefined {
  if (setting) return setting;
  return env.PI_CACHE_RETENTION === "long" ? "long" : undefined;
}

export interface CreateAgentOptions {
  cwd: string;
  /**
   * Which tools start active (--tools, --exclude-tools, --no-tools, --no-builtin-tools);
   * by default settings' defaultTools (else read, bash, edit, write) and every extension tool.
   */
  tools?: ToolSelection;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** --no-context-files: no AGENTS.md / CLAUDE.md in the system prompt. */
  noContextFiles?: boolean;
  /** A line for the person: an instruction file that is there but was not read, and why. */
  warn?: (line: string) => void;
}

/**
 * `session` (the session file's manager) lets the bash tool tell commands which
 * session, model and reasoning level they run under, read as each command starts.
 */
export function createCodingAgent(
  setup: RunSetup,
  options: CreateAgentOptions,
  skills: PromptSkill[] = [],
  session?: ShellSessionContext["sessionManager"] & Partial<Pick<SessionManager, "getBranch" | "appendCustomEntry">>,
): { agent: Agent; toolSet: ToolSet } {
  const providerRetry = setup.settings.retry?.provider;
  // Old tool output kept by a compaction goes out trimmed (compaction/kept-tool-results.ts), unless turned off.
  const trim = setup.settings.compaction.trimToolResults !== false;
  const toLlm = (messages: AgentMessage[]) => convertToLlm(trim ? trimKeptToolResults(messages) : messages);
  const agent = new Agent({
    initialState: { model: setup.model, thinkingLevel: setup.thinkingLevel },
    // images.blockImages: no image goes to the model (blocked-images.ts).
    convertToLlm: imagesBlocked(setup.settings) ? (messages) => withoutImages(toLlm(messages)) : trim ? toLlm : undefined,
    // Validated by the settings schema ("all" | "one-at-a-time").
    steeringMode: setup.settings.steeringMode as QueueMode | undefined,
    followUpMode: setup.settings.followUpMode as QueueMode | undefined,
    streamOptions: {
      // The session's id keys the provider's prompt cache (`prompt_cache_key`), as in pi; read at each
      // request, so it follows /new, /resume and forks.
      get sessionId() {
        return session?.getSessionId();
      },
      thinkingBudgets: setup.settings.thinkingBudgets,
      timeoutMs: providerRetry?.timeoutMs,
      maxRetries: providerRetry?.maxRetries,
      cacheRetention: cacheRetentionOf(setup.settings.cacheRetention),
    },
  });
  // Every tool's images (an MCP server's, an extension's, one a tool_result hook added) are scaled like read's.
  agent.prepareToolResult = (result) => fitToolResultImages(result, imagePolicy(setup.settings, agent.state.model));
  // The command line's prompt texts win over SYSTEM.md / APPEND_SYSTEM.md; --no-context-files leaves those files alone, as pi does.
  const promptFiles = loadSystemPromptFiles(options.cwd, getAgentDir(), options.warn);
  // settings' defaultTools replace the default built-ins; the command line's choice still wins.
  const selection: ToolSelection = { ...options.tools, defaultBuiltins: options.tools?.defaultBuiltins ?? setup.settings.defaultTools };
  // settings' `codemode` object (validated by the settings schema).
  const codemodeSettings = () => (setup.settings.codemode ?? {}) as { mode?: CodemodeMode; inlineBudget?: number };
  const codemodeMode = (): CodemodeMode => (codemodeSettings().mode === "only" ? "only" : "on");
  const store = codemodeStore(session);
  // Scripts reach the session's tools through the agent's one tool-call path (hooks, permissions, sandbox).
  // The tool set is built with codemode in it, so it may ask before the set exists: nothing is callable yet.
  let toolSet: ToolSet | undefined;
  const codemode = createCodemodeTool({
    callableTools: () => toolSet?.callableByScripts().map(({ info }) => info) ?? [],
    isDeclared: (name) => toolSet?.declaredNames().includes(name) ?? false,
    mode: codemodeMode,
    inlineBudget: () => codemodeSettings().inlineBudget ?? DEFAULT_INLINE_BUDGET,
    // A script sees every MCP server's tools: the ones still connecting are waited for (each up to its startup timeout).
    prepare: () => toolSet?.waitForAllServers() ?? Promise.resolve(),
    runNestedCall: (call, parentToolCallId, signal) =>
      agent.runNestedToolCall(call, parentToolCallId, toolSet?.callableByScripts().map(({ tool }) => tool) ?? [], signal),
    loadStore: store.load,
    saveStore: store.save,
    models: () => setup.registry,
  });
  const toolSearch = createToolSearchTool({
    waitForAllServers: () => toolSet?.waitForAllServers() ?? Promise.resolve(),
    searchable: () => toolSet?.searchable() ?? [],
    isDeclared: (name) => toolSet?.declaredNames().includes(name) ?? false,
    load: (names) => toolSet?.load(names) ?? [],
  });
  // Every built-in exists (extensions can list and enable them); the selected ones are active.
  toolSet = new ToolSet(
    agent,
    {
      cwd: options.cwd,
      contextFiles: options.noContextFiles ? [] : loadContextFiles(options.cwd, getAgentDir(), options.warn),
      skills,
      customPrompt: options.systemPrompt ?? promptFiles.system?.content,
      appendPrompt: options.appendSystemPrompt ?? promptFiles.append?.content,
    },
    // settings.json's shell and prefix (an untrusted project's were left out when the settings loaded).
    createTools([...allToolNames], options.cwd, {
      // images.autoResize and the current model's resize profile, read at each call.
      read: { images: () => imagePolicy(setup.settings, agent.state.model) },
      bash: {
        shellPath: setup.settings.shellPath,
        commandPrefix: setup.settings.shellCommandPrefix,
        sessionContext: () => ({ sessionManager: session, model: agent.state.model, thinkingLevel: agent.state.thinkingLevel }),
      },
    }).concat(codemode, toolSearch),
    // codemode and tool_search are off unless named (--tools, settings' defaultTools) or an MCP server's tools need them.
    [...activeBuiltins(selection), ...[CODEMODE_TOOL_NAME, TOOL_SEARCH_NAME].filter((name) => startsActive(selection, name, true))],
    (name) => startsActive(selection, name, false),
    codemodeMode,
    (name) => mayActivateByItself(selection, name),
    // What tool_search loaded survives a compaction: it is read from the whole branch, not the context.
    session?.getBranch ? () => session.getBranch!().flatMap((entry) => (entry.type === "message" ? [entry.message] : [])) : undefined,
  );
  return { agent, toolSet };
}
