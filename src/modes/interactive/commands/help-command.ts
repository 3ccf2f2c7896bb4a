/**
 * /help: every command `/` offers, by where it comes from — the built-ins,
 * extension commands, prompt templates and skills — each with its arguments
 * and description, so a person can find a command without guessing. The
 * same list decides what an unknown `/word` is (commandNames).
 */
import type { App, BuiltinCommand } from "../app.ts";

interface ListedCommand {
  name: string;
  description?: string;
  argumentHint?: string;
}

/** The session's other commands (extension, template, skill) a built-in does not shadow, by source. */
function sessionCommands(app: Pick<App, "session" | "extensions">, builtins: readonly BuiltinCommand[]) {
  const extensionCommands = app.extensions?.commandEntries() ?? [];
  const listed = app.session?.resources?.commands(extensionCommands) ?? extensionCommands.map((command) => ({ ...command, source: "extension" as const }));
  const taken = new Set(builtins.map((command) => command.name));
  return listed.filter((command) => !taken.has(command.name));
}

/** Every name `/name` runs: built-in, extension command, template, skill. */
export function commandNames(app: Pick<App, "session" | "extensions">, builtins: readonly BuiltinCommand[]): Set<string> {
  return new Set([...builtins.map((command) => command.name), ...sessionCommands(app, builtins).map((command) => command.name)]);
}

function section(title: string, commands: readonly ListedCommand[], width: number): string[] {
  if (commands.length === 0) return [];
  const rows = commands.map((command) => [`/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`, command.description ?? ""] as const);
  return ["", title, ...rows.map(([usage, description]) => `  ${usage.padEnd(width)}  ${description}`.trimEnd())];
}

export function helpCommand(builtins: () => readonly BuiltinCommand[]): BuiltinCommand {
  return {
    name: "help",
    description: "List the commands (built-in, extensions, prompt templates, skills)",
    run(app) {
      const all = builtins();
      const others = sessionCommands(app, all);
      const groups: [string, ListedCommand[]][] = [
        ["Built-in", [...all]],
        ["Extension commands", others.filter((command) => command.source === "extension")],
        ["Prompt templates", others.filter((command) => command.source === "prompt")],
        ["Skills", others.filter((command) => command.source === "skill")],
      ];
      const width = Math.max(...groups.flatMap(([, commands]) => commands.map((command) => command.name.length + 1 + (command.argumentHint ? command.argumentHint.length + 1 : 0))));
      const lines = groups.flatMap(([title, commands]) => section(title, commands, width));
      lines.push("", "Type / to pick one as you type; /hotkeys lists the keys.");
      app.conversation.notice("Commands", lines.join("\n"), "accent");
    },
  };
}
