/**
 * A session's skills and prompt templates: where to look (flags, settings,
 * extensions' `resources_discover` paths), loading on first use — skills when
 * the system prompt is built, templates at the first slash command or
 * get_commands — and every problem reported once per process on stderr
 * (`warn`), never on stdout. Core asks it to expand typed text and to list
 * commands; it knows nothing of sessions or extensions.
 */
import { existsSync } from "node:fs";
import { getAgentDir, homeDir } from "../config/paths.ts";
import { readGlobalSettingsFile, readProjectSettingsFile, type SettingsFile } from "../config/settings.ts";
import { listSlashCommands, type ExtensionCommandEntry, type SlashCommand } from "./commands.ts";
import { loadPromptTemplates, type PromptTemplate } from "./prompt-templates.ts";
import { skillPlaces, templatePlaces, type PlaceOptions } from "./resource-places.ts";
import { expandSlash } from "./slash-expansion.ts";
import type { PromptSkill } from "./system-prompt.ts";
import { loadSkills, type Skill } from "./skills.ts";

export interface ResourceOptions {
  cwd: string;
  agentDir: string;
  home: string;
  /** `--skill` paths, and `--no-skills`. */
  skillPaths: string[];
  noSkills: boolean;
  /** `--prompt-template` paths, and `--no-prompt-templates`. */
  promptTemplatePaths: string[];
  noPromptTemplates: boolean;
  /** `skills` / `prompts` lists of the global and the project settings file, as written. */
  userSettings: { skills?: string[]; prompts?: string[] };
  projectSettings: { skills?: string[]; prompts?: string[] };
  /** settings `enableSkillCommands` (default true). */
  skillCommands: boolean;
  /** A line for the person running xcsh (stderr). */
  warn(line: string): void;
}

export class SessionResources {
  private loadedSkills: Skill[] | undefined;
  private loadedTemplates: PromptTemplate[] | undefined;
  private extensionPaths = { skillPaths: [] as string[], promptPaths: [] as string[] };
  private readonly reported = new Set<string>();

  constructor(private readonly options: ResourceOptions) {}

  get skillCommands(): boolean {
    return this.options.skillCommands;
  }

  skills(): Skill[] {
    if (!this.loadedSkills) {
      const loaded = loadSkills(skillPlaces(this.placeOptions(this.options.userSettings.skills, this.options.projectSettings.skills, this.options.skillPaths, this.extensionPaths.skillPaths, this.options.noSkills)));
      this.report(loaded.warnings);
      this.loadedSkills = loaded.skills;
    }
    return this.loadedSkills;
  }

  templates(): PromptTemplate[] {
    if (!this.loadedTemplates) {
      const loaded = loadPromptTemplates(
        templatePlaces(this.placeOptions(this.options.userSettings.prompts, this.options.projectSettings.prompts, this.options.promptTemplatePaths, this.extensionPaths.promptPaths, this.options.noPromptTemplates)),
      );
      this.report(loaded.warnings);
      this.loadedTemplates = loaded.templates;
    }
    return this.loadedTemplates;
  }

  /**
   * Named template paths (--prompt-template, settings' `prompts`) that do not exist, said at
   * start as a missing --skill is: the templates themselves load on first use, which a
   * `-p` run may never reach. Same words as the loader's, so a later load says it once.
   */
  reportMissingTemplatePaths(): void {
    const places = templatePlaces(this.placeOptions(this.options.userSettings.prompts, this.options.projectSettings.prompts, this.options.promptTemplatePaths, [], this.options.noPromptTemplates));
    this.report(places.filter((place) => place.explicit && !existsSync(place.path)).map((place) => `prompt template path ${place.path} does not exist`));
  }

