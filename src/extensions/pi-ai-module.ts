/**
 * What an extension gets from `@earendil-works/pi-ai` / `@mariozechner/pi-ai`:
 * pi-ai's runtime exports (as of pi 1.6; pi-ai-1x.ts has the names added after 0.87), served by xcsh's own `src/ai/` layer,
 * including 0.8x's transcript helpers (pi-ai-transcript.ts: the stream functions
 * take a context whose `system` messages carry the prompt as well as one with a
 * `systemPrompt`) and its retry and lazy-loading helpers (pi-ai-helpers.ts).
 * Names xcsh deliberately lacks (unsupported-names.ts: OAuth, providers it does
 * not ship, 0.8x's model store) are exported as functions that throw "not
 * supported by xcsh" when called, so importing one does not fail the extension.
 * The provider stream functions (`streamAnthropic`, …) load their SDK on first
 * call and always use the built-in provider, even when an extension has taken
 * over the API in the registry and delegates to them.
 */
import { Type } from "typebox";
import type { AgentTool } from "../agent/types.ts";
import { validateToolArguments as validateAgentToolArguments } from "../agent/validate-arguments.ts";
import {
  clearApiProviders,
  getApiProvider,
  getApiProviders,
  lazyApiProvider,
  registerApiProvider,
  registerBuiltinApiProviders,
  unregisterApiProviders,
  type ProviderModule,
} from "../ai/api-registry.ts";
import { findEnvKeys, getEnvApiKey } from "../ai/env-api-keys.ts";
import { errorText, getOverflowPatterns, isContextOverflow } from "../ai/errors.ts";
import { AssistantMessageEventStream, createAssistantMessageEventStream, EventStream } from "../ai/event-stream.ts";
import { parseStreamingJson } from "../ai/json-parse.ts";
import { getModel, getModels, getProviders, modelsAreEqual } from "../ai/models.ts";
import { complete, completeSimple, stream, streamSimple } from "../ai/stream.ts";
import { clampThinkingLevel, getSupportedThinkingLevels } from "../ai/thinking.ts";
import { StringEnum } from "../ai/typebox-helpers.ts";
import type { AssistantMessage, TextContent, ThinkingContent, Tool, ToolCall } from "../ai/types.ts";
import type { Context, Model, ProviderStreamOptions, SimpleStreamOptions } from "../ai/types.ts";
import { calculateCost, emptyUsage } from "../ai/usage.ts";
import { notSupported, notSupportedNames } from "./not-supported.ts";
import { isRecoverableLength, isRetryableAssistantError, lazyApi, lazyStream, retryAssistantCall, retryDelayMs, DEFAULT_MAX_AGENT_RETRY_DELAY_MS } from "./pi-ai-helpers.ts";
import * as transcript from "./pi-ai-transcript.ts";
import * as later from "./pi-ai-1x.ts";
import { PI_AI_UNSUPPORTED, unsupportedNames } from "./unsupported-names.ts";

export { notSupported };

function stubs(moduleName: string, names: readonly string[]): Record<string, unknown> {
  return notSupportedNames(moduleName, names);
}

// --- provider stream functions --------------------------------------------------

function providerFunctions(api: string, load: () => Promise<ProviderModule>) {
  const provider = lazyApiProvider(api, load);
  return { stream: provider.stream, streamSimple: provider.streamSimple };
}

const anthropic = providerFunctions("anthropic-messages", () => import("../ai/providers/anthropic.ts"));
const openAICompletions = providerFunctions("openai-completions", () => import("../ai/providers/openai-completions.ts"));
const openAIResponses = providerFunctions("openai-responses", () => import("../ai/providers/openai-responses.ts"));
const google = providerFunctions("google-generative-ai", () => import("../ai/providers/google.ts"));
const googleVertex = providerFunctions("google-vertex", () => import("../ai/providers/google-vertex.ts"));
const azureResponses = providerFunctions("azure-openai-responses", () => import("../ai/providers/azure-openai-responses.ts"));

