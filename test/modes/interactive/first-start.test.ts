/**
 * A new user's first start (issue #37): a fresh home with no API key anywhere. The
 * terminal UI stays open with a one-line hint, /login works there (and moves the session to the new provider's model), and /model says
 * why its list is short and how to add a provider instead of "No matching commands".
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTestHome, type TestHome } from "../../support/cli.ts";
import { XcshPane } from "./tmux.ts";

const HINT = "No API key yet: type /login, set a key such as ANTHROPIC_API_KEY, or try offline with --provider faux.";

async function withKeylessPane(args: string[], run: (pane: XcshPane, home: TestHome) => Promise<void>): Promise<void> {
  const home = makeTestHome();
  const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
  const pane = XcshPane.start({ args, env: home.env, cwd: project });
  try {
    await run(pane, home);
  } finally {
    pane.kill();
    home.cleanup();
    rmSync(project, { recursive: true, force: true });
  }
}

/** A line typed and submitted in one write. */
function enter(pane: XcshPane, text: string): void {
  pane.tmux(["send-keys", "-t", "main", "-l", `${text}\r`]);
}

describe("first start without an API key", () => {
  test("the TUI stays open with a one-line hint, and /login stores a key that /model then offers", async () => {
    await withKeylessPane([], async (pane, home) => {
      const screen = await pane.waitFor(HINT);
      // One line: the whole hint on a single row of the 120-column screen.
      expect(screen.split("\n").some((line) => line.includes(HINT))).toBe(true);
      await Bun.sleep(300);
      expect(pane.screen()).not.toContain("xcsh exited");

      enter(pane, "/model");
      await pane.waitFor(/No model has an API key configured[\s\S]*\/login\s+adds\s+one/);

      enter(pane, "/login groq");
      await pane.waitFor("API key for Groq");
      pane.type("gsk-first-start");
      pane.keys("Enter");
      await pane.waitFor(/✓ Stored the API key for Groq\s+\d+ Groq models to choose from with \/model/);
      expect(JSON.parse(readFileSync(join(home.agentDir, "auth.json"), "utf8")).groq).toEqual({ type: "api_key", key: "gsk-first-start" });
      // The keyless model is left for the provider just added: the next prompt can go out.
      await pane.waitFor(/Model: groq\/\S+\s+the model in use had no API key/);
      expect(pane.screen()).not.toContain("anthropic/claude");

      enter(pane, "/model");
      await pane.waitFor("Select a model");
      pane.type("groq/");
      await pane.waitFor(/→ groq\//);
      pane.keys("Escape");
    });
  });

  test("/model on the offline faux provider says why the list is short; a search that finds nothing says how to add a provider", async () => {
    await withKeylessPane(["--provider", "faux"], async (pane) => {
      await pane.waitFor("faux/faux-1");
      enter(pane, "/model");
      await pane.waitFor("Only the offline faux models: no provider has an API key yet. /login adds one");
      pane.type("sonnet");
      const screen = await pane.waitFor("No model matches. Only providers with an API key are listed: /login adds one");
      expect(screen).not.toContain("No matching commands");
      pane.keys("Escape");
      await pane.waitFor((text) => !text.includes("Select a model"));
      enter(pane, "/model sonnet");
      await pane.waitFor(/✗ No model matches[\s\S]*\/login\s+adds\s+one/);
    });
  });
});
