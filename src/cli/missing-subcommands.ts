/**
 * pi's subcommands that xcsh does not have. Without this table `xcsh update`
 * is a prompt — the word "update" sent to the model with tools in the current
 * folder. Each word here is refused at start instead (exit 2), with what to do
 * in its place. It is a table so that a row goes when xcsh gains the command.
 * Only the first argument counts: `xcsh -p update` is still a prompt.
 */

const EXTENSION_PLACES = "~/.xcsh/agent/extensions/ or .xcsh/extensions/, or the `extensions` list of settings.json";

/** word → what to do instead. */
export const MISSING_SUBCOMMANDS: Readonly<Record<string, string>> = {
  install: `xcsh does not install packages. Load an extension with -e <path>, or put it in ${EXTENSION_PLACES}.`,
  remove: `xcsh does not install packages. Remove the extension's file from ${EXTENSION_PLACES}.`,
  uninstall: `xcsh does not install packages. Remove the extension's file from ${EXTENSION_PLACES}.`,
  list: `xcsh does not install packages. Extensions load from -e <path> and ${EXTENSION_PLACES}; /help lists their commands.`,
  update: "xcsh does not update itself. Install the latest release again, or pull and `bun run build` in a clone; the model catalog is built in.",
  config: "xcsh has no config command. Edit ~/.xcsh/agent/settings.json (or .xcsh/settings.json in the project), or use /settings in the interactive mode.",
  login: "xcsh has no login command. Set the provider's API key variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) or pass --api-key; `xcsh --list-models` shows which keys are set.",
  logout: "xcsh has no logout command. Unset the provider's API key variable; `xcsh --list-models` shows which keys are set.",
};

/** The refusal for a first argument that names a missing subcommand, else undefined. */
export function missingSubcommand(firstArgument: string | undefined): string | undefined {
  if (firstArgument === undefined || !Object.hasOwn(MISSING_SUBCOMMANDS, firstArgument)) return undefined;
  return `"${firstArgument}" is a pi command that xcsh does not have. ${MISSING_SUBCOMMANDS[firstArgument]} To send it as a prompt: xcsh -- ${firstArgument}`;
}
