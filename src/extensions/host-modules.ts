/**
 * The modules extensions import, served from inside the binary. There is no
 * node_modules next to xcsh, so `xcsh`, pi's package names, typebox (and the old
 * `@sinclair/typebox` spellings), pi-ai and pi-tui are registered as virtual
 * modules with `Bun.plugin` before the first extension is imported. Each
 * specifier is registered by name — in a compiled binary a runtime plugin's
 * onResolve is never consulted, only `build.module` works. A module's factory runs
 * on its first import, so pi-tui loads only when an extension asks for it (its
 * string-literal `require()` is still bundled into the binary).
 */
import { plugin } from "bun";
import { createPiAiModule, createPiAiSubpathModule, notSupported, PI_AI_SUBPATHS } from "./pi-ai-module.ts";
import { loadPiTui } from "./tui-helpers.ts";

export interface HostModulesApi {
  /** The namespace of src/index.ts, handed over by the entry point. */
  codingAgent: Record<string, unknown>;
}

type ModuleExports = Record<string, unknown>;
type ModuleFactory = () => ModuleExports;

const CODING_AGENT_NAMES = ["xcsh", "@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"];
const PI_AI_NAMES = ["@earendil-works/pi-ai", "@mariozechner/pi-ai"];
const PI_TUI_NAMES = ["@earendil-works/pi-tui", "@mariozechner/pi-tui"];

/**
 * pi-coding-agent's runtime exports that xcsh's API has no counterpart for: its
 * SDK (sessions, runtimes, resource loaders), interactive-mode components and
 * internals. They are served as functions that throw "not supported by xcsh"
 * when called, so that an extension merely importing one still loads.
 */
const PI_CODING_AGENT_ONLY = [
  "AgentSession", "AgentSessionRuntime", "ArminComponent", "AssistantMessageComponent", "AuthStorage",
  "BashExecutionComponent", "BranchSummaryMessageComponent", "CompactionSummaryMessageComponent",
  "CustomMessageComponent", "DefaultPackageManager", "DefaultResourceLoader", "ExtensionEditorComponent",
  "ExtensionInputComponent", "ExtensionRunner", "ExtensionSelectorComponent", "FileAuthStorageBackend",
  "FooterComponent", "InMemoryAuthStorageBackend", "InteractiveMode", "LoginDialogComponent", "ModelRegistry",
  "ModelSelectorComponent", "OAuthSelectorComponent", "RpcClient", "SessionSelectorComponent", "SettingsManager",
  "SettingsSelectorComponent", "ShowImagesSelectorComponent", "SkillInvocationMessageComponent", "Theme",
  "ThemeSelectorComponent", "ThinkingSelectorComponent", "ToolExecutionComponent", "TreeSelectorComponent",
  "UserMessageComponent", "UserMessageSelectorComponent", "collectEntriesForBranchSummary", "compact",
  "createAgentSession", "createAgentSessionFromServices", "createAgentSessionRuntime", "createAgentSessionServices",
  "createBashToolDefinition", "createEditToolDefinition", "createEventBus", "createExtensionRuntime",
  "createFindToolDefinition", "createGrepToolDefinition", "createLsToolDefinition", "createReadToolDefinition",
  "createSyntheticSourceInfo", "createWriteToolDefinition", "discoverAndLoadExtensions", "formatSkillsForPrompt",
  "generateBranchSummary", "generateSummary", "getShellConfig", "initTheme", "loadProjectContextFiles", "loadSkills",
  "loadSkillsFromDir", "main", "parseSkillBlock", "prepareBranchEntries", "renderDiff", "runPrintMode", "runRpcMode",
  "truncateToVisualLines", "wrapRegisteredTool", "wrapRegisteredTools",
];

function codingAgentModule(name: string, api: HostModulesApi): ModuleExports {
  const unsupported = Object.fromEntries(PI_CODING_AGENT_ONLY.map((exportName) => [exportName, notSupported(name, exportName)]));
  return { ...unsupported, ...api.codingAgent, default: api.codingAgent };
}

/*
 * Once registered, a virtual module answers its specifier for every importer,
 * xcsh's own code included: a factory that imported "typebox/compile" would get
 * itself. So typebox's modules are imported before the plugin exists (by
 * `loadTypebox`, dynamically: static imports here would put typebox/compile and
 * friends into every start of the binary, ~4 MiB, extensions or not), and pi-tui
 * through its entry file's path (tui-helpers.ts), which nothing shadows.
 */
