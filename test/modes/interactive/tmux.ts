/**
 * Drives the built xcsh binary in a real terminal: a tmux pane on a private
 * tmux server (its own socket, so nothing touches anyone's tmux), keys sent
 * with send-keys, the screen read with capture-pane and polled until the
 * expected text appears. The pane runs a small shell script that records the
 * terminal settings before and after xcsh and its exit code, so a test can
 * check the terminal was given back as it was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "../../support/cli.ts";

export interface PaneOptions {
  args: string[];
  env: Record<string, string>;
  cwd: string;
  width?: number;
  height?: number;
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export class XcshPane {
  private constructor(
    readonly socket: string,
    readonly dir: string,
  ) {}

  static start(options: PaneOptions): XcshPane {
    const binary = ensureBinary();
    const dir = mkdtempSync(join(tmpdir(), "xcsh-tmux-"));
    const socket = `xcsh-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const exports = Object.entries({ TERM: "xterm-256color", ...options.env })
      .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      .map(([name, value]) => `export ${name}=${shellQuote(value)}`)
      .join("\n");
    const script = join(dir, "run.sh");
    writeFileSync(
      script,
      `#!/bin/sh
${exports}
cd ${shellQuote(options.cwd)}
stty -g > ${shellQuote(join(dir, "stty-before"))}
${[binary, ...options.args].map(shellQuote).join(" ")}
code=$?
# Written whole, then renamed: the test polls for these files and must never read one half-written.
stty -g > ${shellQuote(join(dir, "stty-after.tmp"))} && mv ${shellQuote(join(dir, "stty-after.tmp"))} ${shellQuote(join(dir, "stty-after"))}
echo "EXIT=$code" > ${shellQuote(join(dir, "exit.tmp"))} && mv ${shellQuote(join(dir, "exit.tmp"))} ${shellQuote(join(dir, "exit"))}
echo "xcsh exited"
sleep 600
`,
    );
    chmodSync(script, 0o755);
    const pane = new XcshPane(socket, dir);
    pane.tmux(["new-session", "-d", "-s", "main", "-x", String(options.width ?? 120), "-y", String(options.height ?? 40), script]);
    return pane;
  }

  tmux(args: string[]): string {
    const result = Bun.spawnSync(["tmux", "-L", this.socket, "-f", "/dev/null", ...args], { stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${result.stderr.toString()}`);
    return result.stdout.toString();
  }

  /** The visible screen as plain text (or with colour escapes). */
  screen(options: { escapes?: boolean } = {}): string {
    return this.tmux(["capture-pane", "-p", "-t", "main", ...(options.escapes ? ["-e"] : [])]);
  }

  /** Keys by tmux name ("Enter", "Escape", "C-c", "Up"). */
  keys(...keys: string[]): void {
    this.tmux(["send-keys", "-t", "main", ...keys]);
  }

  /** Literal text, typed as is. */
  type(text: string): void {
    this.tmux(["send-keys", "-t", "main", "-l", text]);
  }

  resize(width: number, height: number): void {
    this.tmux(["resize-window", "-t", "main", "-x", String(width), "-y", String(height)]);
  }

  /** tmux's view of the pane: `#{cursor_flag}` is 1 while the cursor is shown. */
  format(format: string): string {
    return this.tmux(["display-message", "-p", "-t", "main", format]).trim();
  }

  /** Polls the screen until `expected` is on it; throws with the last screen after the timeout. */
  async waitFor(expected: string | RegExp | ((screen: string) => boolean), timeoutMs = 15_000): Promise<string> {
    const test = typeof expected === "function" ? expected : (screen: string) => (typeof expected === "string" ? screen.includes(expected) : expected.test(screen));
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = this.screen();
      if (test(screen)) return screen;
      await Bun.sleep(50);
    }
    throw new Error(`Timed out waiting for ${String(expected)}; the screen was:\n${screen}`);
  }

  /** The exit line the pane's script writes once xcsh has ended. */
  async waitForExit(timeoutMs = 10_000): Promise<number> {
    const file = join(this.dir, "exit");
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (existsSync(file) && existsSync(join(this.dir, "stty-after"))) return Number(/EXIT=(\d+)/.exec(readFileSync(file, "utf8"))?.[1]);
      await Bun.sleep(50);
    }
    throw new Error(`xcsh did not exit; the screen was:\n${this.screen()}`);
  }

  sttyBefore(): string {
    return readFileSync(join(this.dir, "stty-before"), "utf8").trim();
  }

  sttyAfter(): string {
    return readFileSync(join(this.dir, "stty-after"), "utf8").trim();
  }

  kill(): void {
    try {
      this.tmux(["kill-server"]);
    } catch {
      // already gone
    }
    rmSync(this.dir, { recursive: true, force: true });
    // kill-server leaves the socket file behind; without this, every run adds one to /tmp/tmux-<uid>/.
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR ?? "/tmp", `tmux-${uid}`, this.socket), { force: true });
  }
}
