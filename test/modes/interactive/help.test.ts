/**
 * /help and unknown slash commands in the terminal: /help lists every command
 * by where it comes from; an unknown `/word` is refused on screen and put back
 * in the editor, never sent to the model; a message that only starts with a
 * path ("/usr/bin …") is still a message. Also the lists' looks: /hotkeys's
 * heading stands apart from its rows, and the Ctrl+C hint does not stay.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stdioServer, writeMcpJson } from "../../mcp/support/mcp-fixture.ts";
import { send, withExtension, withPane } from "./fixture.ts";

const extension = withExtension(`export default function (pi) {
  pi.registerCommand("greet", { description: "Say hello", handler: async () => {} });
}`);

describe("/help and unknown commands", () => {
  test("/help lists the built-in, extension, template and skill commands under their sources", async () => {
    await withPane(
      async ({ fake, pane }) => {
        send(pane, "/help");
        const screen = await pane.waitFor("Type / to pick one");
        const lines = screen.split("\n").map((line) => line.trim());
        // The heading stands on a line of its own.
        expect(lines).toContain("Commands");
        for (const heading of ["Built-in", "Extension commands", "Prompt templates", "Skills"]) expect(lines).toContain(heading);
        expect(screen).toMatch(/\/model \[pattern\]\s+Switch the model/);
        expect(screen).toMatch(/\/greet\s+Say hello/);
        expect(screen).toMatch(/\/review\s+Review the change/);
        expect(screen).toMatch(/\/skill:tidy\s+Tidy things up/);
        const order = ["Built-in", "Extension commands", "Prompt templates", "Skills"].map((heading) => lines.indexOf(heading));
        expect([...order].sort((a, b) => a - b)).toEqual(order);
        expect(fake.server.requests.length).toBe(0);
      },
      {
        args: extension.args,
        height: 60,
        before: (fakeHome, project) => {
          extension.before!(fakeHome, project);
          const agentDir = fakeHome.home.agentDir;
          mkdirSync(join(agentDir, "prompts"), { recursive: true });
          writeFileSync(join(agentDir, "prompts", "review.md"), "---\ndescription: Review the change\n---\nReview $@\n");
          mkdirSync(join(agentDir, "skills", "tidy"), { recursive: true });
          writeFileSync(join(agentDir, "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidy things up\n---\nTidy.\n");
        },
      },
    );
  });

  test("an unknown /word is refused on screen, stays in the editor, and reaches no model", async () => {
    await withPane(async ({ fake, pane }) => {
      send(pane, "/nosuchcommand with words");
      const screen = await pane.waitFor("Unknown command /nosuchcommand — /help lists them");
      // Put back to fix: the editor holds the line again.
      expect(screen.split("\n").filter((line) => line.includes("/nosuchcommand with words")).length).toBe(1);
      await Bun.sleep(300);
      expect(fake.server.requests.length).toBe(0);
    });
  });

  test("`/` then an unmatched word + Enter in one write is refused too, as typed", async () => {
    await withPane(async ({ fake, pane }) => {
      pane.type("/");
      await pane.waitFor("Switch the model");
      pane.type("zzqq\r");
      await pane.waitFor("Unknown command /zzqq");
      expect(fake.server.requests.length).toBe(0);
    });
  });

  test("an MCP server's prompt is listed by /help and runs as a command, never refused", async () => {
    await withPane(
      async ({ fake, pane }) => {
        send(pane, "/help");
        await pane.waitFor(/MCP prompts\s*\n\s*\/mcp__t__review/);
        fake.server.enqueue({ content: [{ type: "text", text: "Reviewed." }] });
        send(pane, "/mcp__t__review the parser");
        await pane.waitFor("Reviewed.");
        expect(pane.screen()).not.toContain("Unknown command");
        // The server's prompt text, not the typed command, reached the model.
        expect(JSON.stringify(fake.server.requests.at(-1)!.body)).toContain("parser");
      },
      { before: (fakeHome, project) => writeMcpJson(join(fakeHome.home.agentDir, "mcp.json"), { t: stdioServer(join(project, "events.log")) }), height: 50 },
    );
  });

  test("a message that starts with a path goes to the model", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "Yes, a path." }] });
      send(pane, "/usr/bin is a path");
      await pane.waitFor("Yes, a path.");
      expect(JSON.stringify(fake.server.requests.at(-1)!.body)).toContain("/usr/bin is a path");
    });
  });
});

describe("lists and hints", () => {
  test("/hotkeys puts its heading on a line of its own, and wrapped rows stay indented", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/hotkeys");
        const screen = await pane.waitFor("hint lines");
        const lines = screen.split("\n").map((line) => line.trimEnd());
        expect(lines).toContain("Keys");
        const heading = lines.indexOf("Keys");
        // Everything under the heading, up to the editor's rule, is indented: no row runs back to the margin
        // (a wrapped row goes on further in, under its description: first-hour.test.ts).
        const rows = lines.slice(heading + 1, lines.findIndex((line, index) => index > heading && line.startsWith("─")));
        expect(rows.length).toBeGreaterThan(10);
        for (const row of rows.filter((line) => line !== "")) expect(row).toMatch(/^ {2,}\S/);
      },
      { width: 90, height: 50 },
    );
  });

  test("\"Press Ctrl+C again to exit\" goes away by itself", async () => {
    await withPane(async ({ pane }) => {
      pane.keys("C-c");
      await pane.waitFor("Press Ctrl+C again to exit");
      await pane.waitFor((screen) => !screen.includes("Press Ctrl+C again"), 5_000);
      // Still running: the hint went, not the session.
      await Bun.sleep(300);
      expect(pane.screen()).not.toContain("xcsh exited");
    });
  });
});
