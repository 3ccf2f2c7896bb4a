/**
 * pi's subcommands that xcsh does not have. Without this table `xcsh login`
 * is a prompt — the word "login" sent to the model with tools in the current
 * folder. Each word here is refused at start instead (exit 2), with what to do
 * in its place. It is a table so that a row goes when xcsh gains the command.
 * Only the first argument counts: `xcsh -p login` is still a prompt. (The
 * package commands, `xcsh config`, `xcsh auth` and `xcsh mcp` dispatch before this is asked.)
 */

/** word → what to do instead. */
export const MISSING_SUBCOMMANDS: Readonly<Record<string, string>> = {
  login: "Sign in with `xcsh auth login [provider]`, or set the provider's API key variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, …).",
  logout: "Sign out with `xcsh auth logout [provider]`.",
};

/** The refusal for a first argument that names a missing subcommand, else undefined. */
export function missingSubcommand(firstArgument: string | undefined): string | undefined {
  if (firstArgument === undefined || !Object.hasOwn(MISSING_SUBCOMMANDS, firstArgument)) return undefined;
  return `"${firstArgument}" is not an xcsh command. ${MISSING_SUBCOMMANDS[firstArgument]} To send it as a prompt: xcsh -- ${firstArgument}`;
}
