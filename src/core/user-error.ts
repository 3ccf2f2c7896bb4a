/**
 * An error whose message is meant for the user as it is: it says what is wrong
 * and what to do (bad config, unknown model, missing key). Modes print it
 * without "internal error" framing.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "UserError";
  }
}
