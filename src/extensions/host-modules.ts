/**
 * The modules extensions import, served from inside the binary. There is no
 * node_modules next to xcsh, so `xcsh`, pi's package names, typebox (and the old
 * `@sinclair/typebox` spellings), pi-ai, pi-agent-core and pi-tui are registered as virtual
 * modules with `Bun.plugin` before the first extension is imported. Each
 * specifier is registered by name — in a compiled binary a runtime plugin's
 * onResolve is never consulted, only `build.module` works. A module's factory runs
 * on its first import, so pi-tui loads only when an extension asks for it (its
 * string-literal `require()` is still bundled into the binary).
 */
import { plugin } from "bun";
import { notSupported } from "./not-supported.ts";
import { CODING_AGENT_UNSUPPORTED, unsupportedNames } from "./unsupported-names.ts";
import { createPiAiModule, createPiAiSubpathModule, PI_AI_SUBPATHS } from "./pi-ai-module.ts";
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
const PI_AGENT_CORE_NAMES = ["@earendil-works/pi-agent-core", "@mariozechner/pi-agent-core"];

/**
 * The packages served from inside the binary. Extension module resolution
 * (resolve/) leaves any specifier naming one, subpaths included, to these
 * registrations, so that no dependency ever gets a second copy from disk.
 */
export const HOST_PACKAGES: ReadonlySet<string> = new Set([
  ...CODING_AGENT_NAMES,
  ...PI_AI_NAMES,
  ...PI_TUI_NAMES,
  ...PI_AGENT_CORE_NAMES,
  "typebox",
  "@sinclair/typebox",
]);

/**
 * pi-coding-agent's runtime names xcsh deliberately lacks (unsupported-names.ts, with
 * the reasons): served as functions that throw "not supported by xcsh" when called,
 * so an extension merely importing one still loads.
 */
const PI_CODING_AGENT_ONLY = unsupportedNames(CODING_AGENT_UNSUPPORTED);

function codingAgentModule(name: string, api: HostModulesApi): ModuleExports {
  const unsupported = Object.fromEntries(PI_CODING_AGENT_ONLY.map((exportName) => [exportName, notSupported(name, exportName)]));
  return { ...unsupported, ...api.codingAgent, default: api.codingAgent };
}

/*
 * Once registered, a virtual module answers its specifier for every importer,
 * xcsh's own code included: a factory that imported "typebox/compile" would get
 * itself. pi-tui is therefore loaded through its entry file's path (tui-helpers.ts),
 * which nothing shadows, and typebox's root before the plugin exists (`loadTypebox`,
 * dynamically: a static import would cost every start of the binary, extensions or not).
 *
 * typebox's subpaths (value, compile, schema, format: ~3 ms of evaluation) load when an
 * extension first imports one. In the binary `require("typebox/value")` names a module
 * bundled inside it, so the plugin cannot shadow it; run from source (bun test) the
 * specifier would name the virtual module itself, so there they are imported up front.
 */
declare const __XCSH_BUILD__: unknown;
const BUNDLED = typeof __XCSH_BUILD__ !== "undefined";

type Namespace = Record<string, any>;
type TypeboxSubpath = "compile" | "error" | "format" | "guard" | "schema" | "system" | "value";
let typebox: Namespace;
const subpaths: Partial<Record<TypeboxSubpath, Namespace>> = {};

function requireSubpath(name: TypeboxSubpath): Namespace {
  // Literal specifiers, so that the bundler resolves each at build time.
  switch (name) {
    case "compile":
      return require("typebox/compile");
    case "error":
      return require("typebox/error");
    case "format":
      return require("typebox/format");
    case "guard":
      return require("typebox/guard");
    case "schema":
      return require("typebox/schema");
    case "system":
      return require("typebox/system");
    case "value":
      return require("typebox/value");
  }
}

function typeboxSubpath(name: TypeboxSubpath): Namespace {
  return (subpaths[name] ??= requireSubpath(name));
}

