/**
 * Issue #37's command-line stumbles, through the built binary on the offline faux
 * provider: a missing --prompt-template is named; --thinking max speaks of what was
 * asked; --provider limits --model to its own models; a session-id prefix that several
 * sessions share lists the shortest prefixes that name each alone, and those open it.
 * (-r -p without a terminal: test/cli/pi-session-tool-flags.test.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";

const home = makeTestHome();
afterAll(() => home.cleanup());
const run = (args: string[]) => runXcsh(["--provider", "faux", "--no-session", ...args], { env: home.env });

describe("newcomer stumbles", () => {
  test("--prompt-template with a missing path warns once, as --skill does, and the run goes on", async () => {
    const missing = join(home.home, "no-such-template.md");
    const result = await run(["--prompt-template", missing, "-p", "hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("faux model");
    const lines = result.stderr.split("\n").filter((line) => line.includes(missing));
    expect(lines).toEqual([`xcsh: prompt template path ${missing} does not exist`]);
  });

  test("--thinking max on a model whose top is lower names that top, not xhigh; a bad level lists max too", async () => {
    const max = await run(["--thinking", "max", "-p", "hi"]);
    expect(max.exitCode).toBe(0);
    expect(max.stderr).toContain(`faux/faux-1's highest thinking level is "high"; using it.`);
    expect(max.stderr).not.toContain("xhigh");
    const bad = await run(["--thinking", "huge", "-p", "hi"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('Invalid thinking level "huge". Use one of: off, minimal, low, medium, high, xhigh, max.');
  });

  test("--provider faux --model sonnet stays on faux: a clear usage error, not a switch to Anthropic", async () => {
    const result = await run(["--model", "sonnet", "-p", "hi"]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('Provider "faux" has no model matching "sonnet"');
    expect(result.stderr).toContain("faux-1");
    expect(result.stderr).not.toContain("anthropic");
    const own = await run(["--model", "faux-1", "-p", "hi"]);
    expect(own.exitCode).toBe(0);
  });

  test("an id prefix two sessions of the same minute share lists the shortest unique prefixes; one of them opens its session", async () => {
    const dir = mkdtempSync(join(tmpdir(), "xcsh-sessions-"));
    try {
      // UUIDv7 ids started in the same minute: the first 8 characters are the same.
      const ids = ["019abc12-3456-7000-8000-000000000001", "019abc12-3499-7000-8000-000000000002"];
      const files = ids.map((id, index) => {
        const file = join(dir, `2026-11-28T20-0${index}-00-000Z_${id}.jsonl`);
        writeFileSync(file, `${JSON.stringify({ type: "session", version: 3, id, timestamp: `2026-11-28T20:0${index}:00.000Z`, cwd: home.home })}\n`);
        return file;
      });
      const ambiguous = await runXcsh(["--provider", "faux", "--session-dir", dir, "--session", "019abc12", "-p", "hi"], { env: home.env });
      expect(ambiguous.exitCode).toBe(2);
      expect(ambiguous.stderr).toContain('Session id "019abc12" is ambiguous (2 sessions start with it)');
      expect(ambiguous.stderr).toContain("019abc12-345 ");
      expect(ambiguous.stderr).toContain("019abc12-349 ");

      const opened = await runXcsh(["--provider", "faux", "--session-dir", dir, "--session", "019abc12-349", "-p", "hi"], { env: home.env });
      expect(opened.exitCode).toBe(0);
      expect(readFileSync(files[1]!, "utf8")).toContain('"role":"user"');
      expect(readFileSync(files[0]!, "utf8").trim().split("\n").length).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
