/**
 * The loaded extensions of one session and the one place events reach them:
 * `emit` runs every handler in load order, folds results by the event's rule
 * (event-rules.ts) and turns a throw into an `extension_error` report — the
 * agent carries on. Tools, commands, flags and shortcuts the extensions
 * registered are read from here by the session.
 */
import { ruleFor } from "./event-rules.ts";
import type { ExtensionHost } from "./host.ts";
import type {
  ExtensionCommandContext,
  ExtensionContext,
  ExtensionEventMap,
  ExtensionEventName,
  FlagOptions,
  RegisteredCommand,
  ShortcutOptions,
  SourceInfo,
  ToolDefinition,
} from "./types.ts";

export interface ExtensionErrorReport {
  extensionPath: string;
  event: string;
  error: string;
}

/** One extension as its factory left it: what it registered, in order. */
export interface LoadedExtension {
  path: string;
  sourceInfo: SourceInfo;
  handlers: Map<string, ((event: any, ctx: any) => unknown)[]>;
  tools: Map<string, ToolDefinition<any>>;
  commands: Map<string, RegisteredCommand>;
  flags: Map<string, FlagOptions>;
  shortcuts: Map<string, ShortcutOptions>;
  messageRenderers: Map<string, (...args: any[]) => unknown>;
  /** registerEntryRenderer: how interactive mode draws the extension's `custom` entries (appendEntry). */
  entryRenderers: Map<string, (...args: any[]) => unknown>;
  /** registerToolRenderer (pi 1.x): resolvers asked, in load order, how to draw calls to any tool. */
  toolRendererResolvers: ((toolName: string, next: () => unknown) => unknown)[];
  /** registerMarkdownTransformer (pi 1.x): one per extension, and the surfaces it runs on. */
  markdownTransformer?: { transform: (markdown: string, context: MarkdownTransformContext) => unknown; messageTypes: readonly string[] };
}

/** What a Markdown transformer is told about the text it gets. */
export interface MarkdownTransformContext {
  messageType: string;
  isStreaming: boolean;
  availableWidth: number;
  messageId?: string;
  timestamp?: string;
}

export interface ResolvedCommand {
  /** The name to type after `/`: the registered name, or `name:N` when several extensions share it. */
  invocation: string;
  extension: LoadedExtension;
  command: RegisteredCommand;
}

export function emptyExtension(path: string, sourceInfo: SourceInfo): LoadedExtension {
  return {
    path,
    sourceInfo,
    handlers: new Map(),
    tools: new Map(),
    commands: new Map(),
    flags: new Map(),
    shortcuts: new Map(),
    messageRenderers: new Map(),
    entryRenderers: new Map(),
    toolRendererResolvers: [],
  };
}

export class ExtensionRunner {
  readonly extensions: LoadedExtension[] = [];
  /** Values of extension flags given on the command line (`--name` / `--name value`). */
  readonly flagValues = new Map<string, boolean | string>();
  private host: ExtensionHost | undefined;
  private context: ExtensionContext | undefined;
  private commandContext: ExtensionCommandContext | undefined;

  constructor(private readonly reportError: (report: ExtensionErrorReport) => void) {}

  /** Binds the runner to its session: from now on handlers get a live context. */
  bind(host: ExtensionHost, context: ExtensionContext, commandContext: ExtensionCommandContext): void {
    this.host = host;
    this.context = context;
    this.commandContext = commandContext;
  }

  get boundHost(): ExtensionHost | undefined {
    return this.host;
  }

  /** The context handlers get (shortcut handlers in the terminal UI get it too); undefined before bind. */
  get boundContext(): ExtensionContext | undefined {
    return this.context;
  }

  add(extension: LoadedExtension): void {
    this.extensions.push(extension);
  }

  hasHandlers(event: ExtensionEventName): boolean {
    return this.extensions.some((extension) => (extension.handlers.get(event)?.length ?? 0) > 0);
  }

  /**
   * Runs the event's handlers and returns the rule's outcome. `only` limits the
   * dispatch to some extensions (project_trust asks user and CLI extensions only;
   * extensions loaded late get their own session_start).
   */
  async emit<E extends ExtensionEventName>(
    name: E,
    event: ExtensionEventMap[E][0],
    options: { context?: unknown; only?: (extension: LoadedExtension) => boolean } = {},
  ): Promise<any> {
    const rule = ruleFor(name);
    let outcome = rule.start(event);
    const context = options.context ?? this.context;
    for (const extension of this.extensions) {
      if (options.only && !options.only(extension)) continue;
      for (const handler of [...(extension.handlers.get(name) ?? [])]) {
        try {
          const step = rule.apply(outcome, await handler(event, context), event);
          outcome = step.outcome;
          if (step.stop) return outcome;
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          this.report(extension.path, name, failure);
          if (rule.onThrow) {
            const step = rule.onThrow(outcome, failure);
            outcome = step.outcome;
            if (step.stop) return outcome;
          }
        }
      }
    }
    return outcome;
  }

  report(extensionPath: string, event: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.reportError({ extensionPath, event, error: message || String(error) });
  }

  // --- what the extensions registered ----------------------------------------

  /** Commands by invocation name: names shared by several extensions get `:1`, `:2`… in load order. */
  commands(): ResolvedCommand[] {
    const all = this.extensions.flatMap((extension) => [...extension.commands].map(([name, command]) => ({ name, extension, command })));
    const counts = new Map<string, number>();
    for (const { name } of all) counts.set(name, (counts.get(name) ?? 0) + 1);
    const seen = new Map<string, number>();
    return all.map(({ name, extension, command }) => {
      if (counts.get(name) === 1) return { invocation: name, extension, command };
      const index = (seen.get(name) ?? 0) + 1;
      seen.set(name, index);
      return { invocation: `${name}:${index}`, extension, command };
    });
  }

  /** `/name args` → the command and its argument text; undefined when the text is no extension command. */
  matchCommand(text: string): { command: ResolvedCommand; args: string } | undefined {
    if (!text.startsWith("/")) return undefined;
    const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
    if (!match) return undefined;
    const command = this.commands().find((candidate) => candidate.invocation === match[1]);
    return command ? { command, args: (match[2] ?? "").trim() } : undefined;
  }

  /** Runs a command with the command context; a throw becomes an extension_error. */
  async runCommand(resolved: ResolvedCommand, args: string): Promise<void> {
    try {
      await resolved.command.handler(args, this.commandContext as ExtensionCommandContext);
    } catch (error) {
      this.report(resolved.extension.path, `command:${resolved.invocation}`, error);
    }
  }

  flagDefinitions(): Map<string, FlagOptions> {
    const flags = new Map<string, FlagOptions>();
    for (const extension of this.extensions) for (const [name, options] of extension.flags) if (!flags.has(name)) flags.set(name, options);
    return flags;
  }

  getFlag(name: string): boolean | string | undefined {
    if (this.flagValues.has(name)) return this.flagValues.get(name);
    return this.flagDefinitions().get(name)?.default;
  }
}