async function loadTypebox(): Promise<void> {
  typebox = await import("typebox");
  if (BUNDLED) return;
  [subpaths.compile, subpaths.error, subpaths.format, subpaths.guard, subpaths.schema, subpaths.system, subpaths.value] = await Promise.all([
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
  "typebox/compile": () => typeboxSubpath("compile"),
  "typebox/error": () => typeboxSubpath("error"),
  "typebox/format": () => typeboxSubpath("format"),
  "typebox/guard": () => typeboxSubpath("guard"),
  "typebox/schema": () => typeboxSubpath("schema"),
  "typebox/system": () => typeboxSubpath("system"),
  // typebox/type exports exactly what the root does; serving it from there keeps its copy out of the binary.
  "typebox/type": () => typebox,
  "typebox/value": () => typeboxSubpath("value"),
};

/**
 * `@sinclair/typebox` (0.3x) mapped to the closest typebox 1.x modules; the old
 * registry/compiler names are aliases of their 1.x successors.
 */
const SINCLAIR_TYPEBOX_MODULES: Record<string, ModuleFactory> = {
  "@sinclair/typebox": () => ({ ...typebox, TypeGuard: typebox, KindGuard: typebox, FormatRegistry: typeboxSubpath("format").Format }),
  "@sinclair/typebox/compiler": () => {
    const compile = typeboxSubpath("compile");
    return { ...compile, TypeCompiler: { Compile: compile.Compile, Code: compile.Code }, TypeCheck: compile.Validator };
  },
  "@sinclair/typebox/value": () => typeboxSubpath("value"),
  "@sinclair/typebox/errors": () => ({ ...typeboxSubpath("error"), Errors: typeboxSubpath("value").Errors }),
  "@sinclair/typebox/system": () => {
    const system = typeboxSubpath("system");
    return { ...system, TypeSystem: system.System, TypeSystemPolicy: system.Settings };
  },
  "@sinclair/typebox/type": () => typebox,
  "@sinclair/typebox/format": () => typeboxSubpath("format"),
  "@sinclair/typebox/guard": () => typeboxSubpath("guard"),
};

/** pi-tui, plus `TUI` — a class in pi-tui 0.7x, the main-screen TUI in later versions. */
function piTuiModule(): ModuleExports {
  const tui: ModuleExports = { ...loadPiTui() };
  return "TUI" in tui ? tui : { ...tui, TUI: tui.TuiMainScreen };
}

/**
 * pi-agent-core (the `Agent` class and loop on xcsh's agent): required on the first
 * import of either spelling, so an extension that never imports it costs nothing.
 */
function piAgentCoreModule(name: string, api: HostModulesApi): ModuleExports {
  const { createAgentCoreModule } = require("./agent-core/module.ts") as typeof import("./agent-core/module.ts");
  return createAgentCoreModule(name, api.codingAgent);
}

function hostModules(api: HostModulesApi): Record<string, ModuleFactory> {
  const modules: Record<string, ModuleFactory> = { ...TYPEBOX_MODULES, ...SINCLAIR_TYPEBOX_MODULES };
  for (const name of CODING_AGENT_NAMES) modules[name] = () => codingAgentModule(name, api);
  for (const name of PI_TUI_NAMES) modules[name] = piTuiModule;
  for (const name of PI_AGENT_CORE_NAMES) modules[name] = () => piAgentCoreModule(name, api);
  for (const name of PI_AI_NAMES) {
    modules[name] = () => createPiAiModule(name);
    for (const subpath of PI_AI_SUBPATHS) modules[`${name}/${subpath}`] = () => createPiAiSubpathModule(name, subpath);
  }
  return modules;
}

let registered = false;
let servedSpecifiers: ReadonlySet<string> = new Set();

/** True for a specifier registered here, e.g. `typebox/value`; not for other subpaths of HOST_PACKAGES. */
export function isServedHostModule(specifier: string): boolean {
  return servedSpecifiers.has(specifier);
}

/** Registers the virtual modules; later calls do nothing (the first API object stays). */
export async function registerHostModules(api: HostModulesApi): Promise<void> {
  if (registered) return;
  registered = true;
  await loadTypebox();
  const modules = hostModules(api);
  servedSpecifiers = new Set(Object.keys(modules));
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
