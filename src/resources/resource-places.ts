/**
 * Where skills and prompt templates come from, in the order that decides a name
 * clash (the first place wins, as pi does): the project's folders, the user's
 * folders, the settings lists (project, then user), installed packages (src/packages/),
 * the command-line paths, and
 * last the paths extensions return from `resources_discover`. `--no-skills` /
 * `--no-prompt-templates` drop every place but the command-line and extension
 * ones. This module only names places; reading them is skills.ts's and
 * prompt-templates.ts's job.
 *
 * Settings lists take pi's patterns (settings.md, "Resources"): plain entries are
 * paths; a glob keeps only the list's files it matches; `!pattern` excludes, `+path`
 * puts back, `-path` removes — and `!`/`+`/`-` also apply to the same scope's
 * auto-discovered folders. A skill is matched by its folder (`brave-search`, not
 * `brave-search/SKILL.md`), a loose markdown file by its own path.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { expandHome } from "../config/paths.ts";
import { applySettingsPatterns, isSettingsPattern, matchesExclusions } from "../config/settings-patterns.ts";
import { packageResourcePaths } from "../packages/installed.ts";

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
  /** Whether a file found here is wanted: the settings list's patterns; absent means every file. */
  accepts?: (file: string) => boolean;
  /**
   * The project's places only: the folder a link found here may lead into, with the git
   * work tree around it (link-policy.ts), so a cloned repository's template or skill
   * cannot be a link to a file of yours.
   */
  confine?: string;
}

/** What a pattern is matched against: a skill's folder, or the markdown file itself. */
function patternSubject(file: string): string {
  return basename(file) === "SKILL.md" ? dirname(file) : file;
}

/** A settings list's own files: kept when its globs and `!`/`+`/`-` entries leave them. */
function listFilter(list: string[], base: string): ((file: string) => boolean) | undefined {
  const patterns = list.filter(isSettingsPattern);
  if (patterns.length === 0) return undefined;
  return (file) => {
    const subject = patternSubject(file);
    return applySettingsPatterns([subject], patterns, base).has(subject);
  };
}

/** An auto-discovered folder of a scope: only that scope's `!`/`+`/`-` entries apply. */
function exclusionFilter(list: string[], base: string): ((file: string) => boolean) | undefined {
  if (!list.some(isSettingsPattern)) return undefined;
  return (file) => !matchesExclusions(patternSubject(file), list, base);
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

function explicitPlaces(paths: string[], base: string, location: ResourceLocation, source: ResourcePlace["source"], scope: ResourcePlace["scope"], confine?: string): ResourcePlace[] {
  const accepts = source === "local" ? listFilter(paths, base) : undefined;
  return paths
    .filter((path) => path.trim() !== "" && !(source === "local" && isSettingsPattern(path)))
    .map((path) => ({ path: resolve(base, expandHome(path)), location, source, scope, explicit: true, rootFiles: true, ...(accepts ? { accepts } : {}), ...(confine ? { confine } : {}) }));
}

function folder(path: string, location: ResourceLocation, scope: ResourcePlace["scope"], rootFiles: boolean, accepts?: (file: string) => boolean, confine?: string): ResourcePlace {
  return { path, location, source: "auto", scope, explicit: false, rootFiles, ...(accepts ? { accepts } : {}), ...(confine ? { confine } : {}) };
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

/** What the settings lists need to know. */
type ScopeOptions = Pick<PlaceOptions, "cwd" | "agentDir" | "userSettingsPaths" | "projectSettingsPaths">;

function settingsAndFlags(options: ScopeOptions): ResourcePlace[] {
  return [
    // A project's list may name only files of the project: `"prompts": ["~/.ssh"]` reads nothing.
    ...explicitPlaces(options.projectSettingsPaths, join(options.cwd, ".xcsh"), "path", "local", "project", options.cwd),
    ...explicitPlaces(options.userSettingsPaths, options.agentDir, "path", "local", "user"),
  ];
}

/** The folders and files installed packages offer (project ones once trusted), after the settings lists. */
function packagePlaces(options: Pick<PlaceOptions, "cwd" | "agentDir">, kind: "skills" | "prompts" | "themes"): ResourcePlace[] {
  const paths = packageResourcePaths(options.cwd, options.agentDir, kind);
  const place = (scope: "user" | "project") => (path: string): ResourcePlace => ({ path, location: "path", source: "local", scope, explicit: true, rootFiles: true });
  return [...paths.project.map(place("project")), ...paths.user.map(place("user"))];
}

/** The `!`/`+`/`-` filters of the project's and the user's settings lists, for their auto folders. */
function scopeFilters(options: ScopeOptions) {
  return {
    project: exclusionFilter(options.projectSettingsPaths, join(options.cwd, ".xcsh")),
    user: exclusionFilter(options.userSettingsPaths, options.agentDir),
  };
}

export function skillPlaces(options: PlaceOptions): ResourcePlace[] {
  const filters = scopeFilters(options);
  const discovered = options.noDiscovery
    ? []
    : [
        folder(join(options.cwd, ".xcsh", "skills"), "project", "project", true, filters.project, options.cwd),
        ...agentsSkillFolders(options.cwd).map((path) => folder(path, "project", "project", false, filters.project, dirname(dirname(path)))),
        folder(join(options.agentDir, "skills"), "user", "user", true, filters.user),
        folder(join(options.home, ".agents", "skills"), "user", "user", false, filters.user),
        ...settingsAndFlags(options),
        ...packagePlaces(options, "skills"),
      ];
  return dedupe([
    ...discovered,
    ...explicitPlaces(options.cliPaths, options.cwd, "path", "cli", "temporary"),
    ...explicitPlaces(options.extensionPaths, options.cwd, "path", "extension", "temporary"),
  ]);
}

export function templatePlaces(options: PlaceOptions): ResourcePlace[] {
  const filters = scopeFilters(options);
  const discovered = options.noDiscovery
    ? []
    : [
        folder(join(options.cwd, ".xcsh", "prompts"), "project", "project", true, filters.project, options.cwd),
        folder(join(options.agentDir, "prompts"), "user", "user", true, filters.user),
        ...settingsAndFlags(options),
        ...packagePlaces(options, "prompts"),
      ];
  return dedupe([
    ...discovered,
    ...explicitPlaces(options.cliPaths, options.cwd, "path", "cli", "temporary"),
    ...explicitPlaces(options.extensionPaths, options.cwd, "path", "extension", "temporary"),
  ]);
}

/**
 * Theme files (pi's JSON themes): the project's and the user's `themes` folders, the
 * settings lists, installed packages' themes, then `--theme` paths. `--no-themes` drops all but the `--theme` paths.
 * Whether the project's places count is the interactive mode's decision (theme-controller.ts).
 */
export function themePlaces(options: ScopeOptions & Pick<PlaceOptions, "cliPaths" | "noDiscovery">): ResourcePlace[] {
  const filters = scopeFilters(options);
  const discovered = options.noDiscovery
    ? []
    : [
        folder(join(options.cwd, ".xcsh", "themes"), "project", "project", true, filters.project),
        folder(join(options.agentDir, "themes"), "user", "user", true, filters.user),
        ...settingsAndFlags(options),
        ...packagePlaces(options, "themes"),
      ];
  return dedupe([...discovered, ...explicitPlaces(options.cliPaths, options.cwd, "path", "cli", "temporary")]);
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
