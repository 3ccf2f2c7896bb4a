/**
 * Which theme the interactive mode draws with, and the one theme object everything
 * draws through (`theme`: views, the editor, extensions' `ctx.ui.theme` and the
 * helpers' getMarkdownTheme() all hold it; it follows every change).
 *
 * The choice, strongest first: a theme chosen during the session (/settings, an
 * extension's setTheme), `--use-theme`, the `theme` setting, and else the `system`
 * theme, made from the terminal's own colours (theme/system-theme.ts), as in pi 1.x.
 * A choice may be a pair, "light/dark", which follows the terminal too. A name that
 * names no usable theme is said once, with the reason (the file and its bad token,
 * when a file names it), and the system theme is drawn instead.
 *
 * The terminal's answers (setTerminalColors) say whether it is dark or light — its
 * background decides; without one, its light/dark report (setColorScheme), then
 * COLORFGBG, then dark — and remake the system theme.
 *
 * Theme files come from `~/.xcsh/agent/themes`, the project's `.xcsh/themes`, the
 * `themes` settings lists and `--theme` paths (`--no-themes` keeps only the last).
 *
 * A theme is data, not code: in a project that ships no code its themes (and its
 * settings' `theme`) count without any trust question, like its AGENTS.md. In a
 * project that ships code they wait for that project's trust, and until the session is
 * there nothing of the project counts: a project must not be able to colour the trust
 * question about its own code (text the colour of the background) its way.
 */
import { displaySettingPicker } from "./fullscreen/tui-mode.ts";
import { readJsonFile } from "../../config/json-file.ts";
import { inertText } from "../../tools/inert-text.ts";
import type { Rgb } from "../../resources/theme-colors.ts";
import { readGlobalSettingsFile, readProjectSettingsObject } from "../../config/settings.ts";
import { projectNeedsTrust } from "../../extensions/project-trust.ts";
import type { RunOptions } from "../../core/run-options.ts";
import { getAgentDir, getProjectSettingsPath, getSettingsPath } from "../../config/paths.ts";
import { themePlaces } from "../../resources/resource-places.ts";
import { loadThemeFiles, type LoadedThemeFiles } from "../../resources/theme-files.ts";
import type { ThemeDefinition } from "../../resources/theme-json.ts";
import { BUILTIN_THEME_NAMES, builtinTheme, isBuiltinThemeName } from "../../resources/builtin-themes.ts";
import { createTheme, guessThemeFromEnv, noColorRequested, type TerminalLook, type ThemeOptions, type UiTheme } from "./theme.ts";
import { appearanceOfBackground, SYSTEM_THEME_NAME, systemTheme, type TerminalColors } from "./theme/system-theme.ts";

/** Every built-in theme's name; a theme file may take none of them. */
const BUILT_IN_NAMES: readonly string[] = [SYSTEM_THEME_NAME, ...BUILTIN_THEME_NAMES];

export type Appearance = "dark" | "light";

export interface ThemeControllerOptions extends ThemeOptions {
  cwd: string;
  agentDir: string;
  /** --theme paths (relative to cwd). */
  themePaths: string[];
  /** --no-themes. */
  noThemes: boolean;
  /** --use-theme. */
  useTheme?: string;
  /** Called after the theme drawn with changed. */
  onChange(): void;
}

/**
 * pi's `markdown.codeBlockIndent` from the settings files (project over global), when it is a
 * string. Made inert and kept to one line: an untrusted project's file must not write escape
 * sequences (a clipboard write, a title) to the terminal before every line of code.
 */
function codeBlockIndentIn(cwd: string): { codeBlockIndent?: string } {
  const indent = displaySettingPicker(cwd)("markdown.codeBlockIndent", (value) => (typeof value === "string" ? inertText(value).replaceAll("\n", "") : undefined), undefined);
  return indent === undefined ? {} : { codeBlockIndent: indent };
}

/** What one settings file says about themes (read as written; a broken file says nothing here — it is reported where settings load). */
function themeSettingsIn(file: string): { theme?: string; themes: string[] } {
  let content: unknown;
  try {
    content = readJsonFile(file);
  } catch {
    return { themes: [] };
  }
  const record = typeof content === "object" && content !== null && !Array.isArray(content) ? (content as Record<string, unknown>) : {};
  const themes = Array.isArray(record.themes) ? record.themes.filter((entry): entry is string => typeof entry === "string") : [];
  return { ...(typeof record.theme === "string" && record.theme.trim() !== "" ? { theme: record.theme.trim() } : {}), themes };
}

/** Whether a project's themes count: unless it ships code that is not trusted (see the header). */
function projectThemesCount(cwd: string, projectTrusted: boolean | undefined): boolean {
  if (projectTrusted) return true;
  const read = (file: () => Record<string, unknown>): Record<string, unknown> => {
    try {
      return file();
    } catch {
      return {}; // reported where settings load; the folder's extensions still count below
    }
  };
  return !projectNeedsTrust(cwd, read(() => readProjectSettingsObject(cwd)), read(readGlobalSettingsFile));
}

