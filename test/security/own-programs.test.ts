/**
 * Programs xcsh runs for itself never run a repository's programs (docs/security.md,
 * "Programs xcsh runs for itself"). A repository can make git run a program of its
 * choosing — core.fsmonitor, a filter driver, a post-index-change hook — from its own
 * `.git/config`, from a `.git/commondir` that points at a git folder it planted, or from
 * a fresh `git init` put where the real `.git` was. Each such program here writes a marker
 * outside the project and prints $ANTHROPIC_API_KEY, the key xcsh really uses for the run.
 * Whatever the mode, the marker never appears, the key is never printed nor saved, and the
 * result envelope still lists the file the model's bash command changed. After each run
 * the test runs git itself and sees the marker appear: the planted programs were live.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type RunResult, type TestHome } from "../support/cli.ts";
import { bwrapWorks } from "../sandbox/sandbox-fixture.ts";
import { withPane } from "../modes/interactive/fixture.ts";
import { makeGitRepository, writeGitConfig } from "../packages/package-fixtures.ts";

const KEY = "sk-ant-fake-OWNPROGRAMS-7f3a9c";
const MODEL = ["--model", "fake/fake-model"];

let server: FakeLlmServer;
/** Outside /tmp, which sandboxed commands may write. */
let base: string;
let home: TestHome;
let project: string;
/** A folder outside the project: the planted program and its marker. */
let outside: string;
let evil: string;
let marker: string;

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
  base = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), "xcsh-own-programs-"));
});
afterAll(async () => {
  await server.close();
  rmSync(base, { recursive: true, force: true });
});

beforeEach(() => {
  server.clearScript();
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = base;
  try {
    home = makeTestHome();
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  home.env.TMPDIR = join(home.home, "tmp");
  mkdirSync(home.env.TMPDIR);
  home.env.ANTHROPIC_API_KEY = KEY;
  // The key the run really uses: the fake provider takes it from ANTHROPIC_API_KEY.
  home.writeModelsJson({
    providers: { fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "$ANTHROPIC_API_KEY", models: [{ id: "fake-model" }] } },
  });
  project = join(home.home, "project");
  mkdirSync(project);
  outside = mkdtempSync(join(base, "outside-"));
  marker = join(outside, "marker");
  evil = join(outside, "evil.sh");
  // fsmonitor and the hook get arguments; the clean filter gets the file on stdin and must give it back.
  writeFileSync(evil, `#!/bin/sh\necho "ran $0 $* key=$ANTHROPIC_API_KEY" >> '${marker}'\necho "$ANTHROPIC_API_KEY"\necho "$ANTHROPIC_API_KEY" >&2\n[ $# -eq 0 ] && cat\nexit 0\n`);
  chmodSync(evil, 0o755);
});
afterEach(() => home.cleanup());

const GIT_IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };

