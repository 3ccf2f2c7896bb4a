/**
 * The resources one declared package offers, each with whether its declaration's filter
 * lets it load — the rows `xcsh config` shows and toggles. A resource is what a filter
 * can name: an extension entry file, or a skills/prompts/themes path the manifest (or the
 * conventional folder) offers. Toggling edits only the declaration's filter for that kind,
 * with pi's exact-path overrides (`-path` off, `+path` back on), falling back to a plain
 * path when an include list had left the resource out; the result is checked with the
 * same `narrow` start-up uses, so what `config` says is what loads.
 */
import { relative, sep } from "node:path";
import { packageEntries } from "../extensions/discovery.ts";
import { RESOURCE_KINDS, type PackageDeclaration, type ResourceKind } from "./declarations.ts";
import { isFolder, narrow, offeredPaths } from "./manifest.ts";

export interface PackageResource {
  kind: ResourceKind;
  /** Absolute path. */
  path: string;
  /** Relative to the package root, with `/`: how the filter names it. */
  name: string;
  enabled: boolean;
}

/** Every resource of an installed package folder, by kind in pi's order, then by name. */
export function packageResources(root: string, filters: PackageDeclaration["filters"]): PackageResource[] {
  if (!isFolder(root)) return [];
  const resources: PackageResource[] = [];
  for (const kind of RESOURCE_KINDS) {
    const offered = offeredOfKind(root, kind);
    const enabled = new Set(narrow(offered, filters[kind], root));
    for (const path of offered) resources.push({ kind, path, name: nameIn(root, path), enabled: enabled.has(path) });
  }
  return resources;
}

function offeredOfKind(root: string, kind: ResourceKind): string[] {
  if (kind !== "extensions") return offeredPaths(root, kind);
  return [...new Set(packageEntries(root).entries.map((entry) => entry.path))].sort();
}

/**
 * The filter for `resource.kind` after switching it on or off; undefined means "no filter"
 * (everything the package offers). Returns the current filter when it already says so.
 * Each candidate is checked with `narrow`: it must flip this resource and leave every
 * other resource of the kind as it was (a lone `+path` would switch all of them on).
 */
export function toggledFilter(root: string, filter: string[] | undefined, resource: PackageResource, enable: boolean): string[] | undefined {
  const offered = offeredOfKind(root, resource.kind);
  const before = new Set(narrow(offered, filter, root));
  if (before.has(resource.path) === enable) return filter;
  const wanted = (candidate: string[] | undefined) => {
    const after = new Set(narrow(offered, candidate, root));
    return offered.every((path) => after.has(path) === (path === resource.path ? enable : before.has(path)));
  };
  const namesIt = (entry: string, prefix: string) => entry === prefix + resource.name || entry === `${prefix}./${resource.name}`;
  if (!enable) return [...(filter ?? []).filter((entry) => !namesIt(entry, "+")), `-${resource.name}`];
  const rest = filter?.filter((entry) => !namesIt(entry, "-"));
  // Dropping our own `-path` may leave an empty list, which would mean "none": no filter then.
  const candidates: Array<string[] | undefined> = [
    rest !== undefined && rest.length === 0 ? undefined : rest,
    [...(rest ?? []), `+${resource.name}`],
    // An include list (or `[]`) left it out, and `+` only restores what the includes kept.
    [...(rest ?? []), resource.name],
  ];
  const chosen = candidates.findIndex((candidate) => wanted(candidate));
  return candidates[chosen === -1 ? candidates.length - 1 : chosen];
}

function nameIn(root: string, path: string): string {
  const name = relative(root, path);
  return sep === "/" ? name : name.split(sep).join("/");
}
