/**
 * A session file whose last write a crash cut short: xcsh says so (stderr in
 * print mode, a notice event in RPC), cuts the torn line off before appending
 * (keeping it in `<file>.torn`), and the file stays valid for every later run.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";

const home = makeTestHome();
afterAll(() => home.cleanup());

const TORN = '{"type":"message","id":"0badf00d","parentId":"';

/** A session of one exchange (json mode's header names it), with a torn line appended as a crash would leave it. */
async function tornSession(): Promise<string> {
  const first = await runXcsh(["--mode", "json", "-p", "--provider", "faux", "hello"], { env: home.env });
  const id = JSON.parse(first.stdout.split("\n")[0]).id as string;
  const [file] = [...new Bun.Glob(`**/*${id}.jsonl`).scanSync({ cwd: home.agentDir, absolute: true })];
  appendFileSync(file, TORN);
  return file;
}

describe("a torn session file", () => {
  test("print mode warns on stderr, cuts the torn line before appending, and keeps it in <file>.torn", async () => {
    const file = await tornSession();
    const result = await runXcsh(["-p", "--provider", "faux", "--session", file, "third"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("is incomplete (a write was interrupted)");
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(readFileSync(`${file}.torn`, "utf8")).toBe(TORN + "\n");
    const again = await runXcsh(["-p", "--provider", "faux", "--session", file, "fourth"], { env: home.env });
    expect(again.stderr).toBe("");
  });

  test("RPC reports the problem as a notice event", async () => {
    const file = await tornSession();
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--provider", "faux", "--session", file] });
    const notice = await rpc.waitFor((frame) => frame.type === "notice");
    expect(notice).toMatchObject({ level: "warning" });
    expect(notice.message).toContain("is incomplete");
    await rpc.request({ type: "prompt", message: "next" });
    await rpc.waitForEvent("agent_end");
    expect(await rpc.close()).toBe(0);
    expect(existsSync(`${file}.torn`)).toBe(true);
    expect(readFileSync(file, "utf8").includes(TORN)).toBe(false);
  });
});