/** A shell script run in the project, without the key (as the test's own setup, or as the model's command). */
function sh(script: string, env: Record<string, string> = {}): void {
  const result = Bun.spawnSync(["/bin/sh", "-ec", script], { cwd: project, env: { ...home.env, ANTHROPIC_API_KEY: "", ...GIT_IDENTITY, ...env }, stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`setup failed: ${result.stderr.toString()}`);
}

/** A repository with one commit: notes.txt. */
function committedRepository(): void {
  writeFileSync(join(project, "notes.txt"), "one\n");
  sh("git init -q && git add . && git commit -qm start");
}

/** Shell that plants the three programs in the git folder $1 (its config, its hooks) and a .gitattributes naming the filter. */
function plantPrograms(gitDir: string): string {
  return [
    `git config -f '${gitDir}/config' core.fsmonitor '${evil}'`,
    `git config -f '${gitDir}/config' filter.evil.clean '${evil}'`,
    `mkdir -p '${gitDir}/hooks' && cp '${evil}' '${gitDir}/hooks/post-index-change' && chmod +x '${gitDir}/hooks/post-index-change'`,
    `echo '* filter=evil' > .gitattributes`,
  ].join(" && ");
}

interface Vector {
  name: string;
  /** Before the run: the repository as it is found. */
  before(): void;
  /** Shell that plants the programs in the project. */
  plant: () => string;
}

const VECTORS: Vector[] = [
  {
    name: "(a) the project's own .git/config",
    before: committedRepository,
    // A file left changed, so git status has something to refresh (and filter).
    plant: () => `${plantPrograms(".git")} && echo edited > notes.txt`,
  },
  {
    name: "(b) a .git/commondir pointing at a planted git folder",
    before: committedRepository,
    plant: () =>
      [
        "git init -q vendor/src && mv vendor/src/.git vendor/planted.git && rm -rf vendor/src",
        "git config -f vendor/planted.git/config core.bare false",
        plantPrograms("vendor/planted.git"),
        "mv .git .git-moved && mkdir .git && echo 'ref: refs/heads/master' > .git/HEAD && echo ../vendor/planted.git > .git/commondir",
      ].join(" && "),
  },
  {
    name: "(c) .git moved aside and a fresh git init in its place",
    before: committedRepository,
    plant: () => `mv .git .git-real && git init -q && ${plantPrograms(".git")}`,
  },
];

type Mode = { name: string; args: string[]; stdin?: string; envelope?: "only" | "last" };

const MODES: Mode[] = [
  { name: "-p (text)", args: ["-p", "go"] },
  { name: "-p --output-format json", args: ["-p", "go", "--output-format", "json"], envelope: "only" },
  { name: "--mode json", args: ["--mode", "json", "-p", "go"], envelope: "last" },
  { name: "--mode rpc, one prompt then EOF", args: ["--mode", "rpc"], stdin: JSON.stringify({ type: "prompt", id: "1", message: "go" }) + "\n" },
];

/** Every file below `dir`, as text. */
function allText(dir: string): string {
  if (!existsSync(dir)) return "";
  let text = "";
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    text += statSync(path).isDirectory() ? allText(path) : readFileSync(path, "utf8");
  }
  return text;
}

async function runWithBash(mode: Mode, command: string, extraArgs: string[] = ["--sandbox", "off"]): Promise<RunResult> {
  server.enqueue(
    { content: [{ type: "toolCall", name: "bash", arguments: { command } }] },
    { content: [{ type: "text", text: "Done." }] },
  );
  const result = await runXcsh([...mode.args, ...MODEL, ...extraArgs], { env: home.env, cwd: project, stdin: mode.stdin, timeoutMs: 25_000 });
  // The key was the run's real key: the provider received it.
  expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
  return result;
}

/** What a user observes: no marker, no key anywhere, and (with an envelope) the changed file listed. */
function expectNothingRan(mode: Mode, result: RunResult, changedFile: string): void {
  expect(result.exitCode).toBe(0);
  expect(existsSync(marker)).toBe(false);
  expect(result.stdout).not.toContain(KEY);
  expect(result.stderr).not.toContain(KEY);
  expect(allText(join(home.agentDir, "sessions"))).not.toContain(KEY);
  expect(allText(join(home.agentDir, "sessions"))).toContain("Done.");
  if (mode.envelope) {
    const lines = result.stdout.trim().split("\n");
    if (mode.envelope === "only") expect(lines).toHaveLength(1);
    const envelope = JSON.parse(lines.at(-1)!);
    expect(envelope).toMatchObject({ type: "result", status: "success" });
    expect(envelope.filesChanged).toContain(changedFile);
  }
}

/** git run by the test, with the key, in the project as the run left it: the planted programs run. */
function expectPlantedProgramsLive(): void {
  Bun.spawnSync(["git", "status", "--porcelain"], { cwd: project, env: { ...home.env, ...GIT_IDENTITY }, stdout: "ignore", stderr: "ignore" });
  expect(readFileSync(marker, "utf8")).toContain(`key=${KEY}`);
}

