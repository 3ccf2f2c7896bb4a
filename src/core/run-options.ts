/**
 * What a run is asked to do, as the modes and the layers below them read it: the
 * model, the session, tools, resources, prompts and limits. The command line
 * (src/cli/args.ts) produces it; nothing here knows argv's syntax, so the modes
 * depend on this type and never on cli/.
 */

/** Flags extensions registered, by name: a string flag takes the next argument as its value. */
export type ExtensionFlagTypes = ReadonlyMap<string, "boolean" | "string">;

export type Mode = "text" | "json" | "rpc" | "acp";

export interface RunOptions {
  /** -p/--print: run the prompt non-interactively and print the answer. */
  print: boolean;
  mode?: Mode;
  provider?: string;
  model?: string;
  thinking?: string;
  /** --tui-mode: the terminal UI's layout (fullscreen or regular); undefined: the settings decide. */
  tuiMode?: string;
  apiKey?: string;
  /** --system-prompt: text, or a file whose contents replace the system prompt. */
  systemPrompt?: string;
  /** --append-system-prompt (repeatable): texts or files added to the system prompt, in order. */
  appendSystemPrompt: string[];
  /** --tools/-t a,b: the only tools to enable (built-in or an extension's); empty: none. */
  tools?: string[];
  /** --exclude-tools/-xt a,b: tools to disable after every other choice. */
  excludeTools: string[];
  /** --no-tools: run without any tool. */
  noTools: boolean;
  /** --models a,b: the model patterns for startup and cycling (as settings' enabledModels). */
  models?: string[];
  /** --session: a session file, or the start of a session id. */
  session?: string;
  /** --session-id: the exact id of the project's session to open, or to create. */
  sessionId?: string;
  /** -c/--continue: resume the most recent session of this directory. */
  continueSession: boolean;
  /** -r/--resume: pick the session to resume. */
  resume: boolean;
  /** --fork: a session file or id prefix to copy into a new session. */
  fork?: string;
  /** --no-session: keep nothing on disk. */
  noSession: boolean;
  /** --verbose: the start-up header despite quietStartup (pi), and a provider error's raw body (redacted) beside its message. */
  verbose?: boolean;
  sessionDir?: string;
  /** --name/-n: the session's display name. */
  name?: string;
  /** --rpc-lean: message_update events carry deltas without the cumulative message. */
  rpcLean: boolean;
  /** --rpc-wire: how rpc and json modes write events (full, lean, or pi 0.87.1's form); undefined when not given. */
  rpcWire?: RpcWireForm;
  /** --faux-script: the script the offline faux provider replays. */
  fauxScript?: string;
  /** --list-models, with the optional search text (empty string lists all). */
  listModels?: string;
  version: boolean;
  help: boolean;
  /** Prompts, one per positional word (and the -p argument), each sent as its own turn. */
  messages: string[];
  /** `@path` arguments, without the `@`: files whose text (or image) goes with the first prompt. */
  fileArgs: string[];
  /** -e/--extension: extension files or folders to load (repeatable). */
  extensionPaths: string[];
  /** --no-extensions: load only the -e paths. */
  noExtensions: boolean;
  /** --trust-project / --no-trust-project; undefined when neither was given. */
  trustProject?: boolean;
  /** --no-builtin-tools: start with no built-in tool active (extension tools stay). */
  noBuiltinTools: boolean;
  /** Options xcsh does not know; an extension may have registered them as flags (checked once extensions load). */
  unknownOptions: string[];
  /** Values of extension flags, when parsed with their definitions. */
  extensionFlags: Map<string, boolean | string>;
  /** The raw arguments, to parse again once extensions have registered their flags. */
  argv: string[];
  /**
   * Parses the same command line again, knowing the options extensions registered
   * (their values land in `extensionFlags`); an option nobody registered is an error.
   * Provided by the entry point, which owns the syntax.
   */
  reparse(extensionFlags: ExtensionFlagTypes): { ok: true; options: RunOptions } | { ok: false; error: string };
  /** --output-format json: -p prints only the result envelope (docs/headless.md). */
  outputFormat?: OutputFormat;
  /** --max-turns: stop before a model request past this many turns. */
  maxTurns?: number;
  /** --max-cost: stop once the run has cost this many US dollars. */
  maxCostUsd?: number;
  /** --timeout: the whole run may take this many seconds. */
  timeoutSeconds?: number;
  /** --idle-timeout: stop after this many seconds without an event from the model or a tool. */
  idleTimeoutSeconds?: number;
  /** --skill: skill files or folders to load besides the discovered ones (repeatable). */
  skillPaths: string[];
  /** --no-skills: load only the --skill paths. */
  noSkills: boolean;
  /** --prompt-template: template files or folders to load besides the discovered ones (repeatable). */
  promptTemplatePaths: string[];
  /** --no-prompt-templates: load only the --prompt-template paths. */
  noPromptTemplates: boolean;
  /** --no-context-files: no AGENTS.md / CLAUDE.md in the system prompt. */
  noContextFiles: boolean;
  /** --export <session.jsonl|id>: write the session as HTML (or JSONL) and exit; the output path is the first positional word. */
  exportSession?: string;
  /** --sandbox off|read-only|workspace-write: where commands may write and whether they reach the network (docs/security.md). */
  sandbox?: string;
  /** --theme: theme files or folders to load (repeatable); --use-theme: the theme to draw with; --no-themes: only the --theme ones. */
  themePaths?: string[];
  useTheme?: string;
  noThemes?: boolean;
  /** --mcp-config <file> (repeatable): more MCP server files for this run (docs/mcp.md). */
  mcpConfigPaths?: string[];
  /** --no-mcp: no MCP servers from the user's or the project's files (--mcp-config files still load). */
  noMcp?: boolean;
  /** -e builtin:<name> (pi 1.x): built-in extensions asked for by name, on even with --no-extensions. */
  builtinExtensions?: string[];
}

export type OutputFormat = "text" | "json";

/** Event forms a host can ask for (src/modes/event-writer.ts): seed 000's, xcsh's lean one, pi 0.87.1's. */
export type RpcWireForm = "full" | "lean" | "pi";