  /**
   * The paths extensions returned from `resources_discover` (replacing earlier
   * ones: each discovery reports them all). True when the skills changed, so
   * the system prompt must be built again.
   */
  setExtensionPaths(paths: { skillPaths: string[]; promptPaths: string[] }): boolean {
    const same = (a: string[], b: string[]) => a.length === b.length && a.every((path, index) => path === b[index]);
    const skillsChanged = !same(paths.skillPaths, this.extensionPaths.skillPaths);
    if (!same(paths.promptPaths, this.extensionPaths.promptPaths)) this.loadedTemplates = undefined;
    if (skillsChanged) this.loadedSkills = undefined;
    this.extensionPaths = { skillPaths: [...paths.skillPaths], promptPaths: [...paths.promptPaths] };
    return skillsChanged;
  }

  /** The skills the system prompt lists (not those with `disable-model-invocation`). */
  promptSkills(): PromptSkill[] {
    return this.skills()
      .filter((skill) => !skill.disableModelInvocation)
      .map((skill) => ({ name: skill.name, description: skill.description, location: skill.filePath }));
  }

  /** `/skill:name …` or `/template …` expanded; any other text unchanged. */
  expand(text: string): string {
    if (!text.startsWith("/")) return text;
    return expandSlash(text, {
      findSkill: (name) => this.skills().find((skill) => skill.name === name),
      findTemplate: (name) => this.templates().find((template) => template.name === name),
      skillCommands: this.options.skillCommands,
    });
  }

  /**
   * Extension commands, then templates, then skills, then commands from other sources
   * (MCP prompts); names an extension command took are reported and left out.
   */
  commands(extensionCommands: readonly ExtensionCommandEntry[]): SlashCommand[] {
    const listed = listSlashCommands(extensionCommands, this.templates(), this.skills(), {
      skillCommands: this.options.skillCommands,
      warn: (line) => this.report([line]),
    });
    return [...listed, ...this.commandSources.flatMap((source) => source())];
  }

  private readonly commandSources: (() => SlashCommand[])[] = [];

  /** More commands to list, asked for each time (MCP prompts come and go with their servers). */
  addCommandSource(source: () => SlashCommand[]): void {
    this.commandSources.push(source);
  }

  private placeOptions(userPaths: string[] | undefined, projectPaths: string[] | undefined, cliPaths: string[], extensionPaths: string[], noDiscovery: boolean): PlaceOptions {
    const { cwd, agentDir, home } = this.options;
    return { cwd, agentDir, home, userSettingsPaths: userPaths ?? [], projectSettingsPaths: projectPaths ?? [], cliPaths, extensionPaths, noDiscovery };
  }

  private report(lines: string[]): void {
    for (const line of lines) {
      if (this.reported.has(line)) continue;
      this.reported.add(line);
      this.options.warn(line);
    }
  }
}

/** The command line's say on resources (src/cli/args.ts). */
export interface ResourceFlags {
  skillPaths?: string[];
  noSkills?: boolean;
  promptTemplatePaths?: string[];
  noPromptTemplates?: boolean;
}

function pathLists(read: () => SettingsFile): { skills?: string[]; prompts?: string[] } {
  let file: SettingsFile;
  try {
    file = read();
  } catch {
    return {}; // a broken settings file is reported where settings load
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : undefined);
  return { skills: strings(file.skills), prompts: strings(file.prompts) };
}

/** The resources of a session in `cwd`: settings lists read per file (their paths are relative to that file's folder). */
export function createSessionResources(cwd: string, flags: ResourceFlags, skillCommands: boolean, warn: (line: string) => void): SessionResources {
  return new SessionResources({
    cwd,
    agentDir: getAgentDir(),
    home: homeDir(),
    skillPaths: flags.skillPaths ?? [],
    noSkills: flags.noSkills === true,
    promptTemplatePaths: flags.promptTemplatePaths ?? [],
    noPromptTemplates: flags.noPromptTemplates === true,
    userSettings: pathLists(readGlobalSettingsFile),
    projectSettings: pathLists(() => readProjectSettingsFile(cwd)),
    skillCommands,
    warn,
  });
}
