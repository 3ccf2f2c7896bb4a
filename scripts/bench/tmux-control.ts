/**
 * A private tmux server driven through one control-mode client (`tmux -C`), for
 * timing a terminal program from outside: commands go down the client's stdin,
 * their answers come back between `%begin` / `%end` lines, and `%output`
 * notifications say that a pane has written something. Spawning `tmux
 * capture-pane` costs ~8 ms per call on a 2-core machine, far more than the
 * echo of a key; a capture through the control client costs ~0.6 ms, and
 * waiting for `%output` before capturing again means no busy polling.
 *
 * Each TmuxControl is its own server (`-L` with a fresh socket name, no config
 * file); `close()` kills the server, which hangs up every pane in it, and
 * removes its socket file.
 */
import type { Subprocess } from "bun";
import { rmSync } from "node:fs";

interface Pending {
  resolve(lines: string[]): void;
  reject(error: Error): void;
}

export interface Capture {
  screen: string;
  /** performance.now() when the capture's answer arrived. */
  at: number;
}

export class TmuxControl {
  /** Bumped by every `%output` notification. */
  private outputCount = 0;
  private outputWaiters: (() => void)[] = [];
  private pending: Pending[] = [];
  private block: string[] | undefined;
  private buffered = "";
  private closed = false;
  /** The socket's file: tmux leaves it behind when its server ends. */
  private socketPath: string | undefined;

  private constructor(
    readonly socket: string,
    private readonly client: Subprocess<"pipe", "pipe", "pipe">,
  ) {
    void this.read();
  }

