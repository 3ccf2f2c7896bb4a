/**
 * `xcsh --mode rpc` refuses what cannot apply to it before it serves anything, with
 * exit code 2 (usage) and one stderr line, like every other mode.
 */
import { afterAll, expect, test } from "bun:test";
import { makeTestHome, runXcsh } from "../../support/cli.ts";

const home = makeTestHome();
afterAll(() => home.cleanup());

test.each(["--max-turns 3", "--max-cost 1", "--timeout 10", "--idle-timeout 5", "--output-format json"])("%s is refused in RPC mode", async (option) => {
  const result = await runXcsh(["--mode", "rpc", ...option.split(" ")], { env: home.env });
  expect(result.exitCode).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain(`${option.split(" ")[0]} applies to -p and --mode json`);
});

test("a --session that matches nothing exits 2 in RPC mode, as in print mode", async () => {
  const rpc = await runXcsh(["--mode", "rpc", "--session", "no-such-session-id"], { env: home.env });
  const print = await runXcsh(["-p", "hi", "--session", "no-such-session-id"], { env: home.env });
  expect(rpc.exitCode).toBe(2);
  expect(print.exitCode).toBe(2);
  expect(rpc.stderr).toContain("no-such-session-id");
});