/** "light/dark" → the pair; a plain name → that name for both. */
export function parseThemeChoice(choice: string): { light: string; dark: string } | { error: string } {
  const parts = choice.split("/").map((part) => part.trim());
  if (parts.length === 1) return { light: parts[0]!, dark: parts[0]! };
  if (parts.length === 2 && parts[0] && parts[1]) return { light: parts[0], dark: parts[1] };
  return { error: `"${choice}" is neither a theme name nor a "light/dark" pair of names` };
}

export class ThemeController {
  readonly theme: UiTheme;
  private drawn: ThemeDefinition;
  private appearance: Appearance = guessThemeFromEnv();
  /** What the terminal answered about its colours; undefined until (unless) it does. */
  private terminalColors: TerminalColors | undefined;
  private system: ThemeDefinition | undefined;
  /** The settings' `theme`: the global file's before the session, then project over global. */
  private setting: string | undefined;
  /** Chosen during the session; wins over flag and setting. */
  private sessionChoice: string | undefined;
  private previewing: ThemeDefinition | undefined;
  private withProject = false;
  private files: LoadedThemeFiles | undefined;
  private readonly pending: string[] = [];
  private readonly said = new Set<string>();

  /** The controller of a terminal session started with `args`. */
  static forTerminal(args: Pick<RunOptions, "themePaths" | "noThemes" | "useTheme">, cwd: string, trueColor: boolean, onChange: () => void): ThemeController {
    return new ThemeController({
      cwd,
      agentDir: getAgentDir(),
      themePaths: args.themePaths ?? [],
      noThemes: args.noThemes === true,
      useTheme: args.useTheme,
      colored: !noColorRequested(),
      mode: trueColor ? "truecolor" : "256color",
      ...codeBlockIndentIn(cwd),
      onChange,
    });
  }

  private readonly options: ThemeControllerOptions;

  constructor(options: ThemeControllerOptions) {
    this.options = options;
    this.setting = themeSettingsIn(getSettingsPath()).theme;
    this.drawn = this.choose();
    this.options = { ...options, terminal: () => this.look() };
    this.theme = createTheme(() => this.previewing ?? this.drawn, this.options);
  }

  /**
   * The session is there: the settings' theme and the theme files are read again,
   * the project's among them unless it ships code that is not trusted (see the header).
   */
  useSession(projectTrusted: boolean | undefined): void {
    const projectCounts = projectThemesCount(this.options.cwd, projectTrusted);
    this.withProject = projectCounts;
    const project = projectCounts ? themeSettingsIn(getProjectSettingsPath(this.options.cwd)).theme : undefined;
    this.setting = project ?? themeSettingsIn(getSettingsPath()).theme;
    this.files = this.loadFiles();
    this.apply();
  }

  /** The same again (/reload); every problem is said again. */
  reload(projectTrusted: boolean | undefined): void {
    this.said.clear();
    this.useSession(projectTrusted);
  }

  /** What the terminal reported about its background. */
  setAppearance(appearance: Appearance): void {
    this.appearance = appearance;
    this.system = undefined;
    this.apply();
  }

  /** What the terminal answered to the colour query: its background sets the appearance, and the system theme is made again. */
  setTerminalColors(colors: TerminalColors): void {
    // Nothing new (no answer, or the same answer again): no redraw. A forced redraw of the
    // inline layout repaints the whole screen, which would wipe the shell's lines above it.
    if (sameColors(this.terminalColors ?? {}, colors)) return;
    this.terminalColors = colors;
    if (colors.background) this.appearance = appearanceOfBackground(colors.background);
    this.system = undefined;
    this.apply();
  }

  /** The terminal said it turned dark or light (mode 2031): that decides until it reports a background. */
  setColorScheme(scheme: Appearance): void {
    if (this.terminalColors?.background) return;
    this.setAppearance(scheme);
  }

  /** What the terminal told of itself, for themes' `appearance` and `colors`. */
  look(): TerminalLook {
    return { colors: this.terminalColors, appearance: this.appearance };
  }

  /** Lines to show the person (bad theme files, a chosen theme that cannot be drawn), each once. */
  takeWarnings(): string[] {
    return this.pending.splice(0);
  }

  /** Every theme that can be chosen: the built-in ones, then the files'. */
  available(): { name: string; path: string | undefined }[] {
    return [...BUILT_IN_NAMES.map((name) => ({ name, path: undefined })), ...this.catalog().themes.map((theme) => ({ name: theme.name, path: theme.path }))];
  }

  /** The theme of that name, as a theme of its own (not following changes); undefined when there is none. */
  find(name: string): UiTheme | undefined {
    const definition = this.definitionOf(name);
    return definition ? createTheme(definition, this.options) : undefined;
  }

  /** The current choice as a settings value would say it ("" when nothing was chosen). */
  currentChoice(): string {
    return this.sessionChoice ?? this.options.useTheme ?? this.setting ?? "";
  }

