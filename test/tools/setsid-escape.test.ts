/**
 * No escape by `setsid`: a command that moves a child into a new session (`setsid sleep &`)
 * or daemonizes (fork, setsid, fork) takes it out of the process group xcsh kills. Those
 * processes are still gone when the command is aborted, and when xcsh gets SIGTERM or
 * SIGKILL — checked by pid through /proc, with the binary against the fake LLM server.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFakeModelHome } from "../support/cli.ts";
import { isAlive } from "../support/process.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";

const linux = process.platform === "linux";
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const started: RpcProcess[] = [];
afterAll(async () => {
  for (const rpc of started) rpc.kill();
  await fixture.cleanup();
});

const alive = isAlive;

async function goneWithin(pids: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  while (Date.now() < until && pids.some(alive)) await Bun.sleep(50);
  return pids.filter(alive);
}

let serial = 0;

/**
 * Has the model run a command that starts two escapees — one `setsid` child, one daemon
 * (double fork and setsid) — each writing its pid to a file, then waits for both pids.
 */
async function startEscapees(): Promise<{ rpc: RpcProcess; pids: number[] }> {
  const tag = `${process.pid}-${++serial}`;
  const setsidFile = join(home.home, `setsid-${tag}.pid`);
  const daemonFile = join(home.home, `daemon-${tag}.pid`);
  const command = [
    `setsid sh -c 'echo $$ > ${setsidFile}; exec sleep 300' &`,
    `(sh -c "setsid sh -c 'echo \\$\\$ > ${daemonFile}; exec sleep 300' &" &)`,
    "sleep 60",
  ].join("\n");
  const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
  started.push(rpc);
  server.clearScript();
  server.enqueue({ content: [{ type: "toolCall", id: `e${serial}`, name: "bash", arguments: { command } }] }, { content: [{ type: "text", text: "done" }] });
  expect((await rpc.request({ type: "prompt", message: "start them" })).success).toBe(true);
  const until = Date.now() + 5_000;
  while (!(existsSync(setsidFile) && existsSync(daemonFile)) && Date.now() < until) await Bun.sleep(30);
  await Bun.sleep(100); // the files are written just before exec
  const pids = [setsidFile, daemonFile].map((file) => Number(readFileSync(file, "utf8").trim()));
  for (const pid of pids) expect(alive(pid)).toBe(true);
  // Really out of the command's group and session: the kill by group alone would miss them.
  const session = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[3];
  expect(session(pids[0]!)).toBe(String(pids[0]));
  return { rpc, pids };
}

describe.skipIf(!linux)("processes that left their command's process group", () => {
  test("are gone when the command is aborted, and xcsh keeps serving", async () => {
    const { rpc, pids } = await startEscapees();
    expect((await rpc.request({ type: "abort" })).success).toBe(true);
    const end = await rpc.waitForEvent("tool_execution_end", () => true, 5_000);
    expect(end.isError).toBe(true);
    expect(await goneWithin(pids, 3_000)).toEqual([]);
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(await rpc.close()).toBe(0);
  }, 30_000);

  test("are gone after a SIGTERM of xcsh", async () => {
    const { rpc, pids } = await startEscapees();
    rpc.proc.kill("SIGTERM");
    // 128 + SIGTERM, after the orderly shutdown of rpc mode (pi 1.6.0's code).
    expect(await rpc.proc.exited).toBe(143);
    expect(await goneWithin(pids, 3_000)).toEqual([]);
  }, 30_000);

  test("are gone after a SIGKILL of xcsh: the watchdog finds them", async () => {
    const { rpc, pids } = await startEscapees();
    rpc.proc.kill("SIGKILL");
    await rpc.proc.exited;
    expect(await goneWithin(pids, 5_000)).toEqual([]);
  }, 30_000);

  test("a command that ended normally leaves them running until xcsh exits, like a background job", async () => {
    const tag = `${process.pid}-done`;
    const pidFile = join(home.home, `${tag}.pid`);
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
    started.push(rpc);
    server.clearScript();
    server.enqueue({ content: [{ type: "toolCall", id: "d1", name: "bash", arguments: { command: `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 300' & sleep 0.3; echo started` } }] }, { content: [{ type: "text", text: "ok" }] });
    expect((await rpc.request({ type: "prompt", message: "start it" })).success).toBe(true);
    await rpc.waitForEvent("agent_end", () => true, 10_000);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(alive(pid)).toBe(true);
    expect(await rpc.close()).toBe(0);
    expect(await goneWithin([pid], 3_000)).toEqual([]);
  }, 30_000);
});
