/**
 * "Unknown option --promt (did you mean --print?)": an option nobody knows,
 * with the nearest one xcsh or a loaded extension does know. The known long
 * options are read off the help text, so a new option is suggested as soon
 * as it is documented.
 */
import { nearestName } from "../config/nearest-name.ts";
import { HELP_TEXT } from "./help.ts";

export function unknownOption(option: string, extensionFlags: Iterable<string> = []): string {
  const known = new Set([...HELP_TEXT.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((match) => match[0]));
  for (const flag of extensionFlags) known.add(`--${flag}`);
  const nearest = option.startsWith("--") ? nearestName(option.split("=")[0]!, known) : undefined;
  return `Unknown option ${option}${nearest ? ` (did you mean ${nearest}?)` : ""}`;
}
