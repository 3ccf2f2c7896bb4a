import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentToolResult } from "../../src/agent/types.ts";
import { createBashTool, type BashToolDetails } from "../../src/tools/bash.ts";
import { createLocalBashOperations } from "../../src/tools/bash-operations.ts";
import { OutputCollector } from "../../src/tools/output-collector.ts";
import { isAlive } from "../support/process.ts";

let dir: string;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "xcsh-bash-test-")));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function textOf(result: AgentToolResult<unknown>): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the promise to reject");
}


/** Resolves once `predicate` holds, or fails after `timeoutMs`. */
async function waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** Runs a command that prints pids, one a line, and returns them once `count` have been printed. */
function startPrintingPids(
  command: string,
  count: number,
  options: { signal?: AbortSignal; timeout?: number } = {},
): { execution: Promise<unknown>; pids: Promise<number[]> } {
  let resolvePids: (pids: number[]) => void;
  const pids = new Promise<number[]>((resolve) => (resolvePids = resolve));
  const execution = createBashTool(dir).execute(
    "call",
    { command, timeout: options.timeout },
    options.signal,
    (update) => {
      const printed = textOf(update).split("\n").filter((line) => /^\d+$/.test(line));
      if (printed.length >= count) resolvePids(printed.map(Number));
    },
  );
  return { execution, pids };
}

