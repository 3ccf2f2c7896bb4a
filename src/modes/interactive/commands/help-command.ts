/**
 * /help: every command `/` offers, by where it comes from — the built-ins,
 * extension commands, prompt templates, skills and MCP servers' prompts — each
 * with its arguments and description, so a person can find a command without
 * guessing. The same list decides what an unknown `/word` is (commandNames).
 */
import { MCP_TOOL_SOURCE } from "../../../mcp/names.ts";
import type { App, BuiltinCommand } from "../app.ts";

interface ListedCommand {
  name: string;
  description?: string;
  argumentHint?: string;
}

/** The session's other commands (extension, template, skill, MCP prompt) a built-in does not shadow. */
function sessionCommands(app: Pick<App, "session" | "extensions">, builtins: readonly BuiltinCommand[]) {
  const extensionCommands = app.extensions?.commandEntries() ?? [];
  const listed = app.session?.resources?.commands(extensionCommands) ?? extensionCommands.map((command) => ({ ...command, source: "extension" as const }));
  const taken = new Set(builtins.map((command) => command.name));
  return [...listed, ...(app.session?.mcp?.commands() ?? [])].filter((command) => !taken.has(command.name));
}

/**
 * Every name `/name` runs: built-in, extension command, template, skill, MCP
 * prompt. MCP servers still connecting are waited for, so that a prompt of a
 * slow server is not called unknown.
 */
export async function commandNames(app: Pick<App, "session" | "extensions">, builtins: readonly BuiltinCommand[]): Promise<Set<string>> {
  await app.session?.mcp?.ready();
  return new Set([...builtins.map((command) => command.name), ...sessionCommands(app, builtins).map((command) => command.name)]);
}

const isMcp = (command: { sourceInfo?: { source?: string } }) => command.sourceInfo?.source === MCP_TOOL_SOURCE;

function section(title: string, commands: readonly ListedCommand[], width: number): string[] {
  if (commands.length === 0) return [];
  const rows = commands.map((command) => [`/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`, command.description ?? ""] as const);
  return ["", title, ...rows.map(([usage, description]) => `  ${usage.padEnd(width)}  ${description}`.trimEnd())];
}

export function helpCommand(builtins: () => readonly BuiltinCommand[]): BuiltinCommand {
  return {
    name: "help",
    description: "List the commands (built-in, extensions, prompt templates, skills, MCP prompts)",
    async run(app) {
      // MCP servers still connecting are waited for (each for at most its start-up timeout): a full list, once.
      await app.session?.mcp?.ready();
      const all = builtins();
      const others = sessionCommands(app, all);
      const groups: [string, ListedCommand[]][] = [
        ["Built-in", [...all]],
        ["Extension commands", others.filter((command) => command.source === "extension")],
        ["Prompt templates", others.filter((command) => command.source === "prompt" && !isMcp(command))],
        ["Skills", others.filter((command) => command.source === "skill")],
        ["MCP prompts", others.filter(isMcp)],
      ];
      const width = Math.max(...groups.flatMap(([, commands]) => commands.map((command) => command.name.length + 1 + (command.argumentHint ? command.argumentHint.length + 1 : 0))));
      const lines = groups.flatMap(([title, commands]) => section(title, commands, width));
      lines.push("", "Type / to pick one as you type; /hotkeys lists the keys.");
      app.conversation.notice("Commands", lines.join("\n"), "accent");
    },
  };
}
