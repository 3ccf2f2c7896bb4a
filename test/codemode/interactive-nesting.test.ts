/**
 * In the interactive mode, the calls a codemode script makes are drawn under the
 * script's own row, indented, not as rows of their own beside it — while it runs, and
 * again when the session is continued (`-c`), from the `nestedCalls` its result keeps.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { send, visibleLines, withPane } from "../modes/interactive/fixture.ts";
import { XcshPane } from "../modes/interactive/tmux.ts";

/** The script's row and its two reads: the reads come after it, indented under it, level with each other. */
function expectNestedUnderScript(screen: string): void {
  const lines = visibleLines(screen);
  const indent = (line: string) => line.length - line.trimStart().length;
  const script = lines.findIndex((line) => line.includes("codemode"));
  const alpha = lines.findIndex((line) => /read\s+alpha\.txt/.test(line));
  const beta = lines.findIndex((line) => /read\s+beta\.txt/.test(line));
  expect(script).toBeGreaterThan(-1);
  expect(alpha).toBeGreaterThan(script);
  expect(beta).toBeGreaterThan(script);
  expect(indent(lines[alpha]!)).toBeGreaterThanOrEqual(indent(lines[script]!) + 2);
  expect(indent(lines[beta]!)).toBe(indent(lines[alpha]!));
}

test("a script's nested reads are shown indented under the codemode row", async () => {
  await withPane(
    async ({ fake, pane }) => {
      const code = 'const [a, b] = await Promise.all([tools.read({ path: "alpha.txt" }), tools.read({ path: "beta.txt" })]);\nreturn a.trim() + b.trim();';
      fake.server.enqueue({ content: [{ type: "toolCall", id: "cm1", name: "codemode", arguments: { code } }] }, { content: [{ type: "text", text: "Both read." }] });
      send(pane, "read both");
      const screen = await pane.waitFor("Both read.");
      const lines = visibleLines(screen);
      const indent = (line: string) => line.length - line.trimStart().length;
      const script = lines.findIndex((line) => line.includes("codemode"));
      const alpha = lines.findIndex((line) => /read\s+alpha\.txt/.test(line));
      const beta = lines.findIndex((line) => /read\s+beta\.txt/.test(line));
      expect(script).toBeGreaterThan(-1);
      expect(alpha).toBeGreaterThan(script);
      expect(beta).toBeGreaterThan(script);
      expect(indent(lines[alpha]!)).toBeGreaterThanOrEqual(indent(lines[script]!) + 2);
      expect(indent(lines[beta]!)).toBe(indent(lines[alpha]!));
    },
    {
      args: ["--tools", "codemode,read"],
      height: 50,
      before: (_fake, project) => {
        writeFileSync(join(project, "alpha.txt"), "one\n");
        writeFileSync(join(project, "beta.txt"), "two\n");
      },
    },
  );
}, 60_000);

test("a continued session shows the script's calls under its row, as during the run", async () => {
  await withPane(
    async ({ fake, project, pane }) => {
      const code = 'const a = await tools.read({ path: "alpha.txt" });\nconst b = await tools.read({ path: "beta.txt" });\nreturn a.trim() + b.trim();';
      fake.server.enqueue({ content: [{ type: "toolCall", id: "cm1", name: "codemode", arguments: { code } }] }, { content: [{ type: "text", text: "Both read." }] });
      send(pane, "read both");
      expectNestedUnderScript(await pane.waitFor("Both read."));
      pane.kill();

      const again = XcshPane.start({ args: ["--model", "fake/m", "--tools", "codemode,read", "-c"], env: fake.home.env, cwd: project, height: 50 });
      try {
        const screen = await again.waitFor((text) => text.includes("Both read.") && /read\s+beta\.txt/.test(text), 30_000);
        expectNestedUnderScript(screen);
        // Each read once: under the script, not also as a row of its own.
        expect(visibleLines(screen).filter((line) => /read\s+alpha\.txt/.test(line))).toHaveLength(1);
      } finally {
        again.kill();
      }
    },
    {
      args: ["--tools", "codemode,read"],
      height: 50,
      before: (_fake, project) => {
        writeFileSync(join(project, "alpha.txt"), "one\n");
        writeFileSync(join(project, "beta.txt"), "two\n");
      },
    },
  );
}, 90_000);