  /** Draws with `choice` (a name, a "light/dark" pair, or a theme object) for the rest of the session. */
  select(choice: string | ThemeDefinition): { success: boolean; error?: string } {
    if (typeof choice !== "string") {
      this.sessionChoice = choice.name;
      this.previewing = undefined;
      this.show(choice);
      return { success: true };
    }
    const problem = this.problemWith(choice);
    if (problem) return { success: false, error: problem };
    this.sessionChoice = choice;
    this.previewing = undefined;
    this.apply();
    return { success: true };
  }

  /** Shows `choice` until endPreview (a picker moving over the themes); a choice that cannot be drawn changes nothing. */
  preview(choice: string): void {
    if (this.problemWith(choice)) return;
    this.previewing = this.resolve(choice);
    this.options.onChange();
  }

  endPreview(): void {
    if (!this.previewing) return;
    this.previewing = undefined;
    this.options.onChange();
  }

  /** Why `choice` cannot be drawn, or undefined when it can. */
  problemWith(choice: string): string | undefined {
    const pair = parseThemeChoice(choice);
    if ("error" in pair) return pair.error;
    for (const name of new Set([pair.light, pair.dark])) {
      if (this.definitionOf(name)) continue;
      const broken = this.catalog().broken.get(name);
      if (broken) return `${broken.file}: ${broken.reason}`;
      return `no theme is named "${name}" (the themes are: ${this.available().map((theme) => theme.name).join(", ")})`;
    }
    return undefined;
  }

  // --- inside --------------------------------------------------------------------------

  private apply(): void {
    const next = this.choose();
    if (next === this.drawn) return;
    this.show(next);
  }

  /** The system theme for what the terminal said so far (made again when it says more). */
  private systemDefinition(): ThemeDefinition {
    return (this.system ??= systemTheme(this.terminalColors, this.appearance));
  }

  private show(definition: ThemeDefinition): void {
    this.drawn = definition;
    this.options.onChange();
  }

  /** The definition to draw with now; says (once) why a requested theme is not drawn. */
  private choose(): ThemeDefinition {
    const fallback = this.systemDefinition();
    const choice = this.sessionChoice ?? this.options.useTheme ?? this.setting;
    let chosen = fallback;
    if (choice !== undefined) {
      const problem = this.problemWith(choice);
      if (problem) {
        const source = this.sessionChoice !== undefined ? "chosen in this session" : this.options.useTheme !== undefined ? "--use-theme" : "the theme setting";
        const broken = this.catalog().broken.get(choice);
        // One line says it all: the file's own warning is not said besides.
        this.say(`Theme "${choice}" (${source}) is not used: ${problem}. Showing the built-in ${fallback.name} theme.`, broken?.warning);
      } else chosen = this.resolve(choice);
    }
    for (const warning of this.files?.warnings ?? []) this.say(warning);
    return chosen;
  }

  private resolve(choice: string): ThemeDefinition {
    const pair = parseThemeChoice(choice);
    const name = "error" in pair ? choice : pair[this.appearance];
    return this.definitionOf(name) ?? this.systemDefinition();
  }

  private definitionOf(name: string): ThemeDefinition | undefined {
    if (name === SYSTEM_THEME_NAME) return this.systemDefinition();
    if (isBuiltinThemeName(name)) return builtinTheme(name);
    return this.catalog().themes.find((theme) => theme.name === name);
  }

  /**
   * The theme files, read when first needed: a session that only ever uses a
   * built-in theme reads none before its first frame.
   */
  private catalog(): LoadedThemeFiles {
    return (this.files ??= this.loadFiles());
  }

  private loadFiles(): LoadedThemeFiles {
    const { cwd, agentDir, themePaths, noThemes } = this.options;
    const user = themeSettingsIn(getSettingsPath()).themes;
    const project = this.withProject ? themeSettingsIn(getProjectSettingsPath(cwd)).themes : [];
    const places = themePlaces({ cwd, agentDir, userSettingsPaths: user, projectSettingsPaths: project, cliPaths: themePaths, noDiscovery: noThemes });
    return loadThemeFiles(
      places.filter((place) => this.withProject || place.scope !== "project"),
      BUILT_IN_NAMES,
    );
  }

  /** Queues `line` once; `covers` is a warning it says in other words, which is then not said. */
  private say(line: string, covers?: string): void {
    if (covers) this.said.add(covers);
    if (this.said.has(line)) return;
    this.said.add(line);
    // A project's theme file, its name and its keys, and the project's theme setting, are
    // anyone's words: an escape sequence in them must not reach the terminal (title, clipboard).
    this.pending.push(inertText(line));
  }
}

const sameRgb = (a: Rgb | undefined, b: Rgb | undefined) => a === b || (a !== undefined && b !== undefined && a.r === b.r && a.g === b.g && a.b === b.b);

function sameColors(a: TerminalColors, b: TerminalColors): boolean {
  const paletteA = a.palette ?? [];
  const paletteB = b.palette ?? [];
  return sameRgb(a.foreground, b.foreground) && sameRgb(a.background, b.background) && paletteA.length === paletteB.length && paletteA.every((color, index) => sameRgb(color, paletteB[index]));
}
