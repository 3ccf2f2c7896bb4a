/**
 * The packages a start-up loads: the declarations of the project's settings (when the
 * project is trusted) and of the user's, each with the folder it was installed to. The
 * same package declared in both scopes loads once, from the project (pi: a project entry
 * replaces the personal one). Cheap and synchronous: two settings files and a stat per
 * package; nothing is installed here (`xcsh install` / `xcsh update` do that).
 */
import { existsSync } from "node:fs";
import { readTrustDecision } from "../extensions/trust-store.ts";
import { declarationsOf, readSettingsObject, type PackageDeclaration, type ResourceKind } from "./declarations.ts";
import { installedRoot, scopePlaces, type PackageScope } from "./locations.ts";
import { isFolder, narrow, offeredPaths } from "./manifest.ts";
import { sourceIdentity } from "./source.ts";

export interface DeclaredPackage {
  declaration: PackageDeclaration;
  scope: PackageScope;
  /** Where it loads from. */
  root: string;
  installed: boolean;
}

export interface DeclaredPackages {
  packages: DeclaredPackage[];
  /** Unusable entries and packages declared but not installed, each with its settings file and what to do. */
  problems: { file: string; message: string }[];
}

/** `includeProject` may be a function: trust is then looked up only when the project declares packages. */
export function declaredPackages(cwd: string, agentDir: string, includeProject: boolean | (() => boolean)): DeclaredPackages {
  const result: DeclaredPackages = { packages: [], problems: [] };
  const seen = new Set<string>();
  for (const scope of ["project", "user"] as const) {
    const places = scopePlaces(scope, cwd, agentDir);
    let settings: Record<string, unknown>;
    try {
      settings = readSettingsObject(places.settingsFile);
    } catch {
      continue; // a broken settings file is reported where settings load
    }
    if (settings.packages === undefined) continue;
    if (scope === "project" && !(typeof includeProject === "function" ? includeProject() : includeProject)) continue;
    const list = declarationsOf(settings, places.baseDir);
    result.problems.push(...list.problems.map((message) => ({ file: places.settingsFile, message })));
    for (const declaration of list.declarations) {
      const identity = sourceIdentity(declaration.source);
      if (seen.has(identity)) continue;
      seen.add(identity);
      const root = installedRoot(declaration.source, places);
      const installed = existsSync(root);
      if (!installed) result.problems.push({ file: places.settingsFile, message: notInstalledProblem(declaration, scope, root) });
      result.packages.push({ declaration, scope, root, installed });
    }
  }
  return result;
}

function notInstalledProblem(declaration: PackageDeclaration, scope: PackageScope, root: string): string {
  const typed = declaration.source.typed;
  if (declaration.source.type === "local") return `Package ${typed} (${scope} settings): ${root} does not exist; fix the path or run xcsh remove ${typed}${scope === "project" ? " -l" : ""}`;
  return `Package ${typed} (${scope} settings) is not installed: run xcsh install ${typed}${scope === "project" ? " -l" : ""}`;
}

/**
 * The skill, prompt or theme paths of the installed packages. Project packages count
 * only once the project is trusted without asking anyone: a remembered decision,
 * `defaultProjectTrust: "trust"`, or --trust-project on this command line.
 */
export function packageResourcePaths(cwd: string, agentDir: string, kind: Exclude<ResourceKind, "extensions">): { user: string[]; project: string[] } {
  const found = { user: [] as string[], project: [] as string[] };
  for (const pkg of declaredPackages(cwd, agentDir, () => projectTrustedWithoutAsking(cwd, agentDir)).packages) {
    if (!pkg.installed || !isFolder(pkg.root)) continue;
    found[pkg.scope].push(...narrow(offeredPaths(pkg.root, kind), pkg.declaration.filters[kind], pkg.root));
  }
  return found;
}

/** A trust decision that needs no question: the flag, the remembered answer, or the global setting. */
export function projectTrustedWithoutAsking(cwd: string, agentDir: string, argv: readonly string[] = process.argv): boolean {
  if (argv.includes("--no-trust-project")) return false;
  if (argv.includes("--trust-project")) return true;
  const remembered = readTrustDecision(agentDir, cwd);
  if (remembered !== undefined) return remembered;
  try {
    const setting = readSettingsObject(scopePlaces("user", cwd, agentDir).settingsFile).defaultProjectTrust;
    return setting === "trust" || setting === "always"; // pi's spelling of "trust"
  } catch {
    return false;
  }
}
