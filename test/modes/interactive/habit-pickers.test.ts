/**
 * /resume and /tree as pi users know them, in the built binary in tmux:
 * sessions of other projects (run in their own folder; a folder that is gone is
 * asked about), renaming and deleting from the list; labels
 * and filters in the tree (and the treeFilterMode setting).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runXcsh, type FakeModelHome } from "../../support/cli.ts";
import { send, visibleLines, withExtension, withPane } from "./fixture.ts";

/** Every session file under the config root, by project folder. */
function sessionFiles(agentDir: string): string[] {
  const root = join(agentDir, "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((folder) => readdirSync(join(root, folder)).map((name) => join(root, folder, name)));
}

function entries(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe("/resume", () => {
  test("lists another project's session (Tab), renames it (Ctrl+R) and deletes it after a yes (Ctrl+D); the session in use is never deleted", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "xcsh-other-"));
    try {
      await withPane(
        async ({ fake, pane }) => {
          fake.server.enqueue({ content: [{ type: "text", text: "Here and now." }] });
          send(pane, "a question in this project");
          await pane.waitFor("Here and now.");
          send(pane, "/resume");
          // Nothing here but the session in use: it opens on every project's; Tab goes to this folder and back.
          await pane.waitFor("Resume a session (all projects)");
          pane.keys("Tab");
          const here = await pane.waitFor("Resume a session (this folder)");
          expect(here).toContain("a question in this project (this session)");
          expect(here).not.toContain("a question from elsewhere");
          pane.keys("Tab");
          const all = await pane.waitFor("a question from elsewhere");
          expect(all).toContain("Resume a session (all projects)");
          expect(all).toContain(elsewhere.split("/").at(-1)!);
          // Rename the other project's session.
          const other = sessionFiles(fake.home.agentDir).find((file) => readFileSync(file, "utf8").includes("a question from elsewhere"))!;
          const row = all.split("\n").findIndex((line) => line.includes("a question from elsewhere"));
          const selected = all.split("\n").findIndex((line) => line.includes("→"));
          pane.keys(row > selected ? "Down" : "Up");
          await pane.waitFor(/→ a question from elsewhere/);
          pane.keys("C-r");
          await pane.waitFor("New name");
          pane.type("Renamed elsewhere");
          pane.keys("Enter");
          await pane.waitFor(/→ Renamed elsewhere — a question from elsewhere/);
          expect(entries(other).at(-1)).toMatchObject({ type: "session_info", name: "Renamed elsewhere" });
          // The session in use cannot be deleted.
          pane.keys(row > selected ? "Up" : "Down");
          await pane.waitFor(/→ a question in this project/);
          pane.keys("C-d");
          await pane.waitFor("Cannot delete the session in use");
          // Deleting asks first; Esc keeps the file, Enter removes it.
          pane.keys(row > selected ? "Down" : "Up");
          pane.keys("C-d");
          await pane.waitFor('Delete "Renamed elsewhere"?');
          pane.keys("Escape");
          await pane.waitFor((screen) => !screen.includes('Delete "Renamed elsewhere"?'));
          expect(existsSync(other)).toBe(true);
          pane.keys("C-d");
          await pane.waitFor('Delete "Renamed elsewhere"?');
          pane.keys("Enter");
          await pane.waitFor("Deleted the session file");
          expect(existsSync(other)).toBe(false);
          expect(pane.screen()).not.toContain("Renamed elsewhere");
          pane.keys("Escape");
          await pane.waitFor((screen) => !screen.includes("Resume a session"));
        },
        {
          before: async (fake) => {
            fake.server.enqueue({ content: [{ type: "text", text: "Answered elsewhere." }] });
            const result = await runXcsh(["-p", "a question from elsewhere", "--model", "fake/m"], { env: fake.home.env, cwd: elsewhere });
            expect(result.exitCode).toBe(0);
          },
        },
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test("with no other session here, it opens on every project's; one from elsewhere runs in its own folder (tools, AGENTS.md, footer)", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "xcsh-other-"));
    writeFileSync(join(elsewhere, "AGENTS.md"), "ELSEWHERE-RULES: answer in haiku.\n");
    try {
      await withPane(
        async ({ fake, pane, project }) => {
          // Here first: the footer names this folder.
          await pane.waitFor(project.split("/").at(-1)!);
          send(pane, "/resume");
          await pane.waitFor("Resume a session (all projects)");
          await pane.waitFor(/→ a question from elsewhere/);
          pane.keys("Enter");
          const screen = await pane.waitFor("where it was recorded");
          expect(screen).toContain("Answered elsewhere.");
          expect(screen).toContain("a question from elsewhere");
          // The footer follows the session to its folder.
          const footer = visibleLines(screen).filter((line) => line.startsWith("/") || line.startsWith("~")).at(-1)!;
          expect(footer).toContain(elsewhere.split("/").at(-1)!);
          // The next prompt runs there: bash's pwd is that folder, and its AGENTS.md is in the system prompt.
          fake.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "pwd" } }] }, { content: [{ type: "text", text: "Ran it." }] });
          send(pane, "where are you");
          await pane.waitFor("Ran it.");
          const request = JSON.stringify(fake.server.requests.at(-1)!.body);
          expect(request).toContain(elsewhere);
          expect(request).not.toContain(project);
          expect(request).toContain("ELSEWHERE-RULES");
        },
        {
          before: async (fake) => {
            fake.server.enqueue({ content: [{ type: "text", text: "Answered elsewhere." }] });
            const result = await runXcsh(["-p", "a question from elsewhere", "--model", "fake/m"], { env: fake.home.env, cwd: elsewhere });
            expect(result.exitCode).toBe(0);
          },
        },
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test("resuming into another folder: extensions' session_start says \"resume\" with the file it replaced; the old session's widgets, statuses and header go", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "xcsh-other-"));
    const log = join(elsewhere, "..", `${elsewhere.split("/").pop()}-starts.log`);
    const extension = `import { appendFileSync } from "node:fs";
export default function (pi) {
  pi.on("session_start", (event, ctx) => {
    appendFileSync(${JSON.stringify(log)}, event.reason + " " + (event.previousSessionFile ?? "-") + "\\n");
    if (event.reason !== "startup") return;
    ctx.ui.setWidget("old", ["OLD-WIDGET"]);
    ctx.ui.setStatus("old", "OLD-STATUS");
    ctx.ui.setHeader(() => ({ render: () => ["OLD-HEADER"], invalidate() {} }));
  });
}
`;
    const starts = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);
    try {
      await withPane(
        async ({ fake, pane }) => {
          const screen = await pane.waitFor("OLD-STATUS");
          expect(screen).toContain("OLD-WIDGET");
          expect(screen).toContain("OLD-HEADER");
          expect(starts()).toEqual(["startup -"]);
          fake.server.enqueue({ content: [{ type: "text", text: "Answered here." }] });
          send(pane, "a question here");
          await pane.waitFor("Answered here.");
          const here = sessionFiles(fake.home.agentDir).find((file) => readFileSync(file, "utf8").includes("a question here"))!;
          send(pane, "/resume");
          await pane.waitFor("a question from elsewhere");
          pane.keys("Down");
          await pane.waitFor(/→ a question from elsewhere/);
          pane.keys("Enter");
          await pane.waitFor("Answered elsewhere.");
          expect(starts()).toEqual(["startup -", `resume ${here}`]);
          const now = pane.screen();
          expect(now).not.toContain("OLD-WIDGET");
          expect(now).not.toContain("OLD-STATUS");
          expect(now).not.toContain("OLD-HEADER");
        },
        {
          args: ["-e", "ext.ts"],
          width: 160,
          before: async (fake, project) => {
            writeFileSync(join(project, "ext.ts"), extension);
            fake.server.enqueue({ content: [{ type: "text", text: "Answered elsewhere." }] });
            const result = await runXcsh(["-p", "a question from elsewhere", "--model", "fake/m"], { env: fake.home.env, cwd: elsewhere });
            expect(result.exitCode).toBe(0);
          },
        },
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
      rmSync(log, { force: true });
    }
  });

  test("/new and /reload: what the old generation's extensions put on the screen goes (pi 1.6.0); session_start may set it again", async () => {
    const extension = `export default function (pi) {
  pi.on("session_start", (event, ctx) => ctx.ui.setStatus("start", "STARTED-" + event.reason));
  pi.registerCommand("mark", { handler: async (_args, ctx) => {
    ctx.ui.setWidget("mark", ["MARK-WIDGET"]);
    ctx.ui.setStatus("mark", "MARK-STATUS");
  } });
}
`;
    await withPane(
      async ({ pane }) => {
        await pane.waitFor("STARTED-startup");
        send(pane, "/mark");
        await pane.waitFor("MARK-STATUS");
        expect(pane.screen()).toContain("MARK-WIDGET");
        send(pane, "/new");
        await pane.waitFor("STARTED-new");
        let screen = pane.screen();
        expect(screen).not.toContain("MARK-WIDGET");
        expect(screen).not.toContain("MARK-STATUS");
        send(pane, "/mark");
        await pane.waitFor("MARK-STATUS");
        send(pane, "/reload");
        await pane.waitFor("STARTED-reload");
        screen = pane.screen();
        expect(screen).not.toContain("MARK-WIDGET");
        expect(screen).not.toContain("MARK-STATUS");
      },
      withExtension(extension),
    );
  });

  test("--trust-project named the first folder: resuming into a project that ships code asks for that project's trust", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "xcsh-other-"));
    mkdirSync(join(elsewhere, ".xcsh", "extensions"), { recursive: true });
    writeFileSync(join(elsewhere, ".xcsh", "extensions", "hello.ts"), `export default function (pi) { pi.on("session_start", (_event, ctx) => ctx.ui.notify("ELSEWHERE-EXTENSION-RAN", "info")); }\n`);
    try {
      await withPane(
        async ({ pane }) => {
          send(pane, "/resume");
          await pane.waitFor(/→ a question from elsewhere/);
          pane.keys("Enter");
          const question = await pane.waitFor("Trust this project?");
          expect(question.replace(/\s+/g, "")).toContain(elsewhere.split("/").at(-1)!);
          pane.type("n");
          await pane.waitFor((screen) => !screen.includes("Trust this project?"));
          await pane.waitFor("where it was recorded");
          await Bun.sleep(300);
          expect(pane.screen()).not.toContain("ELSEWHERE-EXTENSION-RAN");
        },
        {
          args: ["--trust-project"],
          before: async (fake) => {
            fake.server.enqueue({ content: [{ type: "text", text: "Answered elsewhere." }] });
            const result = await runXcsh(["-p", "a question from elsewhere", "--model", "fake/m"], { env: fake.home.env, cwd: elsewhere });
            expect(result.exitCode).toBe(0);
          },
        },
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test("a session whose folder is gone: it asks — Cancel keeps this session, Fork copies it here and keeps the original", async () => {
    const gone = mkdtempSync(join(tmpdir(), "xcsh-gone-"));
    try {
      await withPane(
        async ({ fake, pane, project }) => {
          const original = sessionFiles(fake.home.agentDir).find((file) => readFileSync(file, "utf8").includes("a question from a gone folder"))!;
          const before = readFileSync(original, "utf8");
          send(pane, "/resume");
          await pane.waitFor(/→ a question from a gone folder/);
          pane.keys("Enter");
          await pane.waitFor("The session's folder no longer exists");
          const question = pane.screen();
          expect(question).toContain(`Continue in ${project}`);
          expect(question).toContain(`Fork into ${project}`);
          pane.keys("Escape");
          await pane.waitFor("Resume cancelled");
          expect(pane.screen()).not.toContain("Answered in a gone folder.");
          // Again, and Fork: a new session here with the conversation; the original file is untouched.
          send(pane, "/resume");
          await pane.waitFor(/→ a question from a gone folder/);
          pane.keys("Enter");
          await pane.waitFor("The session's folder no longer exists");
          pane.keys("Down");
          pane.keys("Enter");
          const screen = await pane.waitFor("Forked into a new session");
          expect(screen).toContain("Answered in a gone folder.");
          expect(readFileSync(original, "utf8")).toBe(before);
          fake.server.enqueue({ content: [{ type: "text", text: "Carrying on." }] });
          send(pane, "carry on");
          await pane.waitFor("Carrying on.");
          const forked = sessionFiles(fake.home.agentDir).filter((file) => file !== original && readFileSync(file, "utf8").includes("carry on"));
          expect(forked).toHaveLength(1);
          expect(entries(forked[0]!)[0]).toMatchObject({ type: "session", cwd: project });
          expect(JSON.stringify(fake.server.requests.at(-1)!.body)).toContain("a question from a gone folder");
        },
        {
          before: async (fake) => {
            fake.server.enqueue({ content: [{ type: "text", text: "Answered in a gone folder." }] });
            const result = await runXcsh(["-p", "a question from a gone folder", "--model", "fake/m"], { env: fake.home.env, cwd: gone });
            expect(result.exitCode).toBe(0);
            rmSync(gone, { recursive: true, force: true });
          },
        },
      );
    } finally {
      rmSync(gone, { recursive: true, force: true });
    }
  });
});

