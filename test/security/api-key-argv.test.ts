/**
 * `--api-key` leaves xcsh's command line: every user of the machine can read a process's
 * arguments (/proc/<pid>/cmdline, `ps`), so on Linux xcsh re-executes itself, same pid,
 * without the key, and the key still reaches the provider. Nor do the commands xcsh runs
 * get the key in their environment.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ARGV_API_KEY_VARIABLE } from "../../src/cli/api-key-argv.ts";
import { childEnvironment } from "../../src/sandbox/child-environment.ts";
import { runXcsh } from "../support/cli.ts";
import { createRpcFixture, FAKE_MODEL, textOf, type RpcFixture } from "../support/rpc-harness.ts";

const SECRET = "SECRETVALUE-8c1f2a";
const linux = process.platform === "linux";

let fixture: RpcFixture;
beforeAll(() => {
  fixture = createRpcFixture();
});
afterAll(() => fixture.cleanup());

function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
}

/** The process's initial environment, or undefined where another process may not read it (not root, not dumpable). */
function environmentOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8");
  } catch {
    return undefined;
  }
}

describe.if(linux)("--api-key on the command line", () => {
  test("is gone from /proc/<pid>/cmdline of the pid that was started, and still reaches the provider", async () => {
    const rpc = fixture.start(["--model", FAKE_MODEL, "--api-key", SECRET]);
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);

    const args = commandLine(rpc.proc.pid);
    expect(args.join(" ")).not.toContain(SECRET);
    expect(args).not.toContain("--api-key");
    // The same program with the other arguments, in the pid the test spawned.
    expect(args.slice(1)).toEqual(["--mode", "rpc", "--model", FAKE_MODEL]);
    // Nor is the key left in xcsh's own environment block (readable by root, for one).
    const own = environmentOf(rpc.proc.pid);
    if (own !== undefined) expect(own).not.toContain(SECRET);

    // The bash tool's command: its `env`, its own /proc/<pid>/environ, and its parent's pid.
    fixture.server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command: "env; echo ---; tr '\\0' '\\n' < /proc/$$/environ; echo ---; echo parent=$PPID" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "show the environment" })).success).toBe(true);
    await rpc.waitForEvent("agent_settled", () => true, 15_000, from);

    // The key given on the command line, not models.json's "test-key": --api-key comes first, as before.
    const [first, second] = fixture.server.requests.slice(-2);
    expect(first.headers.authorization).toBe(`Bearer ${SECRET}`);
    const toolResult = second.body.messages.findLast((message: { role: string }) => message.role === "tool");
    const output = textOf(toolResult);
    expect(output).toContain("AI_AGENT=xcsh");
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain("XCSH_ARGV_API_KEY");
    expect(output).toContain(`parent=${rpc.proc.pid}`);
    expect(rpc.stderr).not.toContain("could not take --api-key");
    expect(await rpc.close()).toBe(0);
  });

  test("--api-key=<key> in print mode: the prompt after it is still the prompt, the key still the key", async () => {
    const before = fixture.server.requests.length;
    fixture.server.enqueue({ content: [{ type: "text", text: "hi there" }] });
    const result = await runXcsh(["--model", FAKE_MODEL, "-p", `--api-key=${SECRET}`, "say hi", "--no-session"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("hi there");
    expect(result.exitCode).toBe(0);
    const request = fixture.server.requests[before];
    expect(request.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(request.body.messages)).toContain("say hi");
  });

  test("a missing value is reported as before, with nothing re-executed", async () => {
    const result = await runXcsh(["--model", FAKE_MODEL, "-p", "hi", "--api-key"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("--api-key needs a value");
  });

  test("when the re-execution fails, xcsh warns once and runs with the key where it was", async () => {
    // One argument or variable may hold at most 128 KiB. This key fits as `--api-key=<key>` but not
    // as the variable that would carry it (10 bytes longer), so execve refuses with E2BIG.
    const key = "k".repeat(131_060);
    const rpc = fixture.start(["--model", FAKE_MODEL, `--api-key=${key}`]);
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(commandLine(rpc.proc.pid)).toContain(`--api-key=${key}`);
    expect(rpc.stderr.match(/could not take --api-key out of the command line/g)).toHaveLength(1);
    expect(await rpc.close()).toBe(0);
  });
});

test("the variable that carries the key across the exec is a credential no child gets, whatever shellEnv inherits", () => {
  expect(childEnvironment({ [ARGV_API_KEY_VARIABLE]: "0:k", PATH: "/bin" })).toEqual({ PATH: "/bin" });
  expect(childEnvironment({ [ARGV_API_KEY_VARIABLE]: "0:k", PATH: "/bin" }, { inherit: "core", passthrough: [], exclude: [], set: {} })).toEqual({ PATH: "/bin" });
});
