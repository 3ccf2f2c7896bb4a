/**
 * Session ids are time ordered (UUIDv7): two sessions started in the same minute share
 * their first 8 characters. /resume and the -r list show each id by its shortest
 * unique start; /resume accepts such a start (and lists the candidates when several
 * sessions share it), and typing one in the picker's search finds that session.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTestHome } from "../../support/cli.ts";
import { send, withPane } from "./fixture.ts";
import { XcshPane } from "./tmux.ts";

const IDS = ["019abc12-3456-7000-8000-000000000001", "019abc12-3499-7000-8000-000000000002"];
const TOPICS = ["first topic about apples", "second topic about pears"];

/** Two saved sessions of the same minute in `dir`, each with one user message. */
function writeSessions(dir: string, cwd: string): void {
  IDS.forEach((id, index) => {
    const timestamp = `2026-11-28T20:00:0${index}.000Z`;
    const lines = [
      { type: "session", version: 3, id, timestamp, cwd },
      { type: "message", id: `m000000${index}`, parentId: null, timestamp, message: { role: "user", content: TOPICS[index], timestamp: Date.parse(timestamp) } },
    ];
    writeFileSync(join(dir, `2026-11-28T20-00-0${index}-000Z_${id}.jsonl`), lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  });
}

describe("session ids by their shortest unique start", () => {
  test("/resume rows show them, a search by id finds one session, /resume <prefix> opens it or lists the candidates", async () => {
    const dir = mkdtempSync(join(tmpdir(), "xcsh-sessions-"));
    try {
      await withPane(
        async ({ pane }) => {
          send(pane, "/resume");
          const picker = await pane.waitFor(TOPICS[1]!);
          expect(picker).toContain("019abc12-345");
          expect(picker).toContain("019abc12-349");
          pane.type("019abc12-349");
          await pane.waitFor((screen) => !screen.includes(TOPICS[0]!) && screen.includes(TOPICS[1]!));
          pane.keys("Escape");
          await pane.waitFor((screen) => !screen.includes("Resume a session"));

          send(pane, "/resume 019abc12");
          const listed = await pane.waitFor('2 sessions start with "019abc12"');
          expect(listed).toMatch(/019abc12-345\s+first topic/);
          expect(listed).toMatch(/019abc12-349\s+second topic/);

          send(pane, "/resume 019abc12-345");
          await pane.waitFor("Resumed");
          await pane.waitFor(TOPICS[0]!);
        },
        { args: ["--session-dir", dir], before: (_fake, project) => writeSessions(dir, project) },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("-r with -p lists each session with its id's shortest unique start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "xcsh-sessions-"));
    const home = makeTestHome();
    writeSessions(dir, home.home);
    const pane = XcshPane.start({ args: ["--provider", "faux", "--session-dir", dir, "-r", "-p", "hi"], env: home.env, cwd: home.home });
    try {
      const screen = await pane.waitFor("Resume which one");
      // Newest first; both files were written in the same instant, so the order is not asserted.
      expect(screen).toMatch(/[12]\s+019abc12-349\s+second topic/);
      expect(screen).toMatch(/[12]\s+019abc12-345\s+first topic/);
      pane.keys("Enter");
      expect(await pane.waitForExit()).toBe(0);
    } finally {
      pane.kill();
      home.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
