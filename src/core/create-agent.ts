/**
 * Builds the agent a run uses from what prepareRun resolved: the coding tools
 * for the working directory, the system prompt with the project's context
 * files, and provider options from settings.
 */
import { Agent } from "../agent/agent.ts";
import type { QueueMode } from "../agent/types.ts";
import { getAgentDir } from "../config/paths.ts";
import { loadContextFiles } from "../resources/context-files.ts";
import { buildSystemPrompt } from "../resources/system-prompt.ts";
import { createTools, defaultToolNames, type ToolName } from "../tools/index.ts";
import type { RunSetup } from "./run-setup.ts";

export interface CreateAgentOptions {
  cwd: string;
  /** Tools to enable; defaults to read, bash, edit, write. An empty list disables tools. */
  toolNames?: readonly ToolName[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
}

export function createCodingAgent(setup: RunSetup, options: CreateAgentOptions): Agent {
  const tools = createTools(options.toolNames ?? defaultToolNames, options.cwd);
  const systemPrompt = buildSystemPrompt({
    cwd: options.cwd,
    tools,
    contextFiles: loadContextFiles(options.cwd, getAgentDir()),
    customPrompt: options.systemPrompt,
    appendPrompt: options.appendSystemPrompt,
  });
  const providerRetry = setup.settings.retry?.provider;
  return new Agent({
    initialState: { model: setup.model, thinkingLevel: setup.thinkingLevel, systemPrompt, tools },
    // Validated by the settings schema ("all" | "one-at-a-time").
    steeringMode: setup.settings.steeringMode as QueueMode | undefined,
    followUpMode: setup.settings.followUpMode as QueueMode | undefined,
    streamOptions: {
      thinkingBudgets: setup.settings.thinkingBudgets,
      timeoutMs: providerRetry?.timeoutMs,
      maxRetries: providerRetry?.maxRetries,
    },
  });
}
