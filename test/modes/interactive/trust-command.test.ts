/**
 * /trust in the built binary, in tmux (pi 1.6.0's command): the person saves a trust
 * decision for the project in trust.json; it shows the folder, the saved decision and this
 * session's, and the decision counts from the next start. Nothing but a key press in its
 * dialog saves: no argument decides, Esc saves nothing, and an Enter at once keeps things
 * as they are. A project's own prompt template named "trust" cannot
 * stand in for it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeModelHome } from "../../support/cli.ts";
import { send, withPane } from "./fixture.ts";
import { XcshPane } from "./tmux.ts";

/** A project that ships an extension, which says so on screen when it loads. */
function shipExtension(project: string): void {
  mkdirSync(join(project, ".xcsh", "extensions"), { recursive: true });
  writeFileSync(
    join(project, ".xcsh", "extensions", "hello.ts"),
    `export default function (pi) { pi.on("session_start", (_event, ctx) => ctx.ui.notify("PROJECT-EXTENSION-RAN", "info")); }\n`,
  );
}

const trustFile = (fake: FakeModelHome) => join(fake.home.agentDir, "trust.json");
/** The decision trust.json holds for `project`, undefined when none (or no file). */
function savedDecision(fake: FakeModelHome, project: string): boolean | undefined {
  if (!existsSync(trustFile(fake))) return undefined;
  return JSON.parse(readFileSync(trustFile(fake), "utf8")).projects?.[realpathSync(project)]?.trusted;
}

describe("/trust", () => {
  test("shows the folder, the saved and the current decision; saves the choice, which counts from the next start", async () => {
    await withPane(
      async ({ fake, pane, project }) => {
        send(pane, "/trust");
        let dialog = await pane.waitFor("Project trust", 30_000);
        expect(dialog).toContain("Saved decision: none");
        expect(dialog).toContain("This session: not trusted");
        expect(dialog.replace(/\s+/g, "")).toContain(project.split("/").at(-1)!);
        // It opens on the choice that changes nothing.
        await pane.waitFor(/→ Do not trust/);
        pane.keys("Enter");
        await pane.waitFor("Saved trust decision: not trusted", 30_000);
        expect(savedDecision(fake, project)).toBe(false);

        send(pane, "/trust");
        dialog = await pane.waitFor("Saved decision: not trusted", 30_000);
        await pane.waitFor(/→ Do not trust/);
        pane.keys("Up");
        await pane.waitFor(/→ Trust/);
        pane.keys("Enter");
        const saved = await pane.waitFor("Saved trust decision: trusted", 30_000);
        expect(saved).toContain("Restart xcsh for this to take effect");
        expect(savedDecision(fake, project)).toBe(true);
        // Not at once: the extension this session left out stays out.
        expect(pane.screen()).not.toContain("PROJECT-EXTENSION-RAN");

        // The next start in this folder trusts it without asking.
        pane.kill();
        const next = XcshPane.start({ args: ["--model", "fake/m"], env: fake.home.env, cwd: project });
        try {
          const screen = await next.waitFor("PROJECT-EXTENSION-RAN", 30_000);
          expect(screen).not.toContain("Trust this project?");
          send(next, "/trust");
          await next.waitFor("This session: trusted", 30_000);
          await next.waitFor(/→ Trust/);
          next.keys("Escape");
          await next.waitFor((text) => !text.includes("Project trust"));
        } finally {
          next.kill();
        }
      },
      { args: ["--no-trust-project"], before: (_fake, project) => shipExtension(project) },
    );
  }, 120_000);

  test("only the dialog's choice saves: no argument decides, Esc saves nothing, an Enter at once keeps the state, a project template is not it", async () => {
    await withPane(
      async ({ fake, pane, project }) => {
        send(pane, "/trust yes");
        await pane.waitFor("✗ /trust takes no arguments", 30_000);
        expect(savedDecision(fake, project)).toBeUndefined();

        // The project's prompts/trust.md is shadowed: /trust is the dialog, never a prompt to the model.
        send(pane, "/trust");
        await pane.waitFor("Project trust", 30_000);
        pane.keys("Escape");
        await pane.waitFor((text) => !text.includes("Saved decision:"));
        expect(existsSync(trustFile(fake))).toBe(false);
        expect(fake.server.requests.length).toBe(0);

        // An Enter as soon as the dialog is there (a habit, or a key meant for the editor) keeps the state.
        send(pane, "/trust");
        await pane.waitFor("Project trust", 30_000);
        pane.keys("Enter");
        await pane.waitFor("Saved trust decision: not trusted", 30_000);
        expect(savedDecision(fake, project)).toBe(false);
        expect(pane.screen()).not.toContain("PROJECT-EXTENSION-RAN");
      },
      {
        args: ["--no-trust-project"],
        before: (_fake, project) => {
          shipExtension(project);
          mkdirSync(join(project, ".xcsh", "prompts"), { recursive: true });
          writeFileSync(join(project, ".xcsh", "prompts", "trust.md"), "---\ndescription: planted\n---\nTRUST-TEMPLATE-SENT\n");
        },
      },
    );
  }, 120_000);
});