/** pi-ai's per-provider subpaths (`@…/pi-ai/anthropic`, …), by subpath. */
function providerSubpaths(moduleName: string): Record<string, Record<string, unknown>> {
  const sub = (path: string, names: string[]) => stubs(`${moduleName}/${path}`, names);
  return {
    anthropic: { streamAnthropic: anthropic.stream, streamSimpleAnthropic: anthropic.streamSimple },
    "openai-completions": {
      streamOpenAICompletions: openAICompletions.stream,
      streamSimpleOpenAICompletions: openAICompletions.streamSimple,
      ...sub("openai-completions", ["convertMessages"]),
    },
    "openai-responses": { streamOpenAIResponses: openAIResponses.stream, streamSimpleOpenAIResponses: openAIResponses.streamSimple },
    google: { streamGoogle: google.stream, streamSimpleGoogle: google.streamSimple },
    "google-vertex": { streamGoogleVertex: googleVertex.stream, streamSimpleGoogleVertex: googleVertex.streamSimple },
    mistral: sub("mistral", ["streamMistral", "streamSimpleMistral"]),
    "azure-openai-responses": {
      streamAzureOpenAIResponses: azureResponses.stream,
      streamSimpleAzureOpenAIResponses: azureResponses.streamSimple,
    },
    "openai-codex-responses": sub("openai-codex-responses", [
      "streamOpenAICodexResponses",
      "streamSimpleOpenAICodexResponses",
      "closeOpenAICodexWebSocketSessions",
      "getOpenAICodexWebSocketDebugStats",
      "resetOpenAICodexWebSocketDebugStats",
    ]),
    "bedrock-provider": sub("bedrock-provider", ["bedrockProviderModule"]),
    oauth: sub("oauth", [
      "anthropicOAuthProvider",
      "getGitHubCopilotBaseUrl",
      "getOAuthApiKey",
      "getOAuthProvider",
      "getOAuthProviderInfoList",
      "getOAuthProviders",
      "githubCopilotOAuthProvider",
      "loginAnthropic",
      "loginGitHubCopilot",
      "loginOpenAICodex",
      "normalizeDomain",
      "openaiCodexOAuthProvider",
      "refreshAnthropicToken",
      "refreshGitHubCopilotToken",
      "refreshOAuthToken",
      "refreshOpenAICodexToken",
      "registerOAuthProvider",
      "resetOAuthProviders",
      "unregisterOAuthProvider",
    ]),
  };
}

// --- small utilities pi-ai exports ----------------------------------------------

/** Escapes raw control characters inside JSON strings and doubles backslashes before invalid escapes. */
export function repairJson(json: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const char = json[i]!;
    if (!inString) {
      if (char === '"') inString = true;
      out += char;
      continue;
    }
    if (char === '"') {
      inString = false;
      out += char;
    } else if (char === "\\") {
      const next = json[i + 1];
      const validEscape = next !== undefined && (`"\\/bfnrt`.includes(next) || (next === "u" && /^[0-9a-fA-F]{4}$/.test(json.slice(i + 2, i + 6))));
      if (validEscape) {
        out += char + next;
        i++;
      } else {
        out += "\\\\";
      }
    } else if (char.charCodeAt(0) < 0x20) {
      const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
      out += named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
    } else {
      out += char;
    }
  }
  return out;
}

export function parseJsonWithRepair<T>(json: string): T {
  try {
    return JSON.parse(json) as T;
  } catch {
    return JSON.parse(repairJson(json)) as T;
  }
}

/** pi-ai's validation throws on bad arguments and returns the (coerced) ones. */
function validateToolArguments(tool: Tool, toolCall: ToolCall): unknown {
  // The agent's validator reads only name, parameters and the optional prepareArguments.
  const outcome = validateAgentToolArguments(tool as AgentTool<any>, toolCall);
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.args;
}

function validateToolCall(tools: Tool[], toolCall: ToolCall): unknown {
  const tool = tools.find((candidate) => candidate.name === toolCall.name);
  if (!tool) throw new Error(`Tool "${toolCall.name}" not found`);
  return validateToolArguments(tool, toolCall);
}

interface DiagnosticErrorInfo {
  name?: string;
  message: string;
  stack?: string;
  code?: string | number;
}