type Namespace = Record<string, any>;
let typebox: Namespace, typeboxCompile: Namespace, typeboxError: Namespace, typeboxFormat: Namespace, typeboxGuard: Namespace;
let typeboxSchema: Namespace, typeboxSystem: Namespace, typeboxValue: Namespace;

async function loadTypebox(): Promise<void> {
  [typebox, typeboxCompile, typeboxError, typeboxFormat, typeboxGuard, typeboxSchema, typeboxSystem, typeboxValue] = await Promise.all([
    import("typebox"),
    import("typebox/compile"),
    import("typebox/error"),
    import("typebox/format"),
    import("typebox/guard"),
    import("typebox/schema"),
    import("typebox/system"),
    import("typebox/value"),
  ]);
}

/** typebox 1.x and every subpath its package.json exports. */
const TYPEBOX_MODULES: Record<string, ModuleFactory> = {
  typebox: () => typebox,
  "typebox/compile": () => typeboxCompile,
  "typebox/error": () => typeboxError,
  "typebox/format": () => typeboxFormat,
  "typebox/guard": () => typeboxGuard,
  "typebox/schema": () => typeboxSchema,
  "typebox/system": () => typeboxSystem,
  // typebox/type exports exactly what the root does; serving it from there keeps its copy out of the binary.
  "typebox/type": () => typebox,
  "typebox/value": () => typeboxValue,
};

/**
 * `@sinclair/typebox` (0.3x) mapped to the closest typebox 1.x modules; the old
 * registry/compiler names are aliases of their 1.x successors.
 */
const SINCLAIR_TYPEBOX_MODULES: Record<string, ModuleFactory> = {
  "@sinclair/typebox": () => ({ ...typebox, TypeGuard: typebox, KindGuard: typebox, FormatRegistry: typeboxFormat.Format }),
  "@sinclair/typebox/compiler": () => ({
    ...typeboxCompile,
    TypeCompiler: { Compile: typeboxCompile.Compile, Code: typeboxCompile.Code },
    TypeCheck: typeboxCompile.Validator,
  }),
  "@sinclair/typebox/value": () => typeboxValue,
  "@sinclair/typebox/errors": () => ({ ...typeboxError, Errors: typeboxValue.Errors }),
  "@sinclair/typebox/system": () => ({ ...typeboxSystem, TypeSystem: typeboxSystem.System, TypeSystemPolicy: typeboxSystem.Settings }),
  "@sinclair/typebox/type": () => typebox,
  "@sinclair/typebox/format": () => typeboxFormat,
  "@sinclair/typebox/guard": () => typeboxGuard,
};

/** pi-tui, plus `TUI` — a class in pi-tui 0.7x, the main-screen TUI in later versions. */
function piTuiModule(): ModuleExports {
  const tui: ModuleExports = { ...loadPiTui() };
  return "TUI" in tui ? tui : { ...tui, TUI: tui.TuiMainScreen };
}

function hostModules(api: HostModulesApi): Record<string, ModuleFactory> {
  const modules: Record<string, ModuleFactory> = { ...TYPEBOX_MODULES, ...SINCLAIR_TYPEBOX_MODULES };
  for (const name of CODING_AGENT_NAMES) modules[name] = () => codingAgentModule(name, api);
  for (const name of PI_TUI_NAMES) modules[name] = piTuiModule;
  for (const name of PI_AI_NAMES) {
    modules[name] = () => createPiAiModule(name);
    for (const subpath of PI_AI_SUBPATHS) modules[`${name}/${subpath}`] = () => createPiAiSubpathModule(name, subpath);
  }
  return modules;
}

let registered = false;

/** Registers the virtual modules; later calls do nothing (the first API object stays). */
export async function registerHostModules(api: HostModulesApi): Promise<void> {
  if (registered) return;
  registered = true;
  await loadTypebox();
  const modules = hostModules(api);
  plugin({
    name: "xcsh-host-modules",
    setup(build) {
      for (const [specifier, factory] of Object.entries(modules)) {
        // Synchronous, so that an extension's `require()` of them works as well as `import`.
        build.module(specifier, () => ({ exports: factory(), loader: "object" }));
      }
    },
  });
}
