/**
 * `xcsh config`: pi's command to switch a package's resources on and off. Bare, on a
 * terminal, it opens the list dialog (src/packages/config-dialog.ts). `list` (also what a
 * bare `xcsh config` prints when stdin or stdout is not a terminal) shows each declared package of the user's and the
 * project's settings with its extensions, skills, prompts and themes and whether each
 * loads; `enable|disable <source> <kind> <resource>` edits that declaration's filter in
 * the user's settings.json, or the project's with `-l`, keeping every other key (the
 * write is atomic, src/packages/declarations.ts). A usage mistake — an unknown package,
 * kind or resource — exits 2 naming what exists; nothing is written then.
 */
import { getAgentDir } from "../config/paths.ts";
import { declarationsOf, findDeclaration, readSettingsObject, RESOURCE_KINDS, writePackages, type PackageDeclaration, type ResourceKind } from "./declarations.ts";
import { installedRoot, scopePlaces, type PackageScope, type ScopePlaces } from "./locations.ts";
import { packageResources, toggledFilter, type PackageResource } from "./package-resources.ts";
import { parseSource } from "./source.ts";

const USAGE = `Usage:
  xcsh config [-l]                                         on a terminal: a list to switch resources with Space, Tab for the scope
  xcsh config list [-l]                                    show each package's resources and whether they load
  xcsh config disable <source> <kind> <resource> [-l]      stop loading one resource
  xcsh config enable <source> <kind> <resource> [-l]       load it again
  <source>: the package as declared (xcsh list shows them)
  <kind>: extensions, skills, prompts or themes
  <resource>: its path in the package, as config list prints it (or its file name when unique)
  -l, --local  the project's .xcsh/settings.json instead of the user's
`;

class UsageError extends Error {}