function extractDiagnosticError(error: unknown): DiagnosticErrorInfo {
  if (!(error instanceof Error)) return { message: errorText(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(error.stack ? { stack: error.stack } : {}),
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
  };
}

function createAssistantMessageDiagnostic(type: string, error: unknown, details?: Record<string, unknown>) {
  return { type, timestamp: Date.now(), error: extractDiagnosticError(error), ...(details ? { details } : {}) };
}

function appendAssistantMessageDiagnostic<T extends { diagnostics?: unknown[] }>(message: T, diagnostic: unknown): void {
  (message.diagnostics ??= []).push(diagnostic);
}

type SessionResourceCleanup = (sessionId?: string) => void;
const sessionResourceCleanups = new Set<SessionResourceCleanup>();

function registerSessionResourceCleanup(cleanup: SessionResourceCleanup): () => void {
  sessionResourceCleanups.add(cleanup);
  return () => sessionResourceCleanups.delete(cleanup);
}

function cleanupSessionResources(sessionId?: string): void {
  for (const cleanup of [...sessionResourceCleanups]) {
    try {
      cleanup(sessionId);
    } catch {
      // One failing cleanup must not keep the others from running.
    }
  }
}

let fauxIds = 0;
const fauxText = (text: string): TextContent => ({ type: "text", text });
const fauxThinking = (thinking: string): ThinkingContent => ({ type: "thinking", thinking });
const fauxToolCall = (name: string, args: ToolCall["arguments"], options: { id?: string } = {}): ToolCall => ({
  type: "toolCall",
  id: options.id ?? `tool:${Date.now()}:${++fauxIds}`,
  name,
  arguments: args,
});

type FauxBlock = TextContent | ThinkingContent | ToolCall;
function fauxAssistantMessage(
  content: string | FauxBlock | FauxBlock[],
  options: { stopReason?: AssistantMessage["stopReason"]; errorMessage?: string; responseId?: string; timestamp?: number } = {},
): AssistantMessage {
  const blocks = typeof content === "string" ? [fauxText(content)] : Array.isArray(content) ? content : [content];
  return {
    role: "assistant",
    content: blocks,
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: emptyUsage(),
    stopReason: options.stopReason ?? "stop",
    ...(options.errorMessage !== undefined ? { errorMessage: options.errorMessage } : {}),
    ...(options.responseId !== undefined ? { responseId: options.responseId } : {}),
    timestamp: options.timestamp ?? Date.now(),
  };
}

function resetApiProviders(): void {
  clearApiProviders();
  registerBuiltinApiProviders();
}

/** Root names xcsh lacks (the subpaths' own stand-ins come from providerSubpaths). */
const ROOT_UNSUPPORTED = unsupportedNames(PI_AI_UNSUPPORTED, ["models-store", "faux", "frames", "cache-warming", "client-identity", "telemetry"]);

/** The stream functions, taking a pi 0.8x transcript as well as a context with `systemPrompt`. */
const transcriptAware = {
  stream: (model: Model, context: Context, options?: ProviderStreamOptions) => stream(model, transcript.toProviderContext(context), options),
  complete: (model: Model, context: Context, options?: ProviderStreamOptions) => complete(model, transcript.toProviderContext(context), options),
  streamSimple: (model: Model, context: Context, options?: SimpleStreamOptions) => streamSimple(model, transcript.toProviderContext(context), options),
  completeSimple: (model: Model, context: Context, options?: SimpleStreamOptions) => completeSimple(model, transcript.toProviderContext(context), options),
};

function pick(modules: Record<string, Record<string, unknown>>, ...names: string[]): Record<string, unknown> {
  return Object.assign({}, ...names.map((name) => modules[name]));
}

// --- the module -------------------------------------------------------------------

/** The export object of `moduleName` (one of the pi-ai spellings). */
export function createPiAiModule(moduleName: string): Record<string, unknown> {
  const subpaths = providerSubpaths(moduleName);
  return {
    ...stubs(moduleName, ROOT_UNSUPPORTED),
    uuidv7: () => Bun.randomUUIDv7(),
    PI_AI_VERSION: later.PI_AI_VERSION,
    getModelType: later.getModelType,
    isModelType: later.isModelType,
    parseToolCallArguments: later.parseToolCallArguments,
    StreamingJsonParser: later.StreamingJsonParser,
    ToolCallArgumentsStream: later.ToolCallArgumentsStream,
    DEFAULT_MAX_AGENT_RETRY_DELAY_MS,
    retryDelayMs,
    retryAssistantCall,
    isRetryableAssistantError,
    isRecoverableLength,
    lazyApi,
    lazyStream,
    hasApi: (model: Model, api: string) => model?.api === api,
    contentText: transcript.contentText,
    getSystemMessageText: transcript.getSystemMessageText,
    renderSystemMessageUpdate: transcript.renderSystemMessageUpdate,
    createInitialSystemMessage: transcript.createInitialSystemMessage,
    normalizeContext: transcript.normalizeContext,
    getInitialSystemMessage: transcript.getInitialSystemMessage,
    withoutInitialSystemMessage: transcript.withoutInitialSystemMessage,
    getCurrentTools: transcript.getCurrentTools,
    getCurrentSystemMessage: transcript.getCurrentSystemMessage,
    getCurrentSystemPrompt: transcript.getCurrentSystemPrompt,
    collapseSystemMessages: transcript.collapseSystemMessages,
    resolveTranscript: transcript.resolveTranscript,
    toToolDeclaration: transcript.toToolDeclaration,
    declarationsEqual: transcript.declarationsEqual,
    getToolStateChanges: transcript.getToolStateChanges,
    getDeclaredTools: transcript.getDeclaredTools,
    hasToolRedefinitions: transcript.hasToolRedefinitions,
    hasNonAdditiveToolChanges: transcript.hasNonAdditiveToolChanges,
    resolveTranscriptTools: transcript.resolveTranscriptTools,
    Type,
    StringEnum,
    EventStream,
    AssistantMessageEventStream,
    createAssistantMessageEventStream,
    ...transcriptAware,
    getModel,
    getModels,
    getProviders,
    modelsAreEqual,
    calculateCost,
    getSupportedThinkingLevels,
    clampThinkingLevel,
    registerApiProvider,
    getApiProvider,
    getApiProviders,
    unregisterApiProviders,
    clearApiProviders,
    resetApiProviders,
    registerBuiltInApiProviders: registerBuiltinApiProviders,
    getEnvApiKey,
    findEnvKeys,
    isContextOverflow,
    getOverflowPatterns,
    parseStreamingJson,
    parseJsonWithRepair,
    repairJson,
    validateToolArguments,
    validateToolCall,
    formatThrownValue: errorText,
    extractDiagnosticError,
    createAssistantMessageDiagnostic,
    appendAssistantMessageDiagnostic,
    registerSessionResourceCleanup,
    cleanupSessionResources,
    fauxText,
    fauxThinking,
    fauxToolCall,
    fauxAssistantMessage,
    ...stubs(moduleName, ["setBedrockProviderModule"]),
    // pi-ai re-exports every provider's stream functions from its root.
    ...pick(subpaths, "anthropic", "google", "openai-responses", "google-vertex", "mistral", "azure-openai-responses"),
    streamOpenAICompletions: subpaths["openai-completions"]!.streamOpenAICompletions,
    streamSimpleOpenAICompletions: subpaths["openai-completions"]!.streamSimpleOpenAICompletions,
    streamOpenAICodexResponses: subpaths["openai-codex-responses"]!.streamOpenAICodexResponses,
    streamSimpleOpenAICodexResponses: subpaths["openai-codex-responses"]!.streamSimpleOpenAICodexResponses,
  };
}

/** pi-ai's subpaths (`<moduleName>/anthropic`, `/oauth`, …). */
export const PI_AI_SUBPATHS = [
  "anthropic",
  "openai-completions",
  "openai-responses",
  "google",
  "google-vertex",
  "mistral",
  "azure-openai-responses",
  "openai-codex-responses",
  "bedrock-provider",
  "oauth",
  "compat",
  "models",
  "session-resources",
  "lazy-oauth",
  "bun-oauth",
  "lazy-bedrock-provider",
] as const;

/**
 * `/compat`, which later pi versions (0.8x) added for the API of 0.73 — the one the root
 * serves here — plus names xcsh does not back (API factories, image generation).
 */
const COMPAT_ONLY_NAMES = unsupportedNames(PI_AI_UNSUPPORTED, ["compat"]);

function compatModule(moduleName: string): Record<string, unknown> {
  return {
    ...stubs(`${moduleName}/compat`, [...COMPAT_ONLY_NAMES, "setBedrockProviderLoader"]),
    ANTHROPIC_API_KEY_ENV: "ANTHROPIC_API_KEY",
    ANTHROPIC_AUTH_TOKEN_ENV: "ANTHROPIC_AUTH_TOKEN",
    ANTHROPIC_OAUTH_TOKEN_ENV: "ANTHROPIC_OAUTH_TOKEN",
    // Names of the environment variables of Anthropic's workload identity federation, which pi 1.x reads.
    ANTHROPIC_FEDERATION_RULE_ID_ENV: "ANTHROPIC_FEDERATION_RULE_ID",
    ANTHROPIC_IDENTITY_TOKEN_FILE_ENV: "ANTHROPIC_IDENTITY_TOKEN_FILE",
    ANTHROPIC_ORGANIZATION_ID_ENV: "ANTHROPIC_ORGANIZATION_ID",
    ANTHROPIC_SERVICE_ACCOUNT_ID_ENV: "ANTHROPIC_SERVICE_ACCOUNT_ID",
    ANTHROPIC_WORKSPACE_ID_ENV: "ANTHROPIC_WORKSPACE_ID",
    ...createPiAiModule(moduleName),
  };
}

function pickNames(module: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, module[name]]));
}

/** The export object of `<moduleName>/<subpath>`. */
export function createPiAiSubpathModule(moduleName: string, subpath: (typeof PI_AI_SUBPATHS)[number]): Record<string, unknown> {
  if (subpath === "compat") return compatModule(moduleName);
  if (subpath === "models") return pickNames(createPiAiModule(moduleName), later.MODELS_SUBPATH_NAMES);
  if (subpath === "session-resources") return pickNames(createPiAiModule(moduleName), later.SESSION_RESOURCES_NAMES);
  if (subpath === "lazy-oauth") return stubs(`${moduleName}/${subpath}`, ["registerLazyOAuthFlows"]);
  if (subpath === "bun-oauth") return stubs(`${moduleName}/${subpath}`, ["registerBunOAuthFlows"]);
  if (subpath === "lazy-bedrock-provider") return stubs(`${moduleName}/${subpath}`, ["registerLazyBedrockProvider"]);
  return providerSubpaths(moduleName)[subpath]!;
}
