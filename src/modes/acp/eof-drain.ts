/**
 * A client that writes its last request and closes stdin at once (a script, a
 * test, an editor shutting down) must still get every answer. The SDK ends the
 * connection as soon as its input ends, dropping answers not yet written; so the
 * input it reads ends only once every request seen has been answered.
 *
 * This works on the wire, not inside the SDK: request ids are noted as lines go
 * in, and struck off as responses go out. At stdin's end `beforeDrain` runs
 * (the caller cancels runs in progress, so prompts answer `cancelled`), then the
 * input closes when nothing is outstanding, or after `maxWaitMs` at the latest.
 */

export interface EofDrain {
  /** Stdin as the SDK should read it. */
  input: ReadableStream<Uint8Array>;
  /** Wraps the SDK's output so responses are seen going out. */
  watchOutput(output: WritableStream<Uint8Array>): WritableStream<Uint8Array>;
}

const idKey = (id: unknown) => JSON.stringify(id);

/** Calls `onMessage` with each JSON object of a newline-delimited byte stream (bad lines are the SDK's business). */
function lineWatcher(onMessage: (message: Record<string, unknown>) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let partial = "";
  return (chunk) => {
    partial += decoder.decode(chunk, { stream: true });
    let newline = partial.indexOf("\n");
    while (newline !== -1) {
      const line = partial.slice(0, newline).trim();
      partial = partial.slice(newline + 1);
      newline = partial.indexOf("\n");
      if (!line.startsWith("{")) continue;
      try {
        const message = JSON.parse(line);
        if (message && typeof message === "object" && !Array.isArray(message)) onMessage(message);
      } catch {
        // Not JSON: the SDK answers it with a parse error; nothing to track.
      }
    }
  };
}

export function createEofDrain(stdin: ReadableStream<Uint8Array>, beforeDrain: () => Promise<void>, maxWaitMs = 10_000): EofDrain {
  const outstanding = new Set<string>();
  let settled: (() => void) | undefined;
  const checkSettled = () => {
    if (outstanding.size === 0) settled?.();
  };
  const noteRequest = lineWatcher((message) => {
    if (typeof message.method === "string" && message.id !== undefined && message.id !== null) outstanding.add(idKey(message.id));
  });
  const noteResponse = lineWatcher((message) => {
    if (message.method === undefined && ("result" in message || "error" in message)) {
      outstanding.delete(idKey(message.id));
      checkSettled();
    }
  });

  const reader = stdin.getReader();
  const input = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (!done) {
        noteRequest(value);
        controller.enqueue(value);
        return;
      }
      await beforeDrain();
      if (outstanding.size > 0) {
        await new Promise<void>((resolve) => {
          settled = resolve;
          setTimeout(resolve, maxWaitMs).unref?.();
        });
      }
      controller.close();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });

  const watchOutput = (output: WritableStream<Uint8Array>) => {
    const writer = output.getWriter();
    return new WritableStream<Uint8Array>({
      async write(chunk) {
        await writer.write(chunk);
        noteResponse(chunk);
      },
      close: () => writer.close(),
      abort: (reason) => writer.abort(reason),
    });
  };
  return { input, watchOutput };
}
