/**
 * Puts node-resolver.ts in charge of every module an extension's code loads,
 * which the compiled binary's own resolver cannot do (it finds a package only
 * by its index.js, and a runtime plugin's onResolve is never asked). Two hooks:
 *
 * - ES modules: an extension's entry is imported with a mark (`?xcsh-esm`); a
 *   `Bun.plugin` onLoad for marked paths rewrites the file's import specifiers
 *   to absolute paths (rewrite-imports.ts), marking those that are ES modules in
 *   turn, so the whole import graph is rewritten as it loads. Only marked paths
 *   pass the filter: CommonJS files never do, because Bun runs CommonJS source
 *   returned by an onLoad as an empty ES module (oven-sh/bun#19279); nor does a
 *   file that imports only host modules and builtins, which Bun loads as it is.
 * - `require()` (CommonJS files, and `require` in ES modules): Bun consults
 *   `Module._resolveFilename`, which answers for requests made from extension
 *   files and hands everything else to Bun's own.
 *
 * xcsh's host modules are registered by name (host-modules.ts) and are never
 * rewritten or looked up on disk, so a dependency that imports
 * `@earendil-works/pi-tui` gets xcsh's instance; their other modules are refused
 * (unserved-host-modules.ts). Loaded with the extension loader only: a run
 * without extensions never loads any of this.
 */
import { plugin } from "bun";
import Module from "node:module";
import { extname, resolve as resolvePath, sep } from "node:path";
import { traceModuleLoad } from "../../ai/load-trace.ts";
import { forgetFileSystem } from "./file-system.ts";
import { dropSource, forgetSources, isEsModule, readSource, takeSource } from "./module-source.ts";
import { forgetResolutions, isLeftToBun, resolveModule, type ResolverOptions } from "./node-resolver.ts";
import { needsRewriting, rewriteImports, type SpecifierKinds } from "./rewrite-imports.ts";
import { isUnservedHostModule, refusalSpecifier, unservedHostModuleError } from "./unserved-host-modules.ts";

traceModuleLoad("extensions/resolve");

const MARK = "?xcsh-esm";
/** `?xcsh-esm`, or `?xcsh-esm=<n>` for a reload (a new query makes Bun evaluate the file again). */
const MARKED_PATH = /\?xcsh-esm(?:=\d+)?$/;

declare const __XCSH_BUILD__: unknown;
/**
 * xcsh's own files, whose requires are Bun's business: the executable's embedded
 * root when compiled, the source checkout (its node_modules included) when run
 * from source.
 */
const OWN_ROOT = typeof __XCSH_BUILD__ !== "undefined" ? import.meta.dir : resolvePath(import.meta.dir, "..", "..", "..");

function isExtensionFile(path: string): boolean {
  return !path.startsWith(OWN_ROOT + sep) && !path.startsWith(OWN_ROOT + "/");
}

/** The file's path: the mark (only the mark: a folder may have `?` in its name) removed. */
function unmarked(path: string): string {
  const mark = MARKED_PATH.exec(path);
  return mark ? path.slice(0, mark.index) : path;
}

/** Error messages name files as the user wrote them, without the mark. */
export function withoutResolutionMark(message: string): string {
  return message.replace(/\?xcsh-esm(?:=\d+)?/g, "");
}

function loaderOf(path: string): "ts" | "tsx" | "jsx" | "js" {
  const extension = extname(path);
  if (extension === ".ts" || extension === ".mts" || extension === ".cts") return "ts";
  if (extension === ".tsx") return "tsx";
  if (extension === ".jsx") return "jsx";
  return "js";
}

let resolverOptions: ResolverOptions | undefined;

const specifierKinds: SpecifierKinds = {
  staysAsWritten: (specifier) => isLeftToBun(specifier, resolverOptions!) && !isUnservedHostModule(specifier, resolverOptions!),
};

/**
 * The resolved file, marked when it is an ES module with imports to rewrite,
 * so that they are rewritten as it loads. One without (it imports only host
 * modules, or nothing) skips the plugin: Bun loads it as it stands.
 */