  /** A new server whose windows are `width`×`height`, and a control client attached to it. */
  static async start(width: number, height: number): Promise<TmuxControl> {
    const socket = `xcsh-bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    // An idle first window keeps the server and the client alive between the panes that are measured;
    // a pane whose program ends stays, with its last screen, so a wait can say so.
    const created = Bun.spawnSync(
      ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", String(width), "-y", String(height), "exec sleep 3600", ";", "set", "-g", "default-size", `${width}x${height}`, ";", "set", "-g", "remain-on-exit", "on"],
      { stdout: "pipe", stderr: "pipe" },
    );
    if (created.exitCode !== 0) throw new Error(`tmux new-session failed: ${created.stderr.toString().trim()}`);
    const client = Bun.spawn(["tmux", "-L", socket, "-C", "attach", "-t", "bench"], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const control = new TmuxControl(socket, client);
    // The attach itself is answered with an empty block.
    await Promise.race([
      new Promise<string[]>((resolve, reject) => control.pending.push({ resolve, reject })),
      Bun.sleep(10_000).then(() => {
        throw new Error("the tmux control client did not attach within 10 s");
      }),
    ]).catch((error) => {
      control.close();
      throw error;
    });
    control.socketPath = (await control.command("display-message -p '#{socket_path}'"))[0];
    return control;
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.client.stdout) {
        this.buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = this.buffered.indexOf("\n")) !== -1) {
          this.line(this.buffered.slice(0, newline));
          this.buffered = this.buffered.slice(newline + 1);
        }
      }
    } catch {
      // The client was killed: pending commands are rejected below.
    }
    this.closed = true;
    for (const pending of this.pending.splice(0)) pending.reject(new Error("the tmux control client exited"));
    this.wakeOutputWaiters();
  }

  private line(line: string): void {
    if (this.block) {
      const end = line.startsWith("%end ");
      if (end || line.startsWith("%error ")) {
        const lines = this.block;
        this.block = undefined;
        const pending = this.pending.shift();
        if (end) pending?.resolve(lines);
        else pending?.reject(new Error(`tmux: ${lines.join(" ")}`));
      } else {
        this.block.push(line);
      }
      return;
    }
    if (line.startsWith("%begin ")) this.block = [];
    else if (line.startsWith("%output ") || line.startsWith("%extended-output ")) {
      this.outputCount++;
      this.wakeOutputWaiters();
    }
  }

  private wakeOutputWaiters(): void {
    for (const wake of this.outputWaiters.splice(0)) wake();
  }

  /** Runs one tmux command (no `;` chains: each command gets its own answer) and returns its output lines. */
  command(line: string): Promise<string[]> {
    if (this.closed) return Promise.reject(new Error("the tmux control client exited"));
    const answer = new Promise<string[]>((resolve, reject) => this.pending.push({ resolve, reject }));
    this.client.stdin.write(`${line}\n`);
    this.client.stdin.flush();
    return answer;
  }

  /** Opens a window running `shellCommand`; returns its pane id and the pid of the pane's process. */
  async open(shellCommand: string): Promise<{ pane: string; pid: number }> {
    const [line] = await this.command(`new-window -d -t bench -P -F '#{pane_id} #{pane_pid}' ${quote(shellCommand)}`);
    const [pane, pid] = (line ?? "").split(" ");
    if (!pane?.startsWith("%") || !Number(pid)) throw new Error(`tmux new-window answered ${JSON.stringify(line)}`);
    return { pane, pid: Number(pid) };
  }

  /** Literal text typed into the pane. */
  type(pane: string, text: string): Promise<string[]> {
    return this.command(`send-keys -t ${pane} -l ${quote(text)}`);
  }

  /** A key by tmux name ("Enter", "BSpace"). */
  key(pane: string, name: string): Promise<string[]> {
    return this.command(`send-keys -t ${pane} ${name}`);
  }

  async capture(pane: string): Promise<Capture> {
    const lines = await this.command(`capture-pane -p -t ${pane}`);
    return { screen: lines.join("\n"), at: performance.now() };
  }

  /**
   * Captures the pane until `test` holds, capturing again after each `%output`
   * (or every `fallbackMs` when nothing is written); never more often than once
   * per `minIntervalMs`. Throws `describe(last screen, why)` after `timeoutMs`,
   * or as soon as the pane's program has exited.
   */
  async waitFor(
    pane: string,
    test: (screen: string) => boolean,
    options: { timeoutMs: number; minIntervalMs?: number; fallbackMs?: number; describe: (screen: string, why: string) => string },
  ): Promise<Capture> {
    const deadline = performance.now() + options.timeoutMs;
    for (;;) {
      const seen = this.outputCount;
      const capture = await this.capture(pane);
      if (test(capture.screen)) return capture;
      if (capture.at >= deadline || this.closed) throw new Error(options.describe(capture.screen, `not within ${options.timeoutMs / 1000} s`));
      if (this.outputCount === seen) {
        await this.nextOutput(Math.min(options.fallbackMs ?? 20, deadline - capture.at));
        // Quiet: perhaps because the program is gone.
        if (this.outputCount === seen) {
          const [dead, status] = ((await this.command(`display-message -p -t ${pane} '#{pane_dead} #{pane_dead_status}'`))[0] ?? "").split(" ");
          if (dead === "1") throw new Error(options.describe((await this.capture(pane)).screen, `it exited (status ${status || "?"})`));
        }
      }
      if (options.minIntervalMs) {
        const wait = capture.at + options.minIntervalMs - performance.now();
        if (wait > 0) await Bun.sleep(wait);
      }
    }
  }

  private nextOutput(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.outputWaiters = this.outputWaiters.filter((wake) => wake !== done);
        resolve();
      }, Math.max(0, timeoutMs));
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.outputWaiters.push(done);
    });
  }

  /** Kills the server (every pane's process gets SIGHUP) and the control client. */
  close(): void {
    Bun.spawnSync(["tmux", "-L", this.socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
    try {
      this.client.stdin.end();
    } catch {
      // Already closed.
    }
    this.client.kill();
    if (this.socketPath) rmSync(this.socketPath, { force: true });
  }
}

/** Single-quoted for tmux's command parser, which reads quotes as a shell does. */
export function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