describe("--session whose folder is gone, at start", () => {
  /** A session recorded in a folder then removed; its file at a path known before the pane starts. */
  function goneSession(): { gone: string; file: string; before: (fake: FakeModelHome) => Promise<void> } {
    const gone = mkdtempSync(join(tmpdir(), "xcsh-gone-"));
    const file = join(mkdtempSync(join(tmpdir(), "xcsh-kept-")), "gone.jsonl");
    return {
      gone,
      file,
      before: async (fake) => {
        fake.server.enqueue({ content: [{ type: "text", text: "Answered before the move." }] });
        const result = await runXcsh(["-p", "a question before the move", "--model", "fake/m", "--session", file], { env: fake.home.env, cwd: gone });
        expect(result.exitCode).toBe(0);
        rmSync(gone, { recursive: true, force: true });
      },
    };
  }

  test("it asks first; Continue runs the session in the folder xcsh was started in, in the same file", async () => {
    const { file, before } = goneSession();
    await withPane(
      async ({ fake, pane, project }) => {
        const question = pane.screen();
        expect(question).toContain(`Continue in ${project}`);
        expect(question).toContain(`Fork into ${project}`);
        expect(question).toContain("Cancel");
        pane.keys("Enter");
        const screen = await pane.waitFor("(its folder is gone)");
        expect(screen).toContain("Answered before the move.");
        fake.server.enqueue({ content: [{ type: "text", text: "Going on here." }] });
        send(pane, "go on");
        await pane.waitFor("Going on here.");
        const body = JSON.stringify(fake.server.requests.at(-1)!.body);
        expect(body).toContain(`Current working directory: ${project}`);
        expect(body).toContain("a question before the move");
        // The same file goes on; no other session was made.
        expect(readFileSync(file, "utf8")).toContain("go on");
        expect(sessionFiles(fake.home.agentDir).filter((other) => readFileSync(other, "utf8").includes("go on"))).toHaveLength(0);
      },
      { args: ["--session", file], before, ready: "The session's folder no longer exists" },
    );
  });

  test("Fork makes a new session of this folder and keeps the original; Cancel exits without opening anything", async () => {
    const { file, before } = goneSession();
    await withPane(
      async ({ fake, pane, project }) => {
        const original = readFileSync(file, "utf8");
        pane.keys("Down");
        pane.keys("Enter");
        const screen = await pane.waitFor("Forked into a new session");
        expect(screen).toContain("Answered before the move.");
        fake.server.enqueue({ content: [{ type: "text", text: "Forked and going." }] });
        send(pane, "carry on");
        await pane.waitFor("Forked and going.");
        expect(readFileSync(file, "utf8")).toBe(original);
        const forked = sessionFiles(fake.home.agentDir).filter((other) => readFileSync(other, "utf8").includes("carry on"));
        expect(forked).toHaveLength(1);
        expect(entries(forked[0]!)[0]).toMatchObject({ type: "session", cwd: project });
      },
      { args: ["--session", file], before, ready: "The session's folder no longer exists" },
    );
    const cancelled = goneSession();
    await withPane(
      async ({ pane }) => {
        pane.keys("Escape");
        expect(await pane.waitForExit(15_000)).toBe(0);
      },
      { args: ["--session", cancelled.file], before: cancelled.before, ready: "The session's folder no longer exists" },
    );
  }, 60_000);
});

