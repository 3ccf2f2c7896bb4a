/**
 * Loads extensions: a native `import()` of each entry file — Bun transpiles
 * TypeScript itself, the host modules are already registered as virtual
 * modules, and an extension's own npm dependencies resolve from its folder
 * through resolve/ (the compiled binary's resolver cannot find them) — then its
 * default factory is called (and awaited) with a fresh `pi` object. A broken
 * extension is reported with its path and reason; the others load.
 */
import type { ExtensionSource } from "./discovery.ts";
import { createExtensionAPI, type ExtensionRuntime } from "./extension-api.ts";
import { HOST_PACKAGES, isServedHostModule } from "./host-modules.ts";
import { extensionEntryUrl, forgetResolutionState, installExtensionResolution, withoutResolutionMark } from "./resolve/extension-resolution.ts";
import { emptyExtension, type LoadedExtension } from "./runner.ts";
import type { ExtensionFactory, SourceInfo } from "./types.ts";

export interface LoadFailure {
  path: string;
  error: string;
}

const SLOW_NOTICE_SECONDS = 5;

/** Factories by entry path: a session replacement re-runs them without importing again. */
const factories = new Map<string, ExtensionFactory>();

export function sourceInfoOf(source: ExtensionSource): SourceInfo {
  return {
    path: source.path,
    source: source.source,
    scope: source.scope,
    origin: source.origin,
    ...(source.baseDir ? { baseDir: source.baseDir } : {}),
  };
}

async function importFactory(path: string, fresh: boolean): Promise<ExtensionFactory> {
  const cached = factories.get(path);
  if (cached && !fresh) return cached;
  // A new query makes Bun evaluate the file again (reload) — also one whose first import
  // failed, which Bun would otherwise answer with the same failure.
  const module = await import(extensionEntryUrl(path, fresh ? Date.now() : undefined));
  const factory = typeof module.default === "function" ? module.default : undefined;
  if (!factory) throw new Error("it has no default export function (export default function (pi) { … })");
  factories.set(path, factory);
  return factory;
}

/**
 * Imports (or re-runs) each extension and adds the ones that load to the
 * runtime's runner, in order. `fresh` re-imports the files (reload).
 */
export async function loadExtensions(
  sources: readonly ExtensionSource[],
  runtime: ExtensionRuntime,
  options: { fresh?: boolean; onSlow?: (path: string, seconds: number) => void } = {},
): Promise<{ loaded: LoadedExtension[]; failures: LoadFailure[] }> {
  const loaded: LoadedExtension[] = [];
  const failures: LoadFailure[] = [];
  installExtensionResolution({ hostPackages: HOST_PACKAGES, servesHostModule: isServedHostModule });
  forgetResolutionState();
  for (const source of sources) {
    const extension = emptyExtension(source.path, sourceInfoOf(source));
    // Start-up waits for every factory; one that takes long is named, so a wait is never silent.
    let waited = 0;
    const slow = setInterval(() => options.onSlow?.(source.path, (waited += SLOW_NOTICE_SECONDS)), SLOW_NOTICE_SECONDS * 1000);
    slow.unref?.();
    try {
      const factory = await importFactory(source.path, options.fresh === true);
      await factory(createExtensionAPI(extension, runtime));
      runtime.runner.add(extension);
      loaded.push(extension);
    } catch (error) {
      failures.push({ path: source.path, error: describeLoadError(error) });
    } finally {
      clearInterval(slow);
    }
  }
  return { loaded, failures };
}

function describeLoadError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = withoutResolutionMark(error.message);
  // Bun's resolve errors name the package; say what to do about it.
  if (/Cannot find (module|package)/.test(message)) {
    return `${message} (install the extension's dependencies in its folder, e.g. npm install)`;
  }
  return message || error.name;
}
