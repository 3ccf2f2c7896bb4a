/**
 * A stranger's repository on screen: the terminal UI draws names the repository chose — its
 * folder, its branch (.git/HEAD), its files in `@` completion, its skills and prompt templates
 * in the `/` list. An escape sequence in any of them must not reach the terminal: OSC 2 would
 * set the window title (tmux shows it as the pane title), OSC 52 the clipboard, CSI colour
 * the rest of the screen. Each test starts the built binary in a tmux pane in such a
 * repository and reads the pane's title and its screen with escapes (capture-pane -e).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFakeModelHome, type FakeModelHome } from "../support/cli.ts";
import { XcshPane } from "../modes/interactive/tmux.ts";

const ESC = "\x1b";
/** Sets the window title to `marker`, as a hostile name would. */
const title = (marker: string) => `${ESC}]2;${marker}\x07`;

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** A repository in a folder named `folderName`, filled by `plant`; xcsh started in a pane there. */
async function openRepo(folderName: string, plant: (project: string) => void): Promise<{ pane: XcshPane; fake: FakeModelHome; project: string }> {
  const fake = await makeFakeModelHome([{ id: "m" }]);
  const parent = mkdtempSync(join(tmpdir(), "xcsh-hostile-"));
  const project = join(parent, folderName);
  mkdirSync(project, { recursive: true });
  plant(project);
  const pane = XcshPane.start({ args: ["--model", "fake/m"], env: fake.home.env, cwd: project });
  cleanups.push(
    () => pane.kill(),
    () => fake.cleanup(),
    () => rmSync(parent, { recursive: true, force: true }),
  );
  await pane.waitFor("fake/m", 30_000);
  return { pane, fake, project };
}

const paneTitle = (pane: XcshPane) => pane.format("#{pane_title}");

