/**
 * In the interactive mode, the calls a codemode script makes are drawn under the
 * script's own row, indented, not as rows of their own beside it.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { send, visibleLines, withPane } from "../modes/interactive/fixture.ts";

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
