/**
 * The runtime names of pi's packages (as of pi 1.6.0) that xcsh deliberately
 * does not implement, grouped by the reason. Each is served as a stand-in that
 * throws "not supported by xcsh" when called (not-supported.ts), so importing one
 * never fails an extension. docs/extensions.md lists the same groups; a test
 * keeps the two equal.
 */

export interface UnsupportedGroup {
  id: string;
  /** Why xcsh lacks these, and what to use instead. */
  reason: string;
  names: readonly string[];
}

export const CODING_AGENT_UNSUPPORTED: readonly UnsupportedGroup[] = [
  {
    id: "sdk",
    reason: "pi's SDK for running its agent inside a program. xcsh is embedded as a process (`xcsh --mode rpc`); inside an extension, run a sub-agent with pi-agent-core's `Agent`.",
    names: [
      "AgentSession", "AgentSessionRuntime", "createAgentSession", "createAgentSessionFromServices", "createAgentSessionRuntime",
      "createAgentSessionServices", "createExtensionRuntime", "discoverAndLoadExtensions", "ExtensionRunner", "wrapRegisteredTool",
      "wrapRegisteredTools", "main", "parseArgs", "resolveCliModel", "resolveModelScopeWithDiagnostics", "runPrintMode",
      "runRpcMode", "InteractiveMode", "RpcClient",
    ],
  },
  {
    id: "stores",
    reason: "pi's own stores and loaders. Extensions reach xcsh's through their context (`ctx.modelRegistry`, `pi.registerProvider`, `ctx.isProjectTrusted()`).",
    names: [
      "AuthStorage", "FileAuthStorageBackend", "InMemoryAuthStorageBackend", "readStoredCredential", "CredentialSynchronizationError",
      "ModelRegistry", "ModelRuntime", "SettingsManager", "DefaultResourceLoader", "DefaultPackageManager", "ProjectTrustStore",
      "hasTrustRequiringProjectResources",
    ],
  },
  {
    id: "interactive-screens",
    reason: "screens of pi's interactive mode; xcsh's terminal UI is its own. Build UIs from pi-tui's components and `ctx.ui`.",
    names: [
      "ArminComponent", "AssistantMessageComponent", "BashExecutionComponent", "BranchSummaryMessageComponent",
      "CompactionSummaryMessageComponent", "CustomMessageComponent", "ExtensionEditorComponent", "ExtensionInputComponent",
      "ExtensionSelectorComponent", "FooterComponent", "LoginDialogComponent", "ModelSelectorComponent", "OAuthSelectorComponent",
      "SessionSelectorComponent", "SettingsSelectorComponent", "ShowImagesSelectorComponent", "SkillInvocationMessageComponent",
      "ThemeSelectorComponent", "ThinkingSelectorComponent", "ToolExecutionComponent", "TreeSelectorComponent",
      "UserMessageComponent", "UserMessageSelectorComponent", "Theme", "initTheme",
    ],
  },
  {
    id: "package-paths",
    reason: "paths into pi's installed package; xcsh is one binary without a package folder.",
    names: ["getDocsPath", "getExamplesPath", "getPackageDir", "getReadmePath"],
  },
  {
    id: "powershell",
    reason: "xcsh has no PowerShell tool (bash runs commands on every platform).",
    names: ["createLocalPowerShellOperations", "createPowerShellTool", "createPowerShellToolDefinition", "getPowerShellConfig"],
  },
  {
    id: "branch-summary",
    reason: "xcsh summarizes a branch inside `ctx.navigateTree(target, { summarize: true })` and does not expose the steps; its summary call does not report usage.",
    names: ["collectEntriesForBranchSummary", "prepareBranchEntries", "generateBranchSummary", "generateSummaryWithUsage"],
  },
  {
    id: "builtin-extensions",
    reason: "factories of pi 1.x's built-in codemode, MCP and tool-search extensions. xcsh connects MCP servers itself (mcp.json, and `pi.registerMcpServer` for extensions) and has codemode and tool_search as tools, not extensions to create.",
    names: ["createCodemodeExtension", "createMcpExtension", "createToolSearchExtension"],
  },
];

