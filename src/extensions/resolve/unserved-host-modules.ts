/**
 * The answer for a module of one of xcsh's host packages that xcsh does not
 * serve (`@earendil-works/pi-coding-agent/dist/…`): an error that names it.
 * Such a module exists only as a copy on disk — npm installs pi's packages as
 * peer dependencies — and loading it would give the extension a second pi
 * beside xcsh's, whose classes and state the rest of the process never sees.
 */
import { plugin } from "bun";
import { splitPackageSpecifier, type ResolverOptions } from "./node-resolver.ts";

/** A module of a host package that xcsh does not serve itself. */
export function isUnservedHostModule(specifier: string, options: ResolverOptions): boolean {
  const name = splitPackageSpecifier(specifier)?.[0];
  return name !== undefined && options.hostPackages.has(name) && !options.servesHostModule(specifier);
}

export function unservedHostModuleError(specifier: string): Error {
  const name = splitPackageSpecifier(specifier)![0];
  return new Error(
    `Cannot load '${specifier}': xcsh serves ${name} from inside itself, and not this module of it ` +
      `(a copy on disk is never used, so that every extension shares xcsh's one instance; see "What an extension can import" in docs/extensions.md)`,
  );
}

/**
 * An import of an unserved host module becomes an import of a virtual module
 * that fails with unservedHostModuleError when it loads: the importing file
 * itself still loads, so a guarded `import()` can catch it.
 */
const refusals = new Set<string>();
const REFUSAL_PREFIX = "xcsh-unserved:";

export function refusalSpecifier(specifier: string): string {
  const refusal = REFUSAL_PREFIX + specifier;
  if (!refusals.has(refusal)) {
    refusals.add(refusal);
    plugin({
      name: refusal,
      setup(build) {
        build.module(refusal, () => {
          throw unservedHostModuleError(specifier);
        });
      },
    });
  }
  return refusal;
}
