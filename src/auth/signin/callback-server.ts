/**
 * The local end of an authorization-code redirect: an HTTP server on 127.0.0.1 that
 * waits for the browser to come back to `/auth/callback?code=…&state=…`. A request
 * with a wrong `state` is refused (and the wait goes on: it may be a stale tab or a
 * forgery); the right one ends the wait with its code, or with the provider's `error`
 * when the person declined. Only loopback is listened on.
 */

export interface CallbackServer {
  /** The code of the first redirect with the right state. */
  code: Promise<string>;
  /** That redirect's whole query (a flow that registers its client at sign-in reads the issued `client_id` there). */
  query: Promise<URLSearchParams>;
  close(): void;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

/** Starts the server; undefined when the port is taken (the caller falls back to a pasted URL). */
export function startCallbackServer(port: number, path: string, expectedState: string): CallbackServer | undefined {
  let deliverQuery!: (query: URLSearchParams) => void;
  let fail!: (error: Error) => void;
  const query = new Promise<URLSearchParams>((resolve, reject) => {
    deliverQuery = resolve;
    fail = reject;
  });
  const code = query.then((params) => params.get("code")!);
  // Whoever waits on only one of the two still sees a failure there; the other must not go unhandled.
  code.catch(() => {});
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch(request) {
        const url = new URL(request.url);
        const html = (status: number, title: string, text: string) =>
          new Response(PAGE(title, text), { status, headers: { "Content-Type": "text/html; charset=utf-8", Connection: "close" } });
        if (url.pathname !== path) return html(404, "Not found", "This is xcsh's sign-in callback; nothing else is served here.");
        if (url.searchParams.get("state") !== expectedState) {
          return html(400, "Sign-in refused", "The state of this redirect does not match the sign-in xcsh started. Start the sign-in again from the terminal.");
        }
        // The provider's own refusal (the person declined): ends the sign-in, with its reason.
        const error = url.searchParams.get("error");
        if (error) {
          const description = url.searchParams.get("error_description");
          fail(new Error(`The sign-in failed at the provider: ${error}${description ? ` (${description})` : ""}.`));
          return html(400, "Sign-in failed", `The provider answered: ${escapeHtml(error)}. Return to the terminal.`);
        }
        const received = url.searchParams.get("code");
        if (!received) return html(400, "Sign-in failed", "The redirect carries no authorization code.");
        deliverQuery(url.searchParams);
        return html(200, "Signed in", "xcsh has the authorization. You can close this tab and return to the terminal.");
      },
    });
  } catch {
    return undefined;
  }
  return {
    code,
    query,
    close() {
      // Not forced at once: the page answering the browser's last request may still be on its way.
      void server.stop();
      // A connection the browser keeps open must not keep xcsh waiting, though.
      setTimeout(() => void server.stop(true), 1000).unref();
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
