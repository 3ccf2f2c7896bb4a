/**
 * The release smoke test (scripts/smoke-test.ts), run on the host binary that
 * `bun run build` makes, so a change that breaks it fails here and not first in
 * the release workflow. The five release binaries are never built in `bun test`.
 */
import { expect, test } from "bun:test";
import { ensureBinary } from "../support/cli.ts";
import { runSmokeTest } from "../../scripts/smoke-test.ts";

test("the built binary passes every smoke check, the extension checks included, and skips none", async () => {
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
    "an extension in ~/.xcsh/agent/extensions (no node_modules) loads; get_commands lists its command",
    "the model calls the extension's tool and its result reaches the model",
    "a /command prompt runs the extension's command, which notifies the host",
  ]);
  expect(lines.at(-1)).toBe("smoke: 8 passed, 0 failed, 0 skipped");
});
