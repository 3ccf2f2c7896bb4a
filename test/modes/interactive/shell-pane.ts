/**
 * A tmux pane running an interactive bash (no rc files, prompt "shell$ "), so
 * xcsh started in it meets real job control (Ctrl+Z, fg) and the shell's
 * prompt can be checked once xcsh is gone.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";

/** A tmux pane running an interactive bash, so Ctrl+Z meets real job control. */
export class ShellPane {
  readonly socket = `xcsh-shell-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  constructor(env: Record<string, string>, cwd: string) {
    const vars = Object.entries({ ...env, TERM: "xterm-256color", PS1: "shell$ " }).map(([name, value]) => `${name}=${value}`);
    this.tmux(["new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "-c", cwd, "env", "-i", ...vars, "bash", "--norc", "--noprofile", "-i"]);
  }
  tmux(args: string[]): string {
    const result = Bun.spawnSync(["tmux", "-L", this.socket, "-f", "/dev/null", ...args], { stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${result.stderr.toString()}`);
    return result.stdout.toString();
  }
  screen(): string {
    return this.tmux(["capture-pane", "-p", "-t", "main"]);
  }
  keys(...keys: string[]): void {
    this.tmux(["send-keys", "-t", "main", ...keys]);
  }
  type(text: string): void {
    this.tmux(["send-keys", "-t", "main", "-l", text]);
  }
  async waitFor(test: (screen: string) => boolean, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = this.screen();
      if (test(screen)) return screen;
      await Bun.sleep(50);
    }
    throw new Error(`Timed out; the screen was:\n${screen}`);
  }
  kill(): void {
    try {
      this.tmux(["kill-server"]);
    } catch {
      // gone
    }
    rmSync(join(process.env.TMUX_TMPDIR ?? "/tmp", `tmux-${process.getuid?.() ?? 0}`, this.socket), { force: true });
  }
}
