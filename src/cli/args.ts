/**
 * Command-line parsing. Pure: turns argv into a typed description of what the
 * user asked for, or a message saying what is wrong with it. No I/O here, so
 * `--version` and `--help` stay instant.
 */
import { BUILTIN_EXTENSIONS, builtinName } from "../core/builtin-extensions.ts";
import type { ExtensionFlagTypes, Mode, OutputFormat, RpcWireForm, RunOptions } from "../core/run-options.ts";
import { unknownOption } from "./unknown-option.ts";

export type { ExtensionFlagTypes, Mode, OutputFormat, RpcWireForm, RunOptions };

const RPC_WIRE_FORMS: readonly RpcWireForm[] = ["full", "lean", "pi"];

/**
 * pi's short spellings of options xcsh has (pi 0.87.1 docs/cli.md): hosts start
 * agents with them. `-n` is --name, handled with the value options.
 */
const SHORT_ALIASES: Record<string, string> = {
  "-ne": "--no-extensions",
  "-ns": "--no-skills",
  "-np": "--no-prompt-templates",
  "-nc": "--no-context-files",
  "-nt": "--no-tools",
  "-nbt": "--no-builtin-tools",
  "-t": "--tools",
  "-xt": "--exclude-tools",
  "-r": "--resume",
  "-a": "--approve",
  "-na": "--no-approve",
};

/**
 * pi's options with nothing to act on in xcsh, accepted so that a host passing them
 * starts xcsh as it starts pi: --offline turns off automatic network activity, which xcsh
 * has none of (it only talks to the model's provider when asked).
 * The value maps each to whether it takes a value.
 */
const IGNORED_OPTIONS: Record<string, boolean> = {
  "--offline": false,
};

type Parsed = { ok: true; args: RunOptions } | { ok: false; error: string };

/** Options that take a value, mapped to the field that receives it. */
const VALUE_OPTIONS: Record<string, keyof RunOptions> = {
  "--mode": "mode",
  "--provider": "provider",
  "--model": "model",
  "--thinking": "thinking",
  "--tui-mode": "tuiMode",
  "--api-key": "apiKey",
  "--system-prompt": "systemPrompt",
  "--session": "session",
  "--fork": "fork",
  "--session-id": "sessionId",
  "--session-dir": "sessionDir",
  "--name": "name",
  "-n": "name",
  "--faux-script": "fauxScript",
  "--export": "exportSession",
};

/** Repeatable options that collect paths. */
const PATH_LIST_OPTIONS: Record<string, "extensionPaths" | "skillPaths" | "promptTemplatePaths"> = {
  "-e": "extensionPaths",
  "--extension": "extensionPaths",
  "--skill": "skillPaths",
  "--prompt-template": "promptTemplatePaths",
};

const MODES: readonly Mode[] = ["text", "json", "rpc", "acp"];
const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json"];

/** Run limits: each takes a positive number; --max-turns a whole one. */
const LIMIT_OPTIONS: Record<string, { field: "maxTurns" | "maxCostUsd" | "timeoutSeconds" | "idleTimeoutSeconds"; integer: boolean; what: string }> = {
  "--max-turns": { field: "maxTurns", integer: true, what: "a whole number of turns, at least 1" },
  "--max-cost": { field: "maxCostUsd", integer: false, what: "an amount in US dollars above 0" },
  "--timeout": { field: "timeoutSeconds", integer: false, what: "a number of seconds above 0" },
  "--idle-timeout": { field: "idleTimeoutSeconds", integer: false, what: "a number of seconds above 0" },
};

function parseLimit(text: string, integer: boolean): number | undefined {
  if (!/^\d*\.?\d+$/.test(text.trim())) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) return undefined;
  return value;
}

function commaList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * Parses argv. Without `extensionFlags`, unknown long options are collected in
 * `unknownOptions` for the caller to judge; with them, the options extensions
 * registered are parsed into `extensionFlags` and anything else unknown is an error.
 */
