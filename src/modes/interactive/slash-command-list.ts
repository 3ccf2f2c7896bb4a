/**
 * The slash commands the `/` list offers: xcsh's own first, then extensions' commands,
 * skills and prompt templates that do not take a built-in's name. Skills' and templates'
 * descriptions are a cloned repository's words, so they are listed inert, on one line.
 */
import type { SlashCommand } from "@earendil-works/pi-tui";
import type { AgentSession } from "../../core/agent-session.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import { inertText } from "../../tools/inert-text.ts";
import { BUILTIN_COMMANDS } from "./commands/index.ts";
import { extensionSlashCommands } from "./extension-lookup.ts";

export function slashCommandList(session: AgentSession | undefined, extensions: ExtensionSystem | undefined): SlashCommand[] {
  const builtins = BUILTIN_COMMANDS.map((command) => ({ name: command.name, description: command.description, argumentHint: command.argumentHint }));
  if (!session) return builtins;
  const extensionCommands = extensions?.commandEntries() ?? [];
  const others = session.resources?.commands(extensionCommands) ?? extensionCommands;
  const taken = new Set(builtins.map((command) => command.name));
  const listed = others
    .filter((command) => !taken.has(command.name))
    .map((command) => ({ ...command, ...(command.description !== undefined ? { description: inertText(command.description).replace(/\n/g, " ") } : {}) }));
  return [...builtins, ...extensionSlashCommands(extensions, listed)];
}
