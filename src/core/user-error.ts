/**
 * An error whose message is meant for the user as it is: it says what is wrong
 * and what to do (bad config, unknown model, missing key). Modes print it
 * without "internal error" framing. The exit code defaults to 2, a usage or
 * configuration error (docs/headless.md), the same in every mode.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "UserError";
  }
}
