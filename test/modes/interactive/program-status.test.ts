/**
 * OSC 7501 program status in the terminal UI, in both layouts: `working`
 * while a run goes on, `done` after it, `error` after a failed run (its first
 * line), `blocked` while an extension's dialog waits (its title); nothing with
 * PI_PROGRAM_STATUS=0. tmux does not forward these reports, so the test reads
 * the raw bytes xcsh writes (tmux pipe-pane). PI_PROGRAM_STATUS=1 (or
 * XCSH_PROGRAM_STATUS=1) sends them without the terminal's support answer.
 *
 * tmux never answers the support query either, so the switch's "0" is tested on
 * a terminal that does (test/support/answering-terminal.ts): there the reports
 * come unasked-for, and "0" must silence them.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { makeFakeModelHome } from "../../support/cli.ts";
import { AnsweringTerminal } from "../../support/answering-terminal.ts";
import { send, withExtension, withPane } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";

/** The program status reports written since `record` started, decoded. */
function reports(file: string): string[] {
  let raw = "";
  try {
    raw = readFileSync(file, "latin1");
  } catch {
    return [];
  }
  return parseReports(raw);
}

/** The program status reports in raw terminal output, decoded (the support query is not one). */
function parseReports(raw: string): string[] {
  return [...raw.matchAll(/\x1b\]7501;([^\x07\x1b]*)(?:\x07|\x1b\\)/g)].map(([, body]) =>
    body!
      .split(":")
      .map((pair) => (pair.startsWith("msg=") ? `msg=${Buffer.from(pair.slice(4), "base64").toString("utf8")}` : pair))
      .join(":"),
  );
}

function record(pane: XcshPane): string {
  const file = join(pane.dir, "raw.out");
  pane.tmux(["pipe-pane", "-o", "-t", "main", `cat >> '${file}'`]);
  return file;
}

async function waitForReport(file: string, expected: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (reports(file).includes(expected)) return reports(file);
    await Bun.sleep(50);
  }
  throw new Error(`no report ${JSON.stringify(expected)}; got ${JSON.stringify(reports(file))}`);
}

describe("program status (OSC 7501)", () => {
  for (const tuiMode of ["regular", "fullscreen"]) {
    test(`${tuiMode}: working while a run goes on, then done; error after a failed run`, async () => {
      await withPane(
        async ({ fake, pane }) => {
          const file = record(pane);
          fake.server.enqueue({ content: [{ type: "text", text: "all good" }] });
          send(pane, "hello");
          await pane.waitFor("all good");
          const seen = await waitForReport(file, "state=done:app=xcsh");
          expect(seen.indexOf("state=working:app=xcsh")).toBeGreaterThanOrEqual(0);
          expect(seen.indexOf("state=working:app=xcsh")).toBeLessThan(seen.indexOf("state=done:app=xcsh"));
          // Never the prompt or the answer.
          expect(seen.join(" ")).not.toContain("hello");
          expect(seen.join(" ")).not.toContain("all good");

          fake.server.enqueue({ type: "error", status: 400, message: "bad request body\nsecond line" });
          send(pane, "fail please");
          const failed = await waitForReport(file, "state=error:app=xcsh:msg=" + (await errorLine(pane)));
          expect(failed.at(-1)).toStartWith("state=error");
        },
        { args: ["--tui-mode", tuiMode], env: { XCSH_PROGRAM_STATUS: "1" }, width: 100, height: 30 },
      );
    }, 60_000);
  }

  test("an extension's dialog reports blocked with its title until it is answered", async () => {
    const extension = withExtension(`export default function (pi) {
  pi.registerCommand("ask", { description: "Ask", handler: async (_args, ctx) => { const yes = await ctx.ui.confirm("Deploy now?", "It goes live"); ctx.ui.notify(yes ? "answered-yes" : "answered-no"); } });
}`);
    await withPane(
      async ({ pane }) => {
        const file = record(pane);
        send(pane, "/ask");
        await pane.waitFor("Deploy now?");
        await waitForReport(file, "state=blocked:app=xcsh:kind=question:msg=Deploy now?");
        pane.keys("Escape");
        await pane.waitFor("answered-no");
        const seen = await waitForReport(file, "state=idle:app=xcsh");
        expect(seen.at(-1)).toBe("state=idle:app=xcsh");
      },
      { ...extension, env: { PI_PROGRAM_STATUS: "1" } },
    );
  }, 60_000);

  test("on a terminal that answers the support query: reports without any switch; PI_PROGRAM_STATUS=0 (or XCSH_PROGRAM_STATUS=0, even beside an empty PI_PROGRAM_STATUS) sends none", async () => {
    const cases: [Record<string, string>, boolean][] = [
      [{}, true],
      [{ PI_PROGRAM_STATUS: "0" }, false],
      [{ XCSH_PROGRAM_STATUS: "0" }, false],
      // An exported but empty PI_PROGRAM_STATUS says nothing: xcsh's switch still counts.
      [{ PI_PROGRAM_STATUS: "", XCSH_PROGRAM_STATUS: "0" }, false],
    ];
    for (const [env, reported] of cases) {
      const fake = await makeFakeModelHome([{ id: "m" }]);
      const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
      const { PI_PROGRAM_STATUS: _inherited, ...home } = fake.home.env;
      const terminal = new AnsweringTerminal({ args: ["--model", "fake/m"], env: { ...home, ...env }, cwd: project, programStatus: true });
      try {
        await terminal.waitFor("fake/m");
        fake.server.enqueue({ content: [{ type: "text", text: "quiet answer" }] });
        terminal.write("hello\r");
        await terminal.waitFor("quiet answer");
        if (reported) {
          await terminal.waitFor((output) => parseReports(output).includes("state=done:app=xcsh"));
          expect(parseReports(terminal.output)).toContain("state=working:app=xcsh");
        } else {
          await Bun.sleep(300);
          expect({ env, reports: parseReports(terminal.output) }).toEqual({ env, reports: [] });
          // Not even asked: the terminal's support does not matter when the switch says no.
          expect(terminal.output).not.toContain("\x1b]7501;?");
        }
      } finally {
        await terminal.close();
        await fake.cleanup();
        rmSync(project, { recursive: true, force: true });
      }
    }
  }, 60_000);
});

/** The first line of the error the screen shows for the failed run. */
async function errorLine(pane: XcshPane): Promise<string> {
  const screen = await pane.waitFor(/✗ .*bad request body/);
  return /✗ (.*bad request body)/.exec(screen)![1]!.trim();
}
