/**
 * /import <file> in the built binary, in tmux (pi 1.6.0's command): the session file is
 * copied next to the current session and opened with its id; the conversation goes on in
 * the copy and the file given is left as it was. A missing file or one that is not a
 * session is said so, and the session goes on.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { send, withPane } from "./fixture.ts";

const IMPORTED_ID = "0190aaaa-bbbb-7ccc-8ddd-eeeeffff0001";

/** A small session recorded in `cwd`, as another machine's xcsh or pi would have written it. */
function sessionText(cwd: string): string {
  const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const lines = [
    { type: "session", version: 3, id: IMPORTED_ID, timestamp: "2026-11-01T10:00:00.000Z", cwd },
    { type: "message", id: "a0000001", parentId: null, timestamp: "2026-11-01T10:00:01.000Z", message: { role: "user", content: "what is the plan?", timestamp: 1 } },
    {
      type: "message",
      id: "a0000002",
      parentId: "a0000001",
      timestamp: "2026-11-01T10:00:02.000Z",
      message: { role: "assistant", content: [{ type: "text", text: "THE-IMPORTED-PLAN" }], api: "openai-completions", provider: "fake", model: "m", usage, stopReason: "stop", timestamp: 2 },
    },
  ];
  return lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
}

describe("/import", () => {
  test("opens a session file with its id, in a copy next to the current session; the original is untouched", async () => {
    await withPane(async ({ fake, pane, project }) => {
      const elsewhere = join(fake.home.home, "from a colleague");
      mkdirSync(elsewhere);
      const original = join(elsewhere, "shared session.jsonl");
      const text = sessionText(project);
      writeFileSync(original, text);

      send(pane, `/import "${original}"`);
      await pane.waitFor("THE-IMPORTED-PLAN", 30_000);
      await pane.waitFor("Imported", 30_000);

      fake.server.enqueue({ content: [{ type: "text", text: "GOING-ON" }] });
      send(pane, "and now?");
      await pane.waitFor("GOING-ON", 30_000);

      expect(readFileSync(original, "utf8")).toBe(text);
      const sessionsRoot = join(fake.home.agentDir, "sessions");
      const copies = readdirSync(sessionsRoot, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && entry.name === "shared session.jsonl");
      expect(copies).toHaveLength(1);
      const copy = readFileSync(join(copies[0]!.parentPath, copies[0]!.name), "utf8");
      expect(JSON.parse(copy.split("\n")[0]!).id).toBe(IMPORTED_ID);
      expect(copy).toContain("THE-IMPORTED-PLAN");
      expect(copy).toContain("GOING-ON");
    });
  }, 90_000);

  test("with --no-session the session is opened in memory: no copy is made, and the file given is not written to", async () => {
    let original = "";
    let text = "";
    await withPane(
      async ({ fake, pane, project }) => {
        original = join(project, "shared.jsonl");
        text = sessionText(project);
        writeFileSync(original, text);

        send(pane, "/import shared.jsonl");
        await pane.waitFor("THE-IMPORTED-PLAN", 30_000);
        await pane.waitFor("into memory", 30_000);

        fake.server.enqueue({ content: [{ type: "text", text: "GOING-ON" }] });
        send(pane, "and now?");
        await pane.waitFor("GOING-ON", 30_000);
        // The model saw the imported conversation.
        expect(JSON.stringify(fake.server.requests.at(-1)?.body)).toContain("THE-IMPORTED-PLAN");

        expect(readFileSync(original, "utf8")).toBe(text);
        const sessionsRoot = join(fake.home.agentDir, "sessions");
        const written = existsSync(sessionsRoot) ? readdirSync(sessionsRoot, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()) : [];
        expect(written.map((entry) => entry.name)).toEqual([]);

        // A session of another folder would run there, from a file: refused, with the reason.
        const other = join(project, "other.jsonl");
        writeFileSync(other, sessionText(join(project, "elsewhere")));
        send(pane, "/import other.jsonl");
        await pane.waitFor("not imported in a --no-session run", 30_000);
        expect(existsSync(sessionsRoot) ? readdirSync(sessionsRoot, { recursive: true }).length : 0).toBe(0);
      },
      { args: ["--no-session"] },
    );
  }, 90_000);

  test("a missing file and a file that is not a session are refused on screen; the session goes on", async () => {
    await withPane(async ({ fake, pane, project }) => {
      send(pane, "/import nowhere.jsonl");
      await pane.waitFor("✗ No file", 30_000);
      writeFileSync(join(project, "notes.jsonl"), '{"hello":"world"}\n');
      send(pane, "/import notes.jsonl");
      await pane.waitFor(/✗ Cannot import .*notes\.jsonl|✗ .*notes\.jsonl is not a session/, 30_000);
      fake.server.enqueue({ content: [{ type: "text", text: "STILL-HERE" }] });
      send(pane, "hello");
      await pane.waitFor("STILL-HERE", 30_000);
    });
  }, 90_000);
});