describe("a repository's programs never run from xcsh's own git", () => {
  for (const vector of VECTORS) {
    for (const mode of MODES) {
      test(`${vector.name}, planted before the run: ${mode.name}`, async () => {
        vector.before();
        sh(vector.plant());
        const result = await runWithBash(mode, "echo changed > changed.txt");
        expectNothingRan(mode, result, "changed.txt");
        expectPlantedProgramsLive();
      });
    }
    if (vector.name.startsWith("(a)")) continue;
    for (const mode of MODES) {
      test(`${vector.name}, planted by the model's bash command under --sandbox off: ${mode.name}`, async () => {
        vector.before();
        const result = await runWithBash(mode, `${vector.plant()} && echo changed > changed.txt`);
        expectNothingRan(mode, result, "changed.txt");
        expectPlantedProgramsLive();
      });
    }
  }

  test.skipIf(!bwrapWorks())("(a) a project that ships its own .git, with the sandbox on: -p --output-format json", async () => {
    VECTORS[0]!.before();
    sh(VECTORS[0]!.plant());
    const mode = MODES[1]!;
    const result = await runWithBash(mode, "echo changed > changed.txt", ["--sandbox", "workspace-write"]);
    expectNothingRan(mode, result, "changed.txt");
    expectPlantedProgramsLive();
  });
});

describe("the files a bash command changed, without git", () => {
  test("a new, a changed and a deleted file are listed; files under an ignored node_modules are not", async () => {
    mkdirSync(join(project, "node_modules", "pkg"), { recursive: true });
    writeFileSync(join(project, ".gitignore"), "node_modules/\n");
    writeFileSync(join(project, "node_modules", "pkg", "index.js"), "old\n");
    writeFileSync(join(project, "edit.txt"), "v1\n");
    writeFileSync(join(project, "gone.txt"), "bye\n");
    writeFileSync(join(project, "same.txt"), "untouched\n");
    sh("git init -q && git add . && git commit -qm start");
    const command = "echo new > new.txt && echo v2 >> edit.txt && rm gone.txt && echo new > node_modules/pkg/index.js && mkdir node_modules/other && echo x > node_modules/other/a.js";
    const mode = MODES[1]!;
    const result = await runWithBash(mode, command);
    expect(result.exitCode).toBe(0);
    const envelope = JSON.parse(result.stdout.trim());
    expect(envelope.filesChanged.sort()).toEqual(["edit.txt", "gone.txt", "new.txt"]);
  });

  test("a FIFO planted as .git/info/exclude does not hold the run up", async () => {
    committedRepository();
    sh("rm -f .git/info/exclude && mkfifo .git/info/exclude");
    const result = await runWithBash(MODES[1]!, "echo new > new.txt");
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout.trim()).filesChanged).toEqual(["new.txt"]);
  });

  test("a work tree of more than 100 000 files lists none, and the run goes on", async () => {
    committedRepository();
    // 100 001 empty files in 101 folders, made by xargs and touch (a few seconds).
    sh("mkdir many && cd many && for d in $(seq 0 100); do mkdir $d; done && seq 0 100000 | awk '{ print ($1 % 101) \"/\" $1 }' | xargs touch");
    const result = await runWithBash(MODES[1]!, "echo new > new.txt");
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(project, "new.txt"), "utf8")).toBe("new\n");
    expect(JSON.parse(result.stdout.trim()).filesChanged).toEqual([]);
  }, 60_000);

  test("outside a git work tree nothing a bash command changed is listed", async () => {
    writeFileSync(join(project, "notes.txt"), "one\n");
    const mode = MODES[1]!;
    const result = await runWithBash(mode, "echo new > new.txt");
    expect(JSON.parse(result.stdout.trim()).filesChanged).toEqual([]);
  });
});

