/**
 * The terminal goes back to how it was on every way out: a normal exit, a
 * signal (SIGTERM, SIGHUP, SIGINT from `kill`), a crash, or process.exit from
 * anywhere. pi-tui's `stop()` leaves raw mode, bracketed paste and the
 * keyboard protocol and shows the cursor; it runs once, synchronously, from
 * whichever path comes first. While the UI is up, console output is turned
 * into conversation lines so stray prints cannot tear the screen.
 */

export interface RestoreGuard {
  /** Restores now (idempotent); later exits find nothing to do. */
  restore(): void;
  /** Removes the handlers (after a clean restore). */
  dispose(): void;
}

const SIGNAL_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGTERM: 143, SIGHUP: 129, SIGINT: 130 };

export function guardTerminal(
  stop: () => void,
  options: {
    onSignal?: (signal: NodeJS.Signals) => void;
    crashesAreFatal: boolean;
    /** Written when stop() fails: what else the UI turned on (the fullscreen layout's alternate screen and mouse reporting). */
    undoOnFailure?: string;
  },
): RestoreGuard {
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      stop();
    } catch {
      // Restoring is best effort; the exit must go on.
      try {
        if (options.undoOnFailure) process.stdout.write(options.undoOnFailure);
      } catch {
        // stdout may be gone
      }
    }
    // In case stop() failed part way: cursor visible, bracketed paste off, keyboard protocol popped.
    try {
      process.stdout.write("\x1b[?25h\x1b[?2004l");
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
    } catch {
      // stdout may be gone (SIGHUP)
    }
  };
  const onExit = () => restore();
  const onSignal = (signal: NodeJS.Signals) => {
    if (options.onSignal) return options.onSignal(signal);
    restore();
    process.exit(SIGNAL_CODES[signal] ?? 1);
  };
  const onCrash = (error: unknown) => {
    restore();
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`xcsh: crashed: ${text}\n`);
    process.exit(1);
  };
  process.on("exit", onExit);
  const signals = Object.keys(SIGNAL_CODES) as NodeJS.Signals[];
  for (const signal of signals) process.on(signal, onSignal);
  // With extensions loaded, their stray errors are reported, not fatal (extension-system.ts).
  if (options.crashesAreFatal) {
    process.on("uncaughtException", onCrash);
    process.on("unhandledRejection", onCrash);
  }
  return {
    restore,
    dispose() {
      process.off("exit", onExit);
      for (const signal of signals) process.off(signal, onSignal);
      process.off("uncaughtException", onCrash);
      process.off("unhandledRejection", onCrash);
    },
  };
}

type ConsoleMethod = "log" | "info" | "warn" | "error" | "debug";

/** Sends console.* to `sink` until the returned function puts console back. */
export function captureConsole(sink: (text: string, level: ConsoleMethod) => void): () => void {
  const methods: ConsoleMethod[] = ["log", "info", "warn", "error", "debug"];
  const saved = new Map(methods.map((method) => [method, console[method]]));
  for (const method of methods) {
    console[method] = (...args: unknown[]) => {
      const text = args.map((arg) => (typeof arg === "string" ? arg : Bun.inspect(arg))).join(" ");
      sink(text, method);
    };
  }
  return () => {
    for (const [method, original] of saved) console[method] = original;
  };
}