export function parseArgs(argv: string[], extensionFlags?: ExtensionFlagTypes): Parsed {
  const args: RunOptions = {
    extensionPaths: [],
    noExtensions: false,
    noBuiltinTools: false,
    skillPaths: [],
    noSkills: false,
    promptTemplatePaths: [],
    noPromptTemplates: false,
    noContextFiles: false,
    unknownOptions: [],
    extensionFlags: new Map(),
    argv,
    reparse: (flags) => {
      const again = parseArgs(argv, flags);
      return again.ok ? { ok: true, options: again.args } : again;
    },
    print: false,
    noTools: false,
    continueSession: false,
    resume: false,
    appendSystemPrompt: [],
    excludeTools: [],
    fileArgs: [],
    noSession: false,
    rpcLean: false,
    version: false,
    help: false,
    messages: [],
  };
  const fail = (error: string): Parsed => ({ ok: false, error: `${error}. Run xcsh --help for usage.` });

  for (let i = 0; i < argv.length; i++) {
    let arg = Object.hasOwn(SHORT_ALIASES, argv[i]) ? SHORT_ALIASES[argv[i]] : argv[i];
    let inlineValue: string | undefined;
    if (arg.startsWith("--") && arg.includes("=")) {
      inlineValue = arg.slice(arg.indexOf("=") + 1);
      arg = arg.slice(0, arg.indexOf("="));
    }
    const takeValue = (): string | undefined => {
      if (inlineValue !== undefined) return inlineValue;
      const next = argv[i + 1];
      if (next === undefined) return undefined;
      i++;
      return next;
    };

    if (arg === "--") {
      args.messages.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h" || arg === "--help") args.help = true;
    else if (arg === "-v" || arg === "--version") args.version = true;
    else if (arg === "--no-tools") args.noTools = true;
    else if (arg === "-c" || arg === "--continue") args.continueSession = true;
    else if (arg === "--resume") args.resume = true;
    else if (arg === "--no-session") args.noSession = true;
    else if (arg === "--verbose") args.verbose = true;
    else if (arg === "--rpc-lean") args.rpcLean = true;
    else if (arg === "--no-extensions") args.noExtensions = true;
    else if (arg === "--trust-project" || arg === "--approve") args.trustProject = true;
    else if (arg === "--no-trust-project" || arg === "--no-approve") args.trustProject = false;
    else if (arg === "--no-builtin-tools") args.noBuiltinTools = true;
    else if (arg === "--no-skills") args.noSkills = true;
    else if (arg === "--no-prompt-templates") args.noPromptTemplates = true;
    else if (arg === "--no-context-files") args.noContextFiles = true;
    else if (Object.hasOwn(PATH_LIST_OPTIONS, arg)) {
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a path`);
      const builtin = PATH_LIST_OPTIONS[arg] === "extensionPaths" ? builtinName(value) : undefined;
      if (builtin !== undefined) {
        // pi 1.x: `-e builtin:mcp` loads a built-in extension, also with --no-extensions.
        if (!Object.hasOwn(BUILTIN_EXTENSIONS, builtin)) {
          return fail(`Option ${arg}: no built-in extension is named "${builtin}" (there are: ${Object.keys(BUILTIN_EXTENSIONS).map((name) => `builtin:${name}`).join(", ")})`);
        }
        (args.builtinExtensions ??= []).push(builtin);
      } else args[PATH_LIST_OPTIONS[arg]].push(value);
    }
    else if (arg === "--no-mcp") args.noMcp = true;
    else if (arg === "--mcp-config") {
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a path`);
      (args.mcpConfigPaths ??= []).push(value);
    }
    else if (arg === "-p" || arg === "--print") {
      args.print = true;
      // The prompt usually follows -p; an option after it means the prompt comes later or from stdin.
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("-")) {
        args.messages.push(next);
        i++;
      }
    } else if (arg === "--list-models") {
      const next = argv[i + 1];
      if (inlineValue !== undefined) args.listModels = inlineValue;
      else if (next !== undefined && !next.startsWith("-")) {
        args.listModels = next;
        i++;
      } else args.listModels = "";
    } else if (Object.hasOwn(LIMIT_OPTIONS, arg)) {
      const { field, integer, what } = LIMIT_OPTIONS[arg];
      const text = takeValue();
      if (text === undefined || text === "") return fail(`Option ${arg} needs a value: ${what}`);
      const value = parseLimit(text, integer);
      if (value === undefined) return fail(`Option ${arg} takes ${what}, not "${text}"`);
      args[field] = value;
    } else if (arg === "--no-themes") args.noThemes = true;
    else if (arg === "--theme" || arg === "--use-theme") {
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a value`);
      if (arg === "--theme") (args.themePaths ??= []).push(value);
      else args.useTheme = value;
    } else if (Object.hasOwn(IGNORED_OPTIONS, arg)) {
      if (IGNORED_OPTIONS[arg]) {
        const value = takeValue();
        if (value === undefined || value === "") return fail(`Option ${arg} needs a value`);
      }
    } else if (arg === "--tools" || arg === "--exclude-tools" || arg === "--models") {
      // A list; an empty one is allowed (pi: --tools "" enables no tool).
      const value = takeValue();
      if (value === undefined) return fail(`Option ${arg} needs a comma-separated list`);
      const list = commaList(value);
      if (arg === "--tools") {
        const problem = toolListProblem(list);
        if (problem) return fail(problem);
        args.tools = list;
      }
      else if (arg === "--exclude-tools") args.excludeTools.push(...list);
      else args.models = list;
    } else if (arg === "--append-system-prompt") {
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a text or a file path`);
      args.appendSystemPrompt.push(value);
    } else if (arg === "--rpc-wire") {
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a value (${RPC_WIRE_FORMS.join(", ")})`);
      if (!RPC_WIRE_FORMS.includes(value as RpcWireForm)) return fail(`Unknown wire form "${value}" (use one of: ${RPC_WIRE_FORMS.join(", ")})`);
      args.rpcWire = value as RpcWireForm;
    } else if (arg === "--sandbox") {
      const modes = ["off", "read-only", "workspace-write"];
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a value (${modes.join(", ")})`);
      if (!modes.includes(value)) return fail(`Unknown sandbox mode "${value}" (use one of: ${modes.join(", ")})`);
      args.sandbox = value;
    } else if (arg === "--output-format") {
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a value (text or json)`);
      if (!OUTPUT_FORMATS.includes(value as OutputFormat)) return fail(`Unknown output format "${value}" (use one of: ${OUTPUT_FORMATS.join(", ")})`);
      args.outputFormat = value as OutputFormat;
    } else if (Object.hasOwn(VALUE_OPTIONS, arg)) {
      const value = takeValue();
      if (value === undefined || value === "") return fail(`Option ${arg} needs a value`);
      (args as unknown as Record<string, unknown>)[VALUE_OPTIONS[arg]] = value;
    } else if (arg.startsWith("--") && extensionFlags?.has(arg.slice(2))) {
      const name = arg.slice(2);
      if (extensionFlags.get(name) === "string") {
        const value = takeValue();
        if (value === undefined) return fail(`Option ${arg} needs a value`);
        args.extensionFlags.set(name, value);
      } else {
        args.extensionFlags.set(name, inlineValue === undefined ? true : !/^(false|0|no|off)$/i.test(inlineValue));
      }
    } else if (arg.startsWith("--") && arg.length > 2 && extensionFlags === undefined) {
      args.unknownOptions.push(arg);
    } else if (arg.startsWith("-") && arg !== "-") {
      return fail(unknownOption(arg, extensionFlags?.keys()));
    } else {
      args.messages.push(arg);
    }
  }

  // An `@path` word names a file for the first prompt, wherever it stands (also after --).
  args.fileArgs = args.messages.filter((word) => word.startsWith("@") && word.length > 1).map((word) => word.slice(1));
  args.messages = args.messages.filter((word) => !(word.startsWith("@") && word.length > 1));

  // pi 0.87.1's "max": the model's highest level. xcsh's levels end at xhigh, and a level
  // is clamped down to what the model supports, so xhigh is that highest level.
  if (args.thinking === "max") args.thinking = "xhigh";
  if (args.sessionId !== undefined) {
    if (!/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(args.sessionId)) {
      return fail(`--session-id "${args.sessionId}": an id must be letters, digits, ".", "_" or "-", starting and ending with a letter or digit`);
    }
    const other = args.session !== undefined ? "--session" : args.continueSession ? "--continue" : args.resume ? "--resume" : undefined;
    if (other) return fail(`--session-id cannot be combined with ${other} (it names the session itself)`);
  }
  if (args.fork !== undefined) {
    // pi 0.87.1's rule: a fork starts a new session, so nothing else may choose one (--session-id names it).
    const other = args.session !== undefined ? "--session" : args.continueSession ? "--continue" : args.resume ? "--resume" : args.noSession ? "--no-session" : undefined;
    if (other) return fail(`--fork cannot be combined with ${other}: the fork is the session this run uses`);
  }
  if (args.rpcLean && args.rpcWire !== undefined && args.rpcWire !== "lean") {
    return fail(`--rpc-lean is --rpc-wire lean; it cannot be combined with --rpc-wire ${args.rpcWire}`);
  }
  if (args.tuiMode !== undefined && args.tuiMode !== "fullscreen" && args.tuiMode !== "regular") {
    return fail(`Unknown TUI mode "${args.tuiMode}" (use fullscreen or regular)`);
  }
  if (args.mode !== undefined && !MODES.includes(args.mode)) {
    return fail(`Unknown mode "${args.mode}" (use one of: ${MODES.join(", ")})`);
  }
  return { ok: true, args };
}

/**
 * --tools takes plain names and patterns (an allowlist), or only `+name`/`-name` entries
 * (changes to the default selection, exact names): never both in one list.
 */
function toolListProblem(list: string[]): string | undefined {
  const changes = list.filter((entry) => entry.startsWith("+") || entry.startsWith("-"));
  if (changes.length > 0 && changes.length < list.length) {
    return `Option --tools: plain names and +name/-name entries cannot be mixed (got ${list.join(",")}). Name every tool you want, or give only +name/-name changes to the defaults.`;
  }
  const pattern = changes.find((entry) => entry.includes("*") || entry.length === 1);
  if (pattern) return `Option --tools: "${pattern}" is no tool name; +name/-name entries take exact names (use --exclude-tools for patterns).`;
  return undefined;
}
