/**
 * The built-in slash commands, by name. A typed `/name args` runs the built-in
 * of that name; another known name (extension command, prompt template, skill)
 * goes to the session, which resolves it; an unknown `/word` is refused
 * (unknownCommand) rather than sent to the model as a message.
 */
import type { BuiltinCommand } from "../app.ts";
import { modelCommands } from "./model-commands.ts";
import { sessionCommands } from "./session-commands.ts";
import { helpCommand } from "./help-command.ts";
import { hotkeysCommand } from "./hotkeys-command.ts";
import { loginCommands } from "./login-commands.ts";
import { resumeCommand } from "./resume-command.ts";
import { importCommand } from "./import-command.ts";
import { scopedModelsCommand } from "./scoped-models-command.ts";
import { settingsCommand } from "./settings-command.ts";
import { treeCommand } from "./tree-command.ts";
import { mcpCommand } from "./mcp-command.ts";
import { trustCommand } from "./trust-command.ts";

export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  ...modelCommands,
  scopedModelsCommand,
  ...sessionCommands,
  resumeCommand,
  importCommand,
  treeCommand,
  settingsCommand,
  ...loginCommands,
  hotkeysCommand,
  mcpCommand,
  trustCommand,
  helpCommand(() => BUILTIN_COMMANDS),
];

const byName = new Map(BUILTIN_COMMANDS.map((command) => [command.name, command]));

/** The built-in a line invokes, with the rest of the line as its arguments. */
export function matchBuiltin(text: string): { command: BuiltinCommand; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const command = byName.get(match[1]!);
  return command ? { command, args: match[2] ?? "" } : undefined;
}

/**
 * The word of a `/word …` line that names no command, else undefined. Only a
 * command-shaped word counts: "/usr/bin is a path" is a message, not a command.
 */
export function unknownCommand(text: string, known: ReadonlySet<string>): string | undefined {
  const word = /^\/([A-Za-z0-9][\w:.-]*)(?=\s|$)/.exec(text.trim())?.[1];
  return word !== undefined && !known.has(word) ? word : undefined;
}
