/**
 * Peak RSS of a child process, measured honestly. Bun's `resourceUsage().maxRSS`
 * cannot be used: Linux counts the memory of the process that spawned the child,
 * as it was before exec, into the child's peak, so every child of a 300 MB bench
 * process "peaks" at 300 MB. Instead the command runs under a tiny Python
 * launcher that forks, execs and reports `wait4`'s ru_maxrss for the child; its
 * own ~10 MB floor sits far below anything measured here. Runs that measure
 * memory are separate from runs that measure time, so the launcher's start-up
 * never shows in a time.
 */
import { writeFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const LAUNCHER = `import os, sys
out = sys.argv[1]
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(str(usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)))
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
`;

export interface RssRun {
  /** The command to spawn instead of the original. */
  command: string[];
  /** Peak RSS in bytes, once the process has exited. */
  read(): number;
}

export class PeakRssMeter {
  private count = 0;
  private constructor(private readonly dir: string, private readonly launcher: string) {}

  /** A meter, or undefined when python3 is not installed. */
  static create(dir: string): PeakRssMeter | undefined {
    if (!Bun.which("python3")) return undefined;
    const launcher = join(dir, "peak-rss-launcher.py");
    writeFileSync(launcher, LAUNCHER);
    return new PeakRssMeter(dir, launcher);
  }

  wrap(command: string[]): RssRun {
    const out = join(this.dir, `peak-rss-${process.pid}-${this.count++}.txt`);
    return {
      command: ["python3", this.launcher, out, ...command],
      read() {
        try {
          return Number(readFileSync(out, "utf8"));
        } catch {
          return Number.NaN;
        } finally {
          rmSync(out, { force: true });
        }
      },
    };
  }
}
