/**
 * Reading what the person types during `xcsh auth login`: whole lines from stdin (a
 * pasted redirect address, a piped API key), and a secret typed on a terminal without
 * echoing it. The reader lets go of stdin when closed, so the process can exit while
 * a read is still pending (the browser answered first).
 */

export interface LineReader {
  readLine(): Promise<string | undefined>;
  close(): void;
}

export function stdinLines(): LineReader {
  let reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } | undefined;
  let buffered = "";
  let ended = false;
  const decoder = new TextDecoder();
  return {
    async readLine() {
      while (true) {
        const newline = buffered.indexOf("\n");
        if (newline !== -1) {
          const line = buffered.slice(0, newline).replace(/\r$/, "");
          buffered = buffered.slice(newline + 1);
          return line;
        }
        if (ended) {
          if (buffered === "") return undefined;
          const last = buffered;
          buffered = "";
          return last;
        }
        reader ??= Bun.stdin.stream().getReader();
        const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (!chunk.done && !chunk.value) continue;
        if (chunk.done) ended = true;
        else buffered += decoder.decode(chunk.value, { stream: true });
      }
    },
    close() {
      void reader?.cancel().catch(() => {});
    },
  };
}

/** A line typed on the terminal with echo off (a `*` per character); undefined on Ctrl-C or Ctrl-D. */
export function readHiddenLine(prompt: string): Promise<string | undefined> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve) => {
    let text = "";
    const finish = (value: string | undefined) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      resolve(value);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString("utf8")) {
        if (char === "\r" || char === "\n") return finish(text);
        if (char === "\u0003" || char === "\u0004") return finish(undefined);
        if (char === "\u007f" || char === "\b") {
          if (text.length > 0) {
            text = text.slice(0, -1);
            process.stderr.write("\b \b");
          }
          continue;
        }
        if (char >= " ") {
          text += char;
          process.stderr.write("*");
        }
      }
    };
    stdin.on("data", onData);
  });
}
