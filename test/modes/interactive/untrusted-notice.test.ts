/**
 * The untrusted-project line of the terminal UI, in the built binary in tmux (pi 1.6.0 shows
 * one too): when a project's extensions, trust-gated settings or MCP servers are left out for
 * lack of trust and nobody is asked (or the person said no), one line in the conversation
 * names what waits and /trust. A project with nothing that waits for trust shows no such line,
 * and the folder's name, which the repository chose, is drawn inert.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFakeModelHome } from "../../support/cli.ts";
import { withPane } from "./fixture.ts";
import { XcshPane } from "./tmux.ts";

/** The screen with its wrapping undone: a long line reads whole. */
const flat = (screen: string): string => screen.replace(/\s+/g, "");

/** A project with an extension that says so when it loads, and a setting that runs code. */
function shipCode(project: string): void {
  mkdirSync(join(project, ".xcsh", "extensions"), { recursive: true });
  writeFileSync(
    join(project, ".xcsh", "extensions", "hello.ts"),
    `export default function (pi) { pi.on("session_start", (_event, ctx) => ctx.ui.notify("PROJECT-EXTENSION-RAN", "info")); }\n`,
  );
  writeFileSync(join(project, ".xcsh", "settings.json"), JSON.stringify({ shellPath: "/bin/sh" }));
}

const LINE = "This project is not trusted: not loading";

describe("the untrusted-project line", () => {
  test("--no-trust-project: one line names the extensions and the setting that wait, and /trust", async () => {
    await withPane(
      async ({ pane, project }) => {
        const screen = await pane.waitFor(LINE, 30_000);
        const text = flat(screen);
        expect(text).toContain(flat(`extensions in ${project}/.xcsh/extensions`));
        expect(text).toContain(flat(`settings shellPath from ${project}/.xcsh/settings.json (they run code)`));
        expect(text).toContain(flat("Use /trust to save a trust decision, then restart xcsh."));
        expect(screen.split(LINE)).toHaveLength(2);
        expect(screen).not.toContain("PROJECT-EXTENSION-RAN");
      },
      { args: ["--no-trust-project"], before: (_fake, project) => shipCode(project) },
    );
  }, 60_000);

  test('"defaultProjectTrust": "deny" shows it too; a person who answers no to the question sees it', async () => {
    await withPane(
      async ({ pane }) => {
        await pane.waitFor(LINE, 30_000);
      },
      { before: (fake, project) => (shipCode(project), fake.home.writeSettings({ defaultProjectTrust: "deny" })) },
    );
    await withPane(
      async ({ pane }) => {
        await pane.waitFor("Trust this project?", 30_000);
        expect(pane.screen()).not.toContain(LINE);
        pane.type("n");
        const screen = await pane.waitFor(LINE, 30_000);
        expect(flat(screen)).toContain(flat("Use /trust"));
      },
      { before: (_fake, project) => shipCode(project), ready: "Trust this project?" },
    );
  }, 90_000);

  test("a project with nothing that waits for trust shows no line, trusted or not", async () => {
    await withPane(
      async ({ pane }) => {
        // The footer is drawn once start-up is done, and the line would come before it.
        await pane.waitFor("fake/m", 30_000);
        expect(pane.screen()).not.toContain("not trusted");
      },
      {
        // A -e extension: the extension system starts and settles trust, with nothing of the project's waiting.
        args: ["--no-trust-project", "-e", "ext.ts"],
        before: (_fake, project) => {
          writeFileSync(join(project, "ext.ts"), "export default function () {}\n");
          writeFileSync(join(project, "AGENTS.md"), "Be brief.\n");
          mkdirSync(join(project, ".xcsh"));
          writeFileSync(join(project, ".xcsh", "settings.json"), JSON.stringify({ hideThinkingBlock: true }));
        },
      },
    );
    await withPane(
      async ({ pane }) => {
        await pane.waitFor("PROJECT-EXTENSION-RAN", 30_000);
        expect(pane.screen()).not.toContain("not trusted");
      },
      { args: ["--trust-project"], before: (_fake, project) => shipCode(project) },
    );
  }, 90_000);

  test("the folder's name is drawn inert: neither a cursor move nor a colour in it reaches the terminal", async () => {
    const fake = await makeFakeModelHome([{ id: "m", contextWindow: 100_000 }]);
    const parent = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
    const project = join(parent, "evil\x1b[4D\x1b[8mgood");
    mkdirSync(project);
    shipCode(project);
    const pane = XcshPane.start({ args: ["--model", "fake/m", "--no-trust-project"], env: fake.home.env, cwd: project });
    try {
      const screen = await pane.waitFor(LINE, 30_000);
      // Had the move reached the terminal, "good" would be drawn over "evil"; had the colour
      // (conceal), the rest of the line would be drawn invisible.
      expect(flat(screen)).toContain(flat(`extensions in ${parent}/evilgood/.xcsh/extensions`));
      expect(pane.screen({ escapes: true })).not.toContain("\x1b[8m");
    } finally {
      pane.kill();
      await fake.cleanup();
      rmSync(parent, { recursive: true, force: true });
    }
  }, 60_000);
});
