/**
 * Sandboxes started ahead of their command (src/sandbox/warm-sandbox.ts), through the built
 * binary with bubblewrap: the next command's sandbox is already running when the model asks
 * for it, and a command run in one gets exactly what a freshly started sandbox gives (the
 * environment, stdin at its end, its own tag); a waiting sandbox whose guarded file was
 * replaced meanwhile is not used; and nothing of a sandbox — waiting, or running a command
 * whose children left its session — outlives a SIGKILL of xcsh, with no watchdog process.
 * Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";
import { isAlive } from "../support/process.ts";
import { bwrapWorks, createSandboxFixture } from "./sandbox-fixture.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/sandbox/warm-sandbox.test.ts: bubblewrap cannot run here (install the bubblewrap package); tests skipped");

let fixture: ExtensionFixture;
let base: string;

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-warm-sandbox-test-"));
});
afterEach(() => fixture.server.clearScript());
afterAll(async () => {
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

const bash = (command: string) => ({ type: "toolCall" as const, name: "bash", arguments: { command } });
const start = (): RpcProcess => fixture.start(["--model", "fake/fake-model", "--sandbox", "workspace-write", "--no-session"]);

async function prompt(rpc: RpcProcess): Promise<string[]> {
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
  return rpc.ofType("tool_execution_end", from).map((end) => textOf(end.result));
}

/** Host pids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) children.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Every process below `pid`, depth first. */
function descendants(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendants(child)]);
}

/** Pids of host processes whose command line holds `marker`. */
function withMarker(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name) && cmdline(Number(name)).includes(marker))
    .map(Number);
}

async function until<T>(get: () => T, ok: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = get();
  while (!ok(value) && Date.now() < deadline) {
    await Bun.sleep(50);
    value = get();
  }
  return value;
}

/** The command prints its environment, what it reads from stdin, its tag, and how long ago its process started (seconds). */
const REPORT = [
  "env | grep -v -e '^XCSH_PROCESS_TAG=' -e '^_=' | sort",
  'echo "stdin-bytes:$(cat | wc -c)"',
  'echo "tag:$XCSH_PROCESS_TAG"',
  "read -r up _ < /proc/uptime",
  "start=$(cut -d' ' -f22 /proc/$$/stat)",
  'echo "age:$(awk -v up="$up" -v st="$start" -v hz="$(getconf CLK_TCK)" \'BEGIN { printf "%.3f", up - st / hz }\')"',
].join("\n");

function report(text: string): { env: string; stdin: string; tag: string; age: number } {
  const lines = text.split("\n");
  const take = (prefix: string) => lines.find((line) => line.startsWith(prefix))?.slice(prefix.length) ?? "";
  return {
    env: lines.filter((line) => !/^(stdin-bytes|tag|age):/.test(line)).join("\n"),
    stdin: take("stdin-bytes:"),
    tag: take("tag:"),
    age: Number(take("age:")),
  };
}

describe.skipIf(!canSandbox)("a sandbox started ahead of its command", () => {
  test("is running before the model asks, and the command in it gets what a fresh sandbox gives", async () => {
    const rpc = start();
    // The first command is too long for a waiting sandbox's pipe: a fresh one runs it.
    const padding = `: ${"x".repeat(5000)}`;
    fixture.server.enqueue(
      { content: [bash(`${REPORT}\n${padding}`)] },
      // The model takes a second to ask for the next: time for its sandbox to start and wait.
      { content: [bash(REPORT)], delayMs: 1000 },
      { content: [{ type: "text", text: "done" }] },
    );
    const [fresh, warm] = (await prompt(rpc)).map(report);

    expect(warm!.env).toBe(fresh!.env);
    expect(warm!.env).toContain("HOME=");
    expect(warm!.env).not.toContain("__xcsh_field");
    expect([fresh!.stdin, warm!.stdin]).toEqual(["0", "0"]);
    expect(fresh!.tag).toMatch(/\/1$/);
    expect(warm!.tag).toMatch(/\/2$/);
    // Its process was there, waiting, well before the call; the fresh one was started for its call.
    expect(warm!.age).toBeGreaterThan(0.5);
    expect(fresh!.age).toBeLessThan(warm!.age);
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("is not used once a file it keeps read-only was replaced: the command still cannot write it", async () => {
    mkdirSync(join(fixture.cwd, ".git"), { recursive: true });
    const config = join(fixture.cwd, ".git", "config");
    writeFileSync(config, "[core]\n");
    const rpc = start();
    fixture.server.enqueue({ content: [bash("echo first")] }, { content: [bash("echo '[core] hooksPath = /tmp/evil' >> .git/config && echo wrote || echo refused")], delayMs: 1500 }, { content: [{ type: "text", text: "done" }] });
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
    await rpc.waitForEvent("tool_execution_end", () => true, 20_000, from);
    // While the next sandbox waits, the user's git rewrites its config the way git does: a new file renamed over it.
    await Bun.sleep(500);
    writeFileSync(`${config}.lock`, "[core]\n\tbare = false\n");
    renameSync(`${config}.lock`, config);
    await rpc.waitForEvent("agent_settled", () => true, 20_000, from);
    const ends = rpc.ofType("tool_execution_end", from).map((end) => textOf(end.result));
    expect(ends[1]).toContain("refused");
    expect(ends[1]).toContain("Read-only file system");
    expect(readFileSync(config, "utf8")).toBe("[core]\n\tbare = false\n");
    expect(await rpc.close()).toBe(0);
    rmSync(join(fixture.cwd, ".git"), { recursive: true, force: true });
  }, 40_000);

  test("a waiting sandbox is gone after a SIGKILL of xcsh, and no watchdog process was started", async () => {
    const rpc = start();
    fixture.server.enqueue({ content: [bash("echo one")] }, { content: [{ type: "text", text: "done" }] });
    expect(await prompt(rpc)).toEqual(["one"]);
    const waiting = await until(() => descendants(rpc.proc.pid), (pids) => pids.some((pid) => cmdline(pid).includes("xcsh-sandbox")), 5_000);
    expect(waiting.some((pid) => cmdline(pid).includes("xcsh-sandbox"))).toBe(true);
    // Only bubblewrap and the shim in it: no `xcsh --watchdog` beside them.
    expect(waiting.filter((pid) => cmdline(pid).includes("--watchdog"))).toEqual([]);
    rpc.proc.kill("SIGKILL");
    await rpc.proc.exited;
    expect(await until(() => waiting.filter(isAlive), (left) => left.length === 0, 5_000)).toEqual([]);
  }, 40_000);

  test("a command's children that left its session are gone after a SIGKILL of xcsh", async () => {
    const marker = `301.${process.pid}${Date.now() % 1000}`;
    const rpc = start();
    fixture.server.enqueue(
      { content: [bash(`setsid sh -c 'exec sleep ${marker}' &\n(sh -c "setsid sh -c 'exec sleep ${marker}' &" &)\necho started; sleep 60`)] },
      { content: [{ type: "text", text: "done" }] },
    );
    expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
    const escapees = await until(() => withMarker(`sleep ${marker}`), (pids) => pids.length >= 2, 10_000);
    expect(escapees.length).toBeGreaterThanOrEqual(2);
    rpc.proc.kill("SIGKILL");
    await rpc.proc.exited;
    expect(await until(() => escapees.filter(isAlive), (left) => left.length === 0, 5_000)).toEqual([]);
  }, 40_000);
});