describe("git for git packages", () => {
  test("xcsh update runs none of the programs a package checkout's own config and hooks name, and still updates it", async () => {
    const repos = join(home.home, "repos");
    const upstream = makeGitRepository(repos, "acme/tools", { "package.json": JSON.stringify({ name: "tools", version: "1.0.0" }) }, "v1");
    const gitConfig = join(home.home, "gitconfig");
    writeGitConfig(gitConfig, "git.example.com", repos);
    const env = { ...home.env, GIT_CONFIG_GLOBAL: gitConfig, GIT_CONFIG_NOSYSTEM: "1" };
    const install = await runXcsh(["install", "git:git.example.com/acme/tools"], { env, cwd: project, timeoutMs: 60_000 });
    expect(install.exitCode).toBe(0);
    const checkout = join(home.agentDir, "git", "git.example.com", "acme", "tools");
    // The checkout's config and hooks name programs; upstream has a new commit to fetch and merge.
    const hooks = ["post-merge", "post-checkout", "reference-transaction", "post-index-change"].map((hook) => `cp '${evil}' .git/hooks/${hook}`);
    sh([`cd '${checkout}'`, `git config core.fsmonitor '${evil}'`, `git config core.pager '${evil}'`, ...hooks].join(" && "));
    writeFileSync(join(upstream, "added.txt"), "new upstream\n");
    sh(`cd '${upstream}' && git add -A && git commit -qm second`);
    const update = await runXcsh(["update"], { env, cwd: project, timeoutMs: 60_000 });
    expect(update.stderr).not.toContain(KEY);
    expect(update.exitCode).toBe(0);
    expect(existsSync(join(checkout, "added.txt"))).toBe(true);
    expect(existsSync(marker)).toBe(false);
    // The same checkout, updated by git run by hand, runs them.
    sh(`cd '${checkout}' && git status`, { ANTHROPIC_API_KEY: KEY });
    expect(readFileSync(marker, "utf8")).toContain(`key=${KEY}`);
  });
});

describe("credential commands and bwrap", () => {
  /** A program the project ships in a folder that a relative PATH entry names. */
  function plantOnRelativePath(name: string): Record<string, string> {
    mkdirSync(join(project, "bin"));
    writeFileSync(join(project, "bin", name), `#!/bin/sh\necho "ran $0 key=$ANTHROPIC_API_KEY" >> '${marker}'\nexec /bin/false\n`);
    chmodSync(join(project, "bin", name), 0o755);
    return { ...home.env, PATH: `bin:${home.env.PATH}` };
  }

  test("a models.json key command runs in the home folder, without the provider keys, and not from a relative PATH entry", async () => {
    const seen = join(outside, "seen");
    const env = plantOnRelativePath("keytool");
    // The command records where it ran and whether it saw the key, tries `keytool`, then prints the real key.
    const command = `!pwd > '${seen}'; echo "key=[$ANTHROPIC_API_KEY]" >> '${seen}'; keytool; echo ${KEY}`;
    home.writeModelsJson({ providers: { fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: command, models: [{ id: "fake-model" }] } } });
    server.enqueue({ content: [{ type: "text", text: "Done." }] });
    const result = await runXcsh(["-p", "go", ...MODEL], { env, cwd: project });
    expect(result.stdout).toBe("Done.\n");
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(readFileSync(seen, "utf8")).toBe(`${home.home}\nkey=[]\n`);
    expect(existsSync(marker)).toBe(false);
  });

  test.skipIf(!bwrapWorks())("a bwrap the project puts on a relative PATH entry is not the sandbox", async () => {
    const env = plantOnRelativePath("bwrap");
    server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command: "echo inside > made.txt" } }] },
      { content: [{ type: "text", text: "Done." }] },
    );
    const result = await runXcsh(["-p", "go", ...MODEL, "--sandbox", "workspace-write"], { env, cwd: project });
    expect(result.stdout).toBe("Done.\n");
    expect(readFileSync(join(project, "made.txt"), "utf8")).toBe("inside\n");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the external editor", () => {
  test("an untrusted project's settings.json cannot name the program Ctrl+G runs", async () => {
    const stand_in = join(outside, "editor.sh");
    writeFileSync(stand_in, `#!/bin/sh\nprintf 'from your own editor\\n' > "$1"\n`);
    chmodSync(stand_in, 0o755);
    await withPane(
      async ({ pane }) => {
        pane.type("draft");
        await pane.waitFor("draft");
        pane.keys("C-g");
        await pane.waitFor("from your own editor");
        expect(existsSync(marker)).toBe(false);
      },
      {
        args: ["--no-trust-project"],
        env: { EDITOR: stand_in, VISUAL: "" },
        before: (_fake, projectDir) => {
          mkdirSync(join(projectDir, ".xcsh"));
          writeFileSync(join(projectDir, ".xcsh", "settings.json"), JSON.stringify({ externalEditor: evil }));
        },
      },
    );
  });
});