export const PI_AI_UNSUPPORTED: readonly UnsupportedGroup[] = [
  {
    id: "models-store",
    reason: "pi-ai 0.8x's model and credential stores. xcsh keeps models and keys in its registry: `ctx.modelRegistry`, `pi.registerProvider`, `getModel`.",
    names: [
      "createModels", "createProvider", "InMemoryModelsStore", "ModelsError", "InMemoryCredentialStore", "envApiKeyAuth",
      "defaultProviderAuthContext", "createImagesModels", "createImagesProvider", "lazyOAuth",
    ],
  },
  {
    id: "faux",
    reason: "pi's faux provider. Register a test provider with `pi.registerProvider` and a `streamSimple` instead (the `faux*` message builders are real).",
    names: ["registerFauxProvider", "fauxProvider", "createFauxCore"],
  },
  {
    id: "frames",
    reason: "the frame encoding of pi's hosted sessions.",
    names: ["AssistantMessageFrameEncoder", "reduceAssistantMessageFrames"],
  },
  {
    id: "providers",
    reason: "provider modules xcsh does not expose (Mistral's own API, Codex's WebSocket transport, pi's pluggable Bedrock module; Bedrock itself is built in) — root names and their subpaths `/mistral`, `/openai-codex-responses`, `/bedrock-provider`.",
    names: [
      "setBedrockProviderModule", "streamMistral", "streamSimpleMistral",
      "streamOpenAICodexResponses", "streamSimpleOpenAICodexResponses",
      "closeOpenAICodexWebSocketSessions", "getOpenAICodexWebSocketDebugStats", "resetOpenAICodexWebSocketDebugStats", "bedrockProviderModule",
      "registerLazyBedrockProvider", "setBedrockProviderLoader",
    ],
  },
  {
    id: "cache-warming",
    reason: "pi 1.x's prompt-cache warming (refresh requests while the agent is idle); xcsh sends no such requests.",
    names: [
      "CACHE_WARMING_IDLE_CONTINUATION_PROBABILITY", "CACHE_WARMING_MAX_AGE_MS", "CACHE_WARMING_MAX_IDLE_AGE_MS",
      "CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS", "evaluateCacheWarming", "getCacheWarmingDelayMs", "getCacheWarmingRequestOptions",
      "getPromptCacheTtlMs", "isCacheWarmingReplayable",
    ],
  },
  {
    id: "client-identity",
    reason: "pi 1.x's client identity (pi's User-Agent and attribution headers for OpenRouter, NVIDIA and OpenCode); xcsh sends its own User-Agent and no attribution headers. Set headers with `models.json` or `before_provider_headers`.",
    names: [
      "PI_ATTRIBUTION", "formatUserAgent", "getAttributionHeaders", "getClientVersion", "getIdentityHeaders", "getOpenCodeSessionHeaders",
      "mergeClientIdentity", "withClientIdentity",
    ],
  },
  {
    id: "telemetry",
    reason: "pi-ai's telemetry schema; xcsh records no telemetry.",
    names: ["AI_TELEMETRY_SCHEMA"],
  },
  {
    id: "oauth",
    reason: "OAuth sign-in (`/oauth`); xcsh takes API keys (models.json, environment, `registerProvider`).",
    names: [
      "anthropicOAuthProvider", "getGitHubCopilotBaseUrl", "getOAuthApiKey", "getOAuthProvider", "getOAuthProviderInfoList",
      "getOAuthProviders", "githubCopilotOAuthProvider", "loginAnthropic", "loginGitHubCopilot", "loginOpenAICodex", "normalizeDomain",
      "openaiCodexOAuthProvider", "refreshAnthropicToken", "refreshGitHubCopilotToken", "refreshOAuthToken", "refreshOpenAICodexToken",
      "registerOAuthProvider", "resetOAuthProviders", "unregisterOAuthProvider", "registerLazyOAuthFlows", "registerBunOAuthFlows",
    ],
  },
  {
    id: "compat",
    reason: "`/compat`'s API factories and image generation; xcsh's stream functions are the root's.",
    names: [
      "anthropicMessagesApi", "azureOpenAIResponsesApi", "bedrockConverseStreamApi", "generateImages", "generateImagesOpenRouter",
      "getImageModel", "getImageModels", "getImageProviders", "getImagesApiProvider", "googleGenerativeAIApi", "googleVertexApi",
      "mistralConversationsApi", "openAICodexResponsesApi", "openAICompletionsApi", "openAIResponsesApi", "piMessagesApi",
      "registerBuiltInImagesApiProviders", "registerImagesApiProvider",
    ],
  },
  {
    id: "converter",
    reason: "`/openai-completions`' message converter, an internal of pi's provider.",
    names: ["convertMessages"],
  },
];