export async function runConfigCommand(argv: string[], cwd = process.cwd()): Promise<number> {
  try {
    const local = argv.includes("-l") || argv.includes("--local");
    if (argv.includes("-h") || argv.includes("--help")) {
      process.stdout.write(USAGE);
      return 0;
    }
    const unknownOption = argv.find((arg) => arg.startsWith("-") && arg.length > 1 && arg !== "-l" && arg !== "--local");
    if (unknownOption) throw new UsageError(`xcsh config: unknown option ${unknownOption}. Run xcsh config --help for usage.`);
    const [action = "list", ...rest] = argv.filter((arg) => arg !== "-l" && arg !== "--local");
    const agentDir = getAgentDir();
    const bare = argv.filter((arg) => arg !== "-l" && arg !== "--local").length === 0;
    if (bare && process.stdin.isTTY === true && process.stdout.isTTY === true) {
      const { runConfigDialog } = await import("./config-dialog.ts");
      return runConfigDialog(cwd, agentDir, local ? "project" : "user");
    }
    if (action === "list") {
      if (rest.length > 0) throw new UsageError("xcsh config list takes no arguments besides -l.");
      process.stdout.write(listing(cwd, agentDir, local));
      return 0;
    }
    if (action !== "enable" && action !== "disable") throw new UsageError(`xcsh config: unknown action "${action}"; use list, enable or disable. Run xcsh config --help for usage.`);
    if (rest.length !== 3) throw new UsageError(`xcsh config ${action} takes <source> <kind> <resource>. Run xcsh config --help for usage.`);
    const [typed, kind, resourceName] = rest as [string, string, string];
    return toggle(scopePlaces(local ? "project" : "user", cwd, agentDir), cwd, typed, kind, resourceName, action === "enable");
  } catch (error) {
    process.stderr.write(`xcsh: ${(error as Error).message}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/** Both scopes, the chosen one first. */
function listing(cwd: string, agentDir: string, local: boolean): string {
  const scopes: PackageScope[] = local ? ["project", "user"] : ["user", "project"];
  const lines: string[] = [];
  for (const scope of scopes) {
    const places = scopePlaces(scope, cwd, agentDir);
    const declared = declarationsOf(readSettingsObject(places.settingsFile), places.baseDir);
    lines.push(`${scope === "user" ? "User" : "Project"} packages (${places.settingsFile}):`);
    if (declared.declarations.length === 0) lines.push("  (none)");
    for (const declaration of declared.declarations) lines.push(...packageLines(declaration, places));
    for (const problem of declared.problems) lines.push(`  ! ${problem}`);
  }
  return lines.join("\n") + "\n";
}

function packageLines(declaration: PackageDeclaration, places: ScopePlaces): string[] {
  const root = installedRoot(declaration.source, places);
  const resources = packageResources(root, declaration.filters);
  const lines = [`  ${declaration.source.typed}`];
  if (resources.length === 0) lines.push(`    (no resources to choose from: ${root} is not installed or is a single file)`);
  for (const kind of RESOURCE_KINDS) {
    const ofKind = resources.filter((resource) => resource.kind === kind);
    if (ofKind.length === 0) continue;
    lines.push(`    ${kind}:`);
    for (const resource of ofKind) lines.push(`      [${resource.enabled ? "x" : " "}] ${resource.name}${resource.enabled ? "" : "  (disabled)"}`);
  }
  return lines;
}

function toggle(places: ScopePlaces, cwd: string, typed: string, kindTyped: string, resourceName: string, enable: boolean): number {
  const settings = readSettingsObject(places.settingsFile);
  if (settings.packages !== undefined && !Array.isArray(settings.packages)) {
    throw new Error(`${places.settingsFile}: "packages" must be a list of sources; fix it first`);
  }
  const declared = declarationsOf(settings, places.baseDir);
  const declaration = findPackage(declared.declarations, typed, cwd, places);
  if (!RESOURCE_KINDS.includes(kindTyped as ResourceKind)) {
    throw new UsageError(`"${kindTyped}" is not a resource kind; use one of ${RESOURCE_KINDS.join(", ")}.`);
  }
  const kind = kindTyped as ResourceKind;
  const root = installedRoot(declaration.source, places);
  const ofKind = packageResources(root, declaration.filters).filter((resource) => resource.kind === kind);
  const resource = findResource(ofKind, resourceName, root, declaration.source.typed, kind);
  const changed = setResourceEnabled(places, settings, declaration, resource, enable);
  const state = enable ? "enabled" : "disabled";
  if (!changed) process.stdout.write(`${declaration.source.typed} ${kind} ${resource.name} is already ${state}\n`);
  else process.stdout.write(`${enable ? "Enabled" : "Disabled"} ${kind} ${resource.name} of ${declaration.source.typed} in ${places.settingsFile}\n`);
  return 0;
}

/** Rewrites the declaration's filter for the resource's kind; false when it already loads (or not) as asked. */
export function setResourceEnabled(
  places: ScopePlaces,
  settings: Record<string, unknown>,
  declaration: PackageDeclaration,
  resource: PackageResource,
  enable: boolean,
): boolean {
  const root = installedRoot(declaration.source, places);
  const current = declaration.filters[resource.kind];
  const next = toggledFilter(root, current, resource, enable);
  if (next === current) return false;
  const entry: Record<string, unknown> = typeof declaration.raw === "string" ? { source: declaration.raw } : { ...(declaration.raw as Record<string, unknown>) };
  if (next === undefined) delete entry[resource.kind];
  else entry[resource.kind] = next;
  const packages = (settings.packages as unknown[]).map((raw) => (raw === declaration.raw ? entry : raw));
  writePackages(places.settingsFile, settings, packages);
  return true;
}

/** The declaration `typed` names: as written in settings, or the same package however spelled. */
function findPackage(declarations: PackageDeclaration[], typed: string, cwd: string, places: ScopePlaces): PackageDeclaration {
  const byText = declarations.find((declaration) => declaration.source.typed === typed);
  if (byText) return byText;
  const source = parseSource(typed, cwd);
  const index = "error" in source ? -1 : findDeclaration({ declarations, problems: [] }, source);
  if (index >= 0) return declarations[index]!;
  const known = declarations.map((declaration) => declaration.source.typed);
  const other = places.scope === "user" ? " (a project package? add -l)" : "";
  throw new UsageError(
    `${typed} is not declared in ${places.settingsFile}${other}. ${known.length > 0 ? `Declared: ${known.join(", ")}.` : "No packages are declared there."}`,
  );
}

function findResource(ofKind: PackageResource[], typed: string, root: string, source: string, kind: ResourceKind): PackageResource {
  const wanted = typed.startsWith("./") ? typed.slice(2) : typed;
  const exact = ofKind.find((resource) => resource.name === wanted || resource.path === typed);
  if (exact) return exact;
  const byFileName = ofKind.filter((resource) => resource.name.split("/").pop() === wanted);
  if (byFileName.length === 1) return byFileName[0]!;
  const known = ofKind.map((resource) => resource.name);
  const ambiguous = byFileName.length > 1 ? ` "${typed}" names several; give the path.` : "";
  throw new UsageError(
    `${source} has no ${kind} resource "${typed}".${ambiguous} ${known.length > 0 ? `Its ${kind}: ${known.join(", ")}.` : `It offers no ${kind}${root ? ` (${root})` : ""}.`}`,
  );
}
