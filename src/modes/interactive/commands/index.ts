/**
 * The built-in slash commands, by name. A typed `/name args` runs the built-in
 * of that name; anything else starting with `/` goes to the session, where
 * extension commands, prompt templates and skills are resolved.
 */
import type { BuiltinCommand } from "../app.ts";
import { modelCommands } from "./model-commands.ts";
import { sessionCommands } from "./session-commands.ts";
import { hotkeysCommand } from "./hotkeys-command.ts";
import { resumeCommand } from "./resume-command.ts";
import { scopedModelsCommand } from "./scoped-models-command.ts";
import { settingsCommand } from "./settings-command.ts";
import { treeCommand } from "./tree-command.ts";

export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [...modelCommands, scopedModelsCommand, ...sessionCommands, resumeCommand, treeCommand, settingsCommand, hotkeysCommand];

const byName = new Map(BUILTIN_COMMANDS.map((command) => [command.name, command]));

/** The built-in a line invokes, with the rest of the line as its arguments. */
export function matchBuiltin(text: string): { command: BuiltinCommand; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const command = byName.get(match[1]!);
  return command ? { command, args: match[2] ?? "" } : undefined;
}
