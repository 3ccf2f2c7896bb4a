/**
 * A custom (free-form) tool call's raw text, streamed as the JSON of the arguments it becomes.
 *
 * The Responses API streams a custom call's input as plain text deltas; xcsh shows the call as
 * arguments `{ <parameter>: text }` (see customInputParameter). Clients of the event stream
 * (the TUI, RPC and extension consumers) follow a call through `toolcall_delta` events whose
 * deltas join into the arguments' JSON, as they do for a function call. So each text delta is
 * sent on as the matching JSON fragment: the opening `{"<parameter>":"` before the first
 * text, the text escaped as a JSON string's inside, and `"}` when the call is finished.
 */
export class CustomInputJson {
  /** The text as last stated by the API. */
  private latest = "";
  /** The text the fragments sent so far carry. */
  private sent = "";
  private opened = false;
  private closed = false;

  constructor(readonly parameter: string) {}

  /** The text so far, as the API last stated it. */
  get input(): string {
    return this.latest;
  }

  /** The arguments the text so far becomes. */
  get arguments(): Record<string, string> {
    return { [this.parameter]: this.latest };
  }

  /**
   * The JSON fragment that takes the streamed arguments from the text sent so far to `next`
   * (closed when `close`); "" when there is nothing to send. A `next` that does not extend
   * what was sent (the API restating the input differently) sends no more text: the call's
   * arguments are always `arguments`, never a parse of the joined fragments.
   */
  advance(next: string, close = false): string {
    this.latest = next;
    if (this.closed) return "";
    let fragment = "";
    if (next.startsWith(this.sent) && next.length > this.sent.length) {
      if (!this.opened) fragment += `{${JSON.stringify(this.parameter)}:"`;
      this.opened = true;
      fragment += JSON.stringify(next.slice(this.sent.length)).slice(1, -1);
      this.sent = next;
    }
    if (close) {
      fragment += this.opened ? `"}` : JSON.stringify(this.arguments);
      this.closed = true;
    }
    return fragment;
  }
}