describe("/tree", () => {
  test("Shift+L labels the selected entry (saved in the session), and the filter keys change what is listed", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] });
      send(pane, "first question");
      await pane.waitFor("First answer.");
      send(pane, "second question");
      await pane.waitFor("Second answer.");
      send(pane, "/tree");
      await pane.waitFor(/→\s+•\s+Second answer\./);
      pane.keys("Up", "Up", "Up");
      await pane.waitFor(/→\s+•\s+› first question/);
      pane.keys("L");
      await pane.waitFor("Label (empty to remove)");
      pane.type("checkpoint");
      pane.keys("Enter");
      await pane.waitFor(/→\s+•\s+\[checkpoint\] › first question/);
      const file = sessionFiles(fake.home.agentDir)[0]!;
      const labelled = entries(file).find((entry) => entry.type === "message" && JSON.stringify(entry).includes("first question"))!;
      expect(entries(file).at(-1)).toMatchObject({ type: "label", targetId: labelled.id, label: "checkpoint" });
      // Labeled only.
      const treePart = (screen: string) => screen.slice(screen.indexOf("Session tree"));
      pane.keys("C-l");
      const labeledOnly = treePart(await pane.waitFor("[labeled-only]"));
      expect(labeledOnly).toContain("[checkpoint] › first question");
      expect(labeledOnly).not.toContain("second question");
      expect(labeledOnly).not.toContain("First answer.");
      // User messages only.
      pane.keys("C-u");
      const userOnly = treePart(await pane.waitFor("[user-only]"));
      expect(userOnly).toContain("› second question");
      expect(userOnly).not.toContain("Second answer.");
      // All: the label entries (and model changes, names, extension entries) too.
      pane.keys("C-a");
      const all = treePart(await pane.waitFor("[all]"));
      expect(all).toContain('[label "checkpoint"]');
      // Again the same key: back to the default.
      pane.keys("C-a");
      await pane.waitFor((screen) => !screen.includes("[all]") && treePart(screen).includes("Second answer."));
      // An empty label removes it.
      await pane.waitFor(/→\s+•\s+\[checkpoint\]/);
      pane.keys("L");
      await pane.waitFor("Label (empty to remove)");
      pane.keys("C-u", "Enter");
      await pane.waitFor("Label removed");
      expect(pane.screen()).not.toContain("[checkpoint]");
      expect(entries(file).at(-1)).toMatchObject({ type: "label", targetId: labelled.id });
      expect(entries(file).at(-1)!.label).toBeUndefined();
      pane.keys("Escape");
      await pane.waitFor((screen) => !screen.includes("Session tree"));
    });
  });

  test("treeFilterMode sets the filter /tree opens with", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "An answer." }] });
        send(pane, "only the question shows");
        await pane.waitFor("An answer.");
        send(pane, "/tree");
        const tree = await pane.waitFor("[user-only]");
        const list = tree.slice(tree.indexOf("Session tree"));
        expect(list).toContain("› only the question shows");
        expect(list).not.toContain("An answer.");
      },
      { before: (fake) => fake.home.writeSettings({ treeFilterMode: "user-only" }) },
    );
  });
});