function urlOf(target: string): string {
  if (!isEsModule(target)) return target;
  const source = readSource(target);
  const marked = needsRewriting(source.text, specifierKinds);
  // Keep only what was costly to learn (a lexed file): the text of a file that is never
  // imported after all (a dynamic import that does not run) must not stay in memory.
  if (!marked || !source.lexed) dropSource(target);
  return marked ? target + MARK : target;
}

/** What an import of `specifier` from `file` becomes, or undefined to leave it as written. */
function importUrl(specifier: string, file: string): string | undefined {
  if (isUnservedHostModule(specifier, resolverOptions!)) return refusalSpecifier(specifier);
  const target = resolveModule(specifier, file, "import", resolverOptions!);
  return target === undefined ? undefined : urlOf(target);
}

/**
 * What `import(name)` imports, `name` known only when it runs: rewritten files
 * call this through a global (they cannot import it: this module is inside the
 * binary). What is not found here is left for Bun, as written.
 */
const COMPUTED_IMPORT_KEY = "xcsh.extensionImportUrl";

function computedImportUrl(specifier: unknown, fromFile: string): unknown {
  return typeof specifier === "string" ? (importUrl(specifier, fromFile) ?? specifier) : specifier;
}

/** Synchronous: a module `require()` loads must not wait (Bun refuses a promise there). */
function loadMarked(markedPath: string): { contents: string; loader: ReturnType<typeof loaderOf> } {
  const file = unmarked(markedPath);
  const { text, lexed } = takeSource(file);
  const contents = rewriteImports(
    text,
    {
      targetUrl: (specifier) => importUrl(specifier, file),
      targetPath: (specifier) => resolveModule(specifier, file, "import", resolverOptions!),
      computedTarget: (expression) => `globalThis[Symbol.for(${JSON.stringify(COMPUTED_IMPORT_KEY)})](${expression}, ${JSON.stringify(file)})`,
      ...specifierKinds,
    },
    lexed,
  );
  return { contents, loader: loaderOf(file) };
}

type ResolveFilename = (request: unknown, parent: { filename?: unknown } | undefined, isMain: boolean, options?: { paths?: unknown }) => string;

function patchRequireResolution(): void {
  const moduleStatics = Module as unknown as { _resolveFilename: ResolveFilename };
  const original = moduleStatics._resolveFilename;
  moduleStatics._resolveFilename = function (request, parent, isMain, options) {
    const from = parent?.filename;
    // `require.resolve(x, { paths })` searches other folders: Bun's to answer.
    if (typeof request === "string" && typeof from === "string" && options?.paths === undefined && isExtensionFile(from)) {
      if (isUnservedHostModule(request, resolverOptions!)) throw unservedHostModuleError(request);
      const target = resolveModule(request, unmarked(from), "require", resolverOptions!);
      if (target === undefined) return original.call(this, request, parent, isMain, options);
      // A require() (Bun passes no options) of an ES module loads it marked, so that its own imports
      // are rewritten; require.resolve() (options `{}`) answers the plain path, which callers read.
      return options === undefined ? urlOf(target) : target;
    }
    return original.call(this, request, parent, isMain, options);
  };
}

/** Installs both hooks; later calls do nothing. */
export function installExtensionResolution(options: ResolverOptions): void {
  if (resolverOptions) return;
  resolverOptions = options;
  plugin({
    name: "xcsh-extension-resolution",
    setup(build) {
      build.onLoad({ filter: MARKED_PATH }, (args) => loadMarked(args.path));
    },
  });
  patchRequireResolution();
  (globalThis as Record<symbol, unknown>)[Symbol.for(COMPUTED_IMPORT_KEY)] = computedImportUrl;
}

/** What the loader imports for an extension's entry file: marked when it is an ES module with imports to rewrite. */
export function extensionEntryUrl(path: string, reload?: number): string {
  const url = urlOf(path);
  if (reload === undefined) return url;
  return url === path ? `${path}?reload=${reload}` : `${path}${MARK}=${reload}`;
}

/** Drops what was learnt about the disk: the next load sees packages installed since. */
export function forgetResolutionState(): void {
  forgetFileSystem();
  forgetResolutions();
  forgetSources();
}