describe("bash tool", () => {
  test("returns the output of a successful command", async () => {
    const result = await createBashTool(dir).execute("call", { command: "echo hello; echo world" });
    expect(textOf(result)).toBe("hello\nworld");
    expect(result.details).toBeUndefined();
  });

  test("says so when a command prints nothing", async () => {
    const result = await createBashTool(dir).execute("call", { command: "true" });
    expect(textOf(result)).toBe("(no output)");
  });

  test("a non-zero exit is an error result with the output and the code, and pi 1.6.0's structured result", async () => {
    const result = await createBashTool(dir).execute("call", { command: "echo partial; exit 3" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("partial\n\nCommand exited with code 3");
    expect(result.structuredContent).toMatchObject({ output: "partial\n", truncated: false, exit_code: 3 });
  });

  test("captures stderr along with stdout", async () => {
    const result = await createBashTool(dir).execute("call", { command: "echo out; echo oops >&2" });
    expect(textOf(result)).toContain("out");
    expect(textOf(result)).toContain("oops");
  });

  test("stdout and stderr reach the model in the order the command wrote them", async () => {
    const result = await createBashTool(dir).execute("call", { command: "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done" });
    expect(textOf(result)).toBe(["out1", "err1", "out2", "err2", "out3", "err3", "out4", "err4", "out5", "err5"].join("\n"));
  });

  test("runs in the tool's working directory", async () => {
    const result = await createBashTool(dir).execute("call", { command: "pwd" });
    expect(textOf(result)).toBe(dir);
  });

  test("streams accumulating output before the command ends", async () => {
    const updates: { text: string; at: number }[] = [];
    const result = await createBashTool(dir).execute(
      "call",
      { command: "for i in 1 2 3; do echo $i; sleep 0.2; done" },
      undefined,
      (update) => updates.push({ text: textOf(update), at: Date.now() }),
    );
    const finishedAt = Date.now();
    expect(textOf(result)).toBe("1\n2\n3");
    // The first lines were seen well before the end, and each update extends the previous one.
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates[0].text).toBe("1");
    expect(finishedAt - updates[0].at).toBeGreaterThan(250);
    for (let i = 1; i < updates.length; i++) expect(updates[i].text.startsWith(updates[i - 1].text)).toBe(true);
    expect(updates.at(-1)!.text).toBe("1\n2\n3");
  });

  test("throttles updates from a chatty command but delivers the final state", async () => {
    const updates: string[] = [];
    const result = await createBashTool(dir).execute(
      "call",
      { command: "for i in $(seq 1 300); do echo line $i; sleep 0.001; done" },
      undefined,
      (update) => updates.push(textOf(update)),
    );
    expect(textOf(result).split("\n")).toHaveLength(300);
    expect(updates.length).toBeLessThan(100);
    expect(updates.at(-1)).toBe(textOf(result));
    // 300 short-lived processes: slow on a loaded machine, and what is checked is behaviour, not speed.
  }, 20_000);

  test("keeps the tail of a long output and saves all of it to a file", async () => {
    const result = await createBashTool(dir).execute("call", { command: "seq 1 5000" });
    const text = textOf(result);
    const details = result.details as BashToolDetails;
    expect(text.startsWith("3001\n")).toBe(true);
    expect(text).toContain("\n5000\n");
    expect(text).not.toContain("\n3000\n");
    expect(text).toContain("[Output truncated: showing the last 2000 of 5000 lines.");
    expect(details.fullOutputPath).toMatch(/xcsh-bash-[0-9a-f]+\.log$/);
    expect(text).toContain(`Full output: ${details.fullOutputPath}`);
    expect(details.truncation?.totalLines).toBe(5000);

    const full = await readFile(details.fullOutputPath!, "utf8");
    const expected = Array.from({ length: 5000 }, (_, i) => String(i + 1)).join("\n") + "\n";
    expect(full).toBe(expected);
    await rm(details.fullOutputPath!);
  });

  test("cuts a huge output by bytes with the right totals", async () => {
    // 200,000 lines of 100 bytes: far past what the in-memory tail keeps.
    const result = await createBashTool(dir).execute("call", {
      command: "yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' | head -n 200000",
    });
    const details = result.details as BashToolDetails;
    expect(details.truncation?.truncatedBy).toBe("bytes");
    expect(details.truncation?.totalLines).toBe(200000);
    expect(details.truncation?.totalBytes).toBe(200000 * 100);
    expect(textOf(result)).toContain("of 200000 lines (50.0KB limit)");
    const full = await readFile(details.fullOutputPath!, "utf8");
    expect(full.length).toBe(200000 * 100);
    await rm(details.fullOutputPath!);
  });

  test("abort kills the command and its children within a second", async () => {
    const controller = new AbortController();
    const { execution, pids } = startPrintingPids("echo $$; sleep 30 & echo $!; sleep 30", 2, {
      signal: controller.signal,
    });
    const [shellPid, childPid] = await pids;
    expect(isAlive(shellPid)).toBe(true);
    expect(isAlive(childPid)).toBe(true);

    const abortedAt = Date.now();
    controller.abort();
    const error = await rejectionOf(execution);
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    expect(error.message).toContain("Command aborted");
    expect(error.message).toContain(String(shellPid));
    await waitFor(() => !isAlive(shellPid) && !isAlive(childPid), 1000 - (Date.now() - abortedAt), "the processes to die");
  });

  test("abort also kills a command that ignores SIGTERM", async () => {
    const controller = new AbortController();
    const { execution, pids } = startPrintingPids("trap '' TERM; echo $$; sleep 30", 1, { signal: controller.signal });
    const [shellPid] = await pids;
    const abortedAt = Date.now();
    controller.abort();
    await rejectionOf(execution);
    await waitFor(() => !isAlive(shellPid), 1000 - (Date.now() - abortedAt), "the process to die");
  });

  test("a timeout kills the process tree and reports the timeout", async () => {
    const startedAt = Date.now();
    const { execution, pids } = startPrintingPids("echo $$; sleep 30 & echo $!; sleep 30", 2, { timeout: 0.5 });
    const [shellPid, childPid] = await pids;
    const error = await rejectionOf(execution);
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(error.message).toContain("Command timed out after 0.5 seconds");
    expect(error.message).toContain(String(shellPid));
    await waitFor(() => !isAlive(shellPid) && !isAlive(childPid), 1000, "the processes to die");
  });

  test("an already aborted signal runs nothing", async () => {
    const marker = join(dir, "should-not-exist");
    const error = await rejectionOf(
      createBashTool(dir).execute("call", { command: `touch ${marker}` }, AbortSignal.abort()),
    );
    expect(error.message).toContain("Command aborted");
    expect(await Bun.file(marker).exists()).toBe(false);
  });

  test("the spawn hook rewrites command, cwd and environment", async () => {
    const seen: string[] = [];
    const tool = createBashTool("/nonexistent-dir-for-xcsh-test", {
      spawnHook: ({ command, env }) => {
        seen.push(command);
        return { command: `echo hooked; ${command}`, cwd: dir, env: { ...env, XCSH_HOOKED: "yes" } };
      },
    });
    const result = await tool.execute("call", { command: 'echo "$XCSH_HOOKED"; pwd' });
    expect(seen).toEqual(['echo "$XCSH_HOOKED"; pwd']);
    expect(textOf(result)).toBe(`hooked\nyes\n${dir}`);
  });

  test("the command prefix runs before the command, and the environment is inherited", async () => {
    process.env.XCSH_BASH_TEST_VAR = "inherited";
    try {
      const tool = createBashTool(dir, { commandPrefix: "greeting=prefixed" });
      const result = await tool.execute("call", { command: 'echo "$greeting $XCSH_BASH_TEST_VAR"' });
      expect(textOf(result)).toBe("prefixed inherited");
    } finally {
      delete process.env.XCSH_BASH_TEST_VAR;
    }
  });

  test("a missing working directory is a clear error", async () => {
    const error = await rejectionOf(createBashTool(join(dir, "missing")).execute("call", { command: "echo hi" }));
    expect(error.message).toContain("Working directory does not exist");
  });

  test("strips terminal escape sequences from the output", async () => {
    const result = await createBashTool(dir).execute("call", { command: "printf '\\033[31mred\\033[0m\\r\\n'" });
    expect(textOf(result)).toBe("red");
  });

  test("custom operations receive the command and their output is used", async () => {
    const calls: { command: string; cwd: string; timeout?: number }[] = [];
    const tool = createBashTool(dir, {
      operations: {
        async exec(command, cwd, options) {
          calls.push({ command, cwd, timeout: options.timeout });
          options.onData(Buffer.from("remote output\n"));
          return { exitCode: 0 };
        },
      },
    });
    const result = await tool.execute("call", { command: "uname", timeout: 5 });
    expect(calls).toEqual([{ command: "uname", cwd: dir, timeout: 5 }]);
    expect(textOf(result)).toBe("remote output");
  });
});

describe("createLocalBashOperations", () => {
  test("streams output and resolves the exit code", async () => {
    const chunks: string[] = [];
    const { exitCode } = await createLocalBashOperations().exec("echo one; echo two >&2; exit 4", dir, {
      onData: (data) => chunks.push(data.toString()),
    });
    expect(exitCode).toBe(4);
    expect(chunks.join("")).toContain("one\n");
    expect(chunks.join("")).toContain("two\n");
  });

  test("resolves a null exit code when aborted", async () => {
    const controller = new AbortController();
    let output = "";
    const execution = createLocalBashOperations().exec("echo started; sleep 30", dir, {
      onData: (data) => {
        output += data.toString();
        if (output.includes("started")) controller.abort();
      },
      signal: controller.signal,
    });
    expect(await execution).toEqual({ exitCode: null });
  });

  test("returns when the shell exits even if a background job keeps the output open", async () => {
    const startedAt = Date.now();
    const { exitCode } = await createLocalBashOperations().exec("echo $$ > bg.pid; sleep 3 & echo $! > bg.pid; echo done", dir, {
      onData: () => {},
    });
    expect(exitCode).toBe(0);
    expect(Date.now() - startedAt).toBeLessThan(2000);
    process.kill(Number(await readFile(join(dir, "bg.pid"), "utf8")), "SIGKILL");
  });

  test("uses the given shell", async () => {
    let output = "";
    await createLocalBashOperations({ shellPath: "/bin/sh" }).exec("echo $0", dir, {
      onData: (data) => (output += data.toString()),
    });
    expect(output.trim()).toBe("/bin/sh");
  });
});

describe("OutputCollector", () => {
  test("reassembles characters split across chunks", () => {
    const collector = new OutputCollector();
    const bytes = Buffer.from("héllo wörld\n");
    for (const byte of bytes) collector.push(Uint8Array.of(byte));
    collector.finish();
    expect(collector.snapshot().text).toBe("héllo wörld\n");
  });

  test("removes an escape sequence split across chunks", () => {
    const collector = new OutputCollector();
    collector.push(Buffer.from("a\x1b[3"));
    collector.push(Buffer.from("1mb\n"));
    collector.finish();
    expect(collector.snapshot().text).toBe("ab\n");
  });

  test("removes a window-title sequence (OSC) split across chunks, and one ended by ESC \\", () => {
    const collector = new OutputCollector();
    collector.push(Buffer.from("a\x1b]2;PWN"));
    collector.push(Buffer.from("ED\x07b\x1b]8;;http://x\x1b"));
    collector.push(Buffer.from("\\c\n"));
    collector.finish();
    expect(collector.snapshot().text).toBe("abc\n");
  });

  test("keeps the end of one oversized line", async () => {
    const collector = new OutputCollector({ maxBytes: 100 });
    collector.push(Buffer.from("a".repeat(1000) + "END"));
    collector.finish();
    const snapshot = collector.snapshot();
    expect(snapshot.text.endsWith("END")).toBe(true);
    expect(Buffer.byteLength(snapshot.text)).toBeLessThanOrEqual(100);
    expect(snapshot.truncation?.lastLinePartial).toBe(true);
    expect(snapshot.truncation?.totalBytes).toBe(1003);
    expect(await readFile(snapshot.fullOutputPath!, "utf8")).toBe("a".repeat(1000) + "END");
    await rm(snapshot.fullOutputPath!);
  });

  test("a line redrawn with carriage returns keeps only what the terminal shows last, also across chunks", () => {
    const collector = new OutputCollector();
    collector.push(Buffer.from("Cloning...\nCounting:  10% (1/10)\rCounting:  50% (5/10)\r"));
    collector.push(Buffer.from("Counting: 100% (10/10), done.\nResolving: 1%\r"));
    collector.push(Buffer.from("Resolving: 100%\r\nok\r\n"));
    collector.finish();
    expect(collector.snapshot().text).toBe("Cloning...\nCounting: 100% (10/10), done.\nResolving: 100%\nok\n");
  });

  test("a shorter redraw overwrites only the start, as on a terminal; erase-to-end (ESC [K) clears the rest", () => {
    const collector = new OutputCollector();
    collector.push(Buffer.from("downloading 100 files\rdone\n"));
    collector.push(Buffer.from("[#####     ] 50%\r\x1b[Kfinished\n"));
    collector.push(Buffer.from("step 1 of 9\r\x1b[2"));
    collector.push(Buffer.from("Kall steps ran\n"));
    collector.push(Buffer.from("last state\r"));
    collector.finish();
    expect(collector.snapshot().text).toBe("doneloading 100 files\nfinished\nall steps ran\nlast state");
  });

  test("progress redraws do not count toward the limits: no truncation and no full-output file", () => {
    const collector = new OutputCollector({ maxBytes: 1000 });
    for (let percent = 0; percent <= 100; percent++) collector.push(Buffer.from(`Receiving objects: ${String(percent).padStart(3)}% (${percent * 13}/1300)        \r`));
    collector.push(Buffer.from("Receiving objects: 100% (1300/1300), done.\n"));
    collector.finish();
    const snapshot = collector.snapshot();
    // The last redraw was one character longer, and a terminal leaves that character showing.
    expect(snapshot.text).toBe("Receiving objects: 100% (1300/1300), done. \n");
    expect(snapshot.truncation).toBeUndefined();
    expect(snapshot.fullOutputPath).toBeUndefined();
  });

  test("the full-output file holds the lines as shown, not every redraw", async () => {
    const collector = new OutputCollector({ maxBytes: 100 });
    for (let i = 0; i < 20; i++) collector.push(Buffer.from(`line ${i} of a long log\n`));
    collector.push(Buffer.from("10%\r50%\r100%\n"));
    collector.finish();
    const snapshot = collector.snapshot();
    const file = await readFile(snapshot.fullOutputPath!, "utf8");
    expect(file.endsWith("line 19 of a long log\n100%\n")).toBe(true);
    expect(file).not.toContain("50%");
    expect(snapshot.text.endsWith("line 19 of a long log\n100%")).toBe(true);
    await rm(snapshot.fullOutputPath!);
  });
});