describe("names the repository chooses, on screen", () => {
  test("a folder and a branch named with escape sequences: header and footer show them inert, the title stays", async () => {
    const { pane, fake } = await openRepo(`proj${title("FOLDER-TITLE")}${ESC}[41mX`, (project) => {
      mkdirSync(join(project, ".git"));
      writeFileSync(join(project, ".git", "HEAD"), `ref: refs/heads/main${title("BRANCH-TITLE")}${ESC}[42mB\n`);
    });
    const screen = await pane.waitFor("(mainB)", 30_000);
    expect(screen).toContain("projX");
    // After an answer the footer reads the branch again.
    fake.server.enqueue({ content: [{ type: "text", text: "answered" }] });
    pane.type("hi");
    pane.keys("Enter");
    await pane.waitFor("answered", 30_000);
    expect(paneTitle(pane)).not.toContain("TITLE");
    const raw = pane.screen({ escapes: true });
    expect(raw).not.toContain(`${ESC}[41m`);
    expect(raw).not.toContain(`${ESC}[42m`);
  });

  test("the trust question names a folder with escape sequences inert: no title, no colour that could hide part of it", async () => {
    const { pane } = await openRepo(`proj${title("FOLDER-TITLE")}${ESC}[8mX`, (project) => {
      mkdirSync(join(project, ".xcsh"));
      writeFileSync(join(project, ".xcsh", "settings.json"), JSON.stringify({ defaultModel: "fake/m" }));
    });
    const screen = await pane.waitFor("Trust this project?", 30_000);
    expect(screen).toContain("projX has settings defaultModel");
    expect(paneTitle(pane)).not.toContain("TITLE");
    // ESC[8m would conceal the rest of the question.
    expect(pane.screen({ escapes: true })).not.toContain(`${ESC}[8m`);
    pane.keys("Escape");
  });

  test("a .git/HEAD that is a pipe, or a .git file pointing at a folder where it is, does not hold the terminal UI", async () => {
    const layouts: Record<string, (project: string) => void> = {
      "git-folder": (project) => {
        mkdirSync(join(project, ".git"));
        expect(Bun.spawnSync(["mkfifo", join(project, ".git", "HEAD")]).exitCode).toBe(0);
      },
      "git-file": (project) => {
        mkdirSync(join(project, "elsewhere"));
        expect(Bun.spawnSync(["mkfifo", join(project, "elsewhere", "HEAD")]).exitCode).toBe(0);
        writeFileSync(join(project, ".git"), "gitdir: elsewhere\n");
      },
    };
    for (const [name, plant] of Object.entries(layouts)) {
      const { pane, fake } = await openRepo(name, plant);
      fake.server.enqueue({ content: [{ type: "text", text: `still here in ${name}` }] });
      pane.type("hi");
      pane.keys("Enter");
      await pane.waitFor(`still here in ${name}`, 30_000);
    }
  });

  test("pipes wherever the terminal UI looks (themes, templates, skills, AGENTS.md, SYSTEM.md, @ files): it starts and answers", async () => {
    const { pane, fake } = await openRepo("pipes-everywhere", (project) => {
      for (const file of [".xcsh/themes/t.json", ".xcsh/prompts/p.md", ".xcsh/skills/s/SKILL.md", "AGENTS.md", ".xcsh/SYSTEM.md", "src/fifo.txt"]) {
        mkdirSync(join(project, file, ".."), { recursive: true });
        expect(Bun.spawnSync(["mkfifo", join(project, file)]).exitCode).toBe(0);
      }
      writeFileSync(join(project, "src", "plain.txt"), "x\n");
    });
    pane.type("@src/");
    await pane.waitFor("plain.txt", 30_000);
    pane.keys("C-u");
    pane.type("/skill:");
    pane.keys("C-u");
    fake.server.enqueue({ content: [{ type: "text", text: "alive" }] });
    pane.type("hi");
    pane.keys("Enter");
    await pane.waitFor("alive", 30_000);
  });

  test("tool lines: the model reading and editing a file whose name holds escape sequences shows the name inert", async () => {
    const planted = `notes${title("TOOL-TITLE")}${ESC}[45m.txt`;
    const { pane, fake } = await openRepo("tool-lines", (project) => writeFileSync(join(project, planted), "content here\n"));
    fake.server.enqueue(
      {
        content: [
          { type: "toolCall", name: "read", arguments: { path: planted } },
          { type: "toolCall", name: "edit", arguments: { path: planted, edits: [{ oldText: "here", newText: "there" }] } },
          { type: "toolCall", name: "grep", arguments: { pattern: `x${title("GREP-TITLE")}`, path: planted } },
        ],
      },
      { content: [{ type: "text", text: "finished" }] },
    );
    pane.type("go");
    pane.keys("Enter");
    const screen = await pane.waitFor("finished", 30_000);
    expect(screen).toContain("read notes.txt");
    expect(screen).toContain("edit notes.txt");
    expect(paneTitle(pane)).not.toContain("TITLE");
    expect(pane.screen({ escapes: true })).not.toContain(`${ESC}[45m`);
  });

  test("the / list: skills' and templates' descriptions are drawn inert, a template named with an escape sequence is not listed", async () => {
    const { pane } = await openRepo("commands", (project) => {
      mkdirSync(join(project, ".xcsh", "skills", "deploy"), { recursive: true });
      writeFileSync(join(project, ".xcsh", "skills", "deploy", "SKILL.md"), `---\nname: deploy\ndescription: "Ships it ${title("SKILL-TITLE")}${ESC}[44mnow"\n---\nSteps.\n`);
      mkdirSync(join(project, ".xcsh", "prompts"), { recursive: true });
      writeFileSync(join(project, ".xcsh", "prompts", `reviewed${title("TEMPLATE-TITLE")}.md`), "---\ndescription: Planted\n---\nReview it.\n");
      writeFileSync(join(project, ".xcsh", "prompts", "reviewer.md"), `---\ndescription: "Careful ${title("DESCRIPTION-TITLE")}review"\n---\nReview it.\n`);
    });
    pane.type("/skill:dep");
    await pane.waitFor("Ships it now", 30_000);
    expect(paneTitle(pane)).not.toContain("TITLE");
    expect(pane.screen({ escapes: true })).not.toContain(`${ESC}[44m`);
    pane.keys("C-u");
    // Both templates match "/review": the list that shows the plain one would show the planted one too.
    pane.type("/review");
    const screen = await pane.waitFor("Careful review", 30_000);
    expect(screen).not.toContain("Planted");
    expect(paneTitle(pane)).not.toContain("TITLE");
  });

  test("@ completion: a file named with an escape sequence is not offered, its neighbours are", async () => {
    const { pane } = await openRepo("files", (project) => {
      writeFileSync(join(project, `notes${title("FILE-TITLE")}.txt`), "x\n");
      writeFileSync(join(project, "notes-plain.txt"), "x\n");
    });
    pane.type("@notes");
    await pane.waitFor("notes-plain.txt", 30_000);
    expect(paneTitle(pane)).not.toContain("TITLE");
    expect(pane.screen()).not.toContain("notes]2;");
  });
});