export const AGENT_CORE_UNSUPPORTED: readonly UnsupportedGroup[] = [
  {
    id: "harness",
    reason: "pi 0.87's agent harness: sessions in lanes, storage repos, operations. xcsh runs one agent per session and keeps sessions in its own store; use `Agent` for an agent of your own.",
    names: [
      "AgentHarness", "JsonlSessionRepo", "MemorySessionRepo", "StorageBackedSession", "JSONL_STORAGE_VERSION",
      "SessionBranchExistsError", "SessionInvalidBranchError", "SessionInvariantError", "SessionPendingAssistantMessageError",
      "SessionUnknownTargetError", "SliceNotImplemented", "appendList", "deleteList", "deleteValue", "setValue", "list", "value",
      "sessionName", "entryLabel", "insertEntry", "insertUsage", "branchTip", "branchTipInventoryPrefix", "commitWrite",
      "prepareStorageCommit", "validateCommittedWrites", "projectForkCurrentStateWrite", "createForkSnapshot", "reduceLaneSnapshot",
      "laneConfig", "laneState", "resolveListReadOptions", "operationMeta", "operationPreparation", "operationPreparationPrefix",
      "operationResult", "operationScopeOf", "operationState", "operationToolArgs", "operationToolArgsPrefix", "operationToolMemo",
      "operationToolMemoPrefix", "pendingAssistantFrames", "pendingEntry", "pendingToolOutput", "pendingToolOutputPrefix",
    ],
  },
  {
    id: "harness-tools",
    reason: "tools, resources and summaries over the harness's execution environment and model store; xcsh's tools are `createReadTool` & co. of the coding-agent API, its compaction is `ctx.compact()`.",
    names: [
      "createBashTool", "createEditTool", "createReadTool", "createWriteTool", "executeShellWithCapture", "applyShellOutputUpdate",
      "loadSkills", "loadSourcedSkills", "loadPromptTemplates", "loadSourcedPromptTemplates", "compact", "prepareCompaction",
      "generateSummary", "generateSummaryWithUsage", "generateBranchSummary", "collectEntriesForBranchSummary", "prepareBranchEntries",
    ],
  },
  {
    id: "contexts-and-telemetry",
    reason: "the harness's cancellation contexts and telemetry spans; xcsh records no telemetry (`NOOP_TELEMETRY_CONTEXT` and `defineTelemetrySchema` are real).",
    names: [
      "BACKGROUND_CONTEXT", "TODO_CONTEXT", "awaitWithContext", "createContextKey", "withAbortSignal", "withCancel", "withContextValue",
      "withoutAbortSignal", "getTelemetryContext", "withTelemetryContext", "AGENT_TELEMETRY_SCHEMAS", "AI_TELEMETRY_SCHEMA",
      "HARNESS_TELEMETRY_SCHEMA", "InMemoryTelemetryContext", "createTypedSpanStarter", "startAiSpan", "startHarnessSpan",
    ],
  },
  {
    id: "proxy",
    reason: "a stream function for pi's hosted proxy server.",
    names: ["streamProxy"],
  },
  {
    id: "identity-and-single-calls",
    reason: "pi 1.x's default request identity of an agent (xcsh sends no attribution headers) and its one-call tool runner with hooks; run tools through `Agent` or call a tool's `execute` yourself.",
    names: ["DEFAULT_AGENT_IDENTITY", "runToolCall"],
  },
];

export function unsupportedNames(groups: readonly UnsupportedGroup[], ids?: readonly string[]): string[] {
  return groups.filter((group) => !ids || ids.includes(group.id)).flatMap((group) => group.names);
}
