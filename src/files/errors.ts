/**
 * A configuration file xcsh cannot use. The message always names the file, says what is
 * wrong with it (with a line/column or a field path where one is known) and what to do,
 * because it is usually shown to a person as it is.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** Absolute path of the offending file. */
  readonly file: string;
  /** One entry per problem found, without the file name. */
  readonly problems: readonly string[];

  constructor(file: string, problems: string | readonly string[], hint = "Fix the file and try again.") {
    const list = typeof problems === "string" ? [problems] : [...problems];
    super(`${file}: ${list.map(withoutFinalPeriod).join("; ")}. ${hint}`);
    this.file = file;
    this.problems = list;
  }
}

function withoutFinalPeriod(text: string): string {
  return text.endsWith(".") ? text.slice(0, -1) : text;
}
