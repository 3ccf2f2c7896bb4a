/**
 * The release smoke test (scripts/smoke-test.ts), run on the host binary that
 * `bun run build` makes, so a change that breaks it fails here and not first in
 * the release workflow. The five release binaries are never built in `bun test`.
 */
import { expect, test } from "bun:test";
import { ensureBinary } from "../support/cli.ts";
import { runSmokeTest } from "../../scripts/smoke-test.ts";

test("the built binary passes every smoke check; the extension check waits for extension support", async () => {
  const lines: string[] = [];
  const results = await runSmokeTest({ binary: ensureBinary(), log: (line) => lines.push(line) });

  const failed = results.filter((result) => result.outcome === "failed");
  expect(failed).toEqual([]);
  expect(results.filter((result) => result.outcome === "passed").map((result) => result.name)).toEqual([
    "--version names the version, commit and build date",
    "--help shows usage and the RPC mode",
    "--mode rpc answers get_state and exits 0 when stdin closes",
    "a bunfig.toml in the working directory is ignored",
    "a prompt streams the fake server's answer through to agent_end",
  ]);
  const skipped = results.filter((result) => result.outcome === "skipped");
  expect(skipped.map((result) => result.name)).toEqual(["loads a TypeScript extension from a directory without node_modules"]);
  expect(skipped[0].detail).toContain("extension support");
  expect(lines.at(-1)).toBe("smoke: 5 passed, 0 failed, 1 skipped");
});
