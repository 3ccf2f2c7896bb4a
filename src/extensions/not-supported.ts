/**
 * Stand-ins for the runtime names of pi's packages that xcsh deliberately does not
 * implement (docs/extensions.md lists them with the reason). Each is a function
 * that throws "<name> from "<module>" is not supported by xcsh" when called or
 * constructed, so an extension that merely imports one still loads and fails only
 * where it uses what xcsh lacks.
 */

/** Marks a stand-in, so tooling (and tests) can tell stubs from real exports. */
export const NOT_SUPPORTED = Symbol.for("xcsh.notSupported");

export function notSupported(moduleName: string, exportName: string): (...args: unknown[]) => never {
  const fail = function (): never {
    throw new Error(`${exportName} from "${moduleName}" is not supported by xcsh`);
  };
  Object.defineProperty(fail, "name", { value: exportName });
  Object.defineProperty(fail, NOT_SUPPORTED, { value: true });
  return fail;
}

/** Stand-ins for `names`, by name. */
export function notSupportedNames(moduleName: string, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, notSupported(moduleName, name)]));
}
