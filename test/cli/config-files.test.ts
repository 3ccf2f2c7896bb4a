/**
 * Config files as a user meets them through the binary: a typo'd key is named
 * with the nearest known one (once), and a file nested absurdly deep is an
 * error naming the file with exit code 2, not a crash.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";

const home = makeTestHome();
afterAll(() => home.cleanup());

describe("config files", () => {
  test("an unknown key in settings.json is named once, with the key it was probably meant to be", async () => {
    home.writeSettings({ compaction: { reserveToken: 100 }, defaultThinkingLevl: "low" });
    const result = await runXcsh(["-p", "--provider", "faux", "--no-session", "hi"], { env: home.env });
    expect(result.exitCode).toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual([
      expect.stringContaining('unknown key "reserveToken" at compaction.reserveToken (did you mean "reserveTokens"?)'),
      expect.stringContaining('unknown key "defaultThinkingLevl" at defaultThinkingLevl (did you mean "defaultThinkingLevel"?)'),
    ]);
  });

  test("a models.json nested 100 000 deep is a configuration error naming the file (exit 2)", async () => {
    home.writeSettings({});
    writeFileSync(join(home.agentDir, "models.json"), `{"providers":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    const result = await runXcsh(["-p", "--provider", "faux", "--no-session", "hi"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${join(home.agentDir, "models.json")}: is nested 100001 levels deep`);
    expect(result.stderr).not.toContain("internal error");
  });
});
