/**
 * Where skills and prompt templates come from, in the order that decides a name
 * clash (the first place wins, as pi does): the project's folders, the user's
 * folders, the settings lists (project, then user), the command-line paths, and
 * last the paths extensions return from `resources_discover`. `--no-skills` /
 * `--no-prompt-templates` drop every place but the command-line and extension
 * ones. This module only names places; reading them is skills.ts's and
 * prompt-templates.ts's job.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { expandHome } from "../config/paths.ts";

/** get_commands' `location`: user folder, project folder, or a path named in settings, on the command line or by an extension. */
export type ResourceLocation = "user" | "project" | "path";

export interface ResourcePlace {
  /** Absolute path of a file or folder (it may not exist). */
  path: string;
  location: ResourceLocation;
  /** pi's provenance: `auto` (a scanned folder), `local` (settings), `cli`, `extension`. */
  source: "auto" | "local" | "cli" | "extension";
  scope: "user" | "project" | "temporary";
  /** Named explicitly (settings, flag, extension): a missing path is worth a warning. */
  explicit: boolean;
  /** Skills only: whether loose `.md` files at the folder's top level are skills (not in `.agents/skills`). */
  rootFiles: boolean;
}

export interface PlaceOptions {
  cwd: string;
  agentDir: string;
  /** HOME, for `~/.agents/skills`. */
  home: string;
  /** `skills` / `prompts` of the global settings.json (relative to agentDir). */
  userSettingsPaths: string[];
  /** `skills` / `prompts` of `.xcsh/settings.json` (relative to `<cwd>/.xcsh`). */
  projectSettingsPaths: string[];
  /** `--skill` / `--prompt-template` values (relative to cwd). */
  cliPaths: string[];
  /** Paths from `resources_discover` (relative to cwd). */
  extensionPaths: string[];
  /** `--no-skills` / `--no-prompt-templates`. */
  noDiscovery: boolean;
}

function explicitPlaces(paths: string[], base: string, location: ResourceLocation, source: ResourcePlace["source"], scope: ResourcePlace["scope"]): ResourcePlace[] {
  return paths
    .filter((path) => path.trim() !== "")
    .map((path) => ({ path: resolve(base, expandHome(path)), location, source, scope, explicit: true, rootFiles: true }));
}

function folder(path: string, location: ResourceLocation, scope: ResourcePlace["scope"], rootFiles: boolean): ResourcePlace {
  return { path, location, source: "auto", scope, explicit: false, rootFiles };
}

/** `.agents/skills` of the cwd and each ancestor, up to the git root (or the filesystem root outside a repository). */
function agentsSkillFolders(cwd: string): string[] {
  const folders: string[] = [];
  let dir = resolve(cwd);
  while (true) {
    folders.push(join(dir, ".agents", "skills"));
    if (existsSync(join(dir, ".git"))) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return folders;
}

function settingsAndFlags(options: PlaceOptions): ResourcePlace[] {
  return [
    ...explicitPlaces(options.projectSettingsPaths, join(options.cwd, ".xcsh"), "path", "local", "project"),
    ...explicitPlaces(options.userSettingsPaths, options.agentDir, "path", "local", "user"),
  ];
}

export function skillPlaces(options: PlaceOptions): ResourcePlace[] {
  const discovered = options.noDiscovery
    ? []
    : [
        folder(join(options.cwd, ".xcsh", "skills"), "project", "project", true),
        ...agentsSkillFolders(options.cwd).map((path) => folder(path, "project", "project", false)),
        folder(join(options.agentDir, "skills"), "user", "user", true),
        folder(join(options.home, ".agents", "skills"), "user", "user", false),
        ...settingsAndFlags(options),
      ];
  return dedupe([
    ...discovered,
    ...explicitPlaces(options.cliPaths, options.cwd, "path", "cli", "temporary"),
    ...explicitPlaces(options.extensionPaths, options.cwd, "path", "extension", "temporary"),
  ]);
}

export function templatePlaces(options: PlaceOptions): ResourcePlace[] {
  const discovered = options.noDiscovery
    ? []
    : [
        folder(join(options.cwd, ".xcsh", "prompts"), "project", "project", true),
        folder(join(options.agentDir, "prompts"), "user", "user", true),
        ...settingsAndFlags(options),
      ];
  return dedupe([
    ...discovered,
    ...explicitPlaces(options.cliPaths, options.cwd, "path", "cli", "temporary"),
    ...explicitPlaces(options.extensionPaths, options.cwd, "path", "extension", "temporary"),
  ]);
}

/** A place named twice (a settings path that is also the user folder) is read once, where it comes first. */
function dedupe(places: ResourcePlace[]): ResourcePlace[] {
  const seen = new Set<string>();
  return places.filter((place) => {
    if (seen.has(place.path)) return false;
    seen.add(place.path);
    return true;
  });
}
