/**
 * What workspace-write keeps read-only inside the project, and what it hides, through the
 * built binary on Linux (bubblewrap): the whole `.git` (its files, and the entry itself, so
 * it cannot be moved aside, removed or replaced; a gitfile too), `.xcsh/`, `.pi/` and
 * `.mcp.json` — refused to commands and to the write and edit tools alike, and checked on
 * disk afterwards; so is code the project's settings name by path. The empty placeholders xcsh makes for the missing ones are gone when it
 * ends (stdin's end, SIGHUP, SIGTERM). xcsh's and pi's config folders stay hidden wherever
 * XCSH_CODING_AGENT_DIR points. Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ExtensionFixture } from "../support/extensions.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { bashCall, bwrapWorks, createSandboxFixture, toolResults } from "./sandbox-fixture.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/sandbox/protected-paths.test.ts: bubblewrap cannot run here (install the bubblewrap package); tests skipped");

let fixture: ExtensionFixture;
let base: string;

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-protected-test-"));
});
afterAll(async () => {
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

const SANDBOX = ["--model", "fake/fake-model", "--sandbox", "workspace-write"];

function git(cwd: string, ...args: string[]): string {
  const result = Bun.spawnSync(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.toString();
}

/** Every file under `folder` with its content: what "unchanged" is compared by. */
function snapshot(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(folder, path)] = readFileSync(path, "latin1");
    }
  };
  walk(folder);
  return files;
}

/** A project that is a git repository with one commit, and nothing else of xcsh's or pi's. */
function gitProject(name: string): string {
  const project = join(fixture.home.home, name);
  mkdirSync(project, { recursive: true });
  git(project, "init", "--quiet", "-b", "main");
  writeFileSync(join(project, "a.txt"), "one\n");
  git(project, "add", "a.txt");
  git(project, "commit", "--quiet", "-m", "first");
  return project;
}

describe.skipIf(!canSandbox)("--sandbox workspace-write keeps the project's configuration read-only", () => {
  test("commands cannot write, move, remove or re-create .git, nor make .mcp.json, .pi/ or .xcsh/; git commit is refused too; nothing is left behind", async () => {
    const project = gitProject("repo-project");
    const gitBefore = snapshot(join(project, ".git"));
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: SANDBOX });
    try {
      const [commondir, moved, removed, init, exclude, mcp, pi, xcsh, commit, status] = await toolResults(fixture, rpc, [
        bashCall("echo /var/tmp/planted > .git/commondir"),
        bashCall("mv .git .git-aside && git init --quiet . && echo replaced"),
        bashCall("rm -rf .git; ls -d .git"),
        bashCall("git init --quiet . && echo reinitialized"),
        bashCall("echo '*.secret' >> .git/info/exclude"),
        bashCall(`echo '{"mcpServers":{"evil":{"command":"sh"}}}' > .mcp.json`),
        bashCall(`mkdir -p .pi/extensions && echo 'export default () => {}' > .pi/extensions/evil.ts`),
        bashCall(`echo '{"sandbox":{"mode":"off"}}' > .xcsh/settings.json`),
        bashCall("echo two >> a.txt && git commit --quiet -am second && echo committed"),
        bashCall("git status --short"),
      ]);
      expect(commondir!.text).toContain("Read-only file system");
      expect(moved!.text).toContain("Device or resource busy");
      expect(moved!.text).not.toContain("replaced");
      expect(removed!.text).toContain("Read-only file system");
      expect(removed!.text).toContain(".git"); // still there
      expect(init!.text).not.toContain("reinitialized");
      expect(exclude!.text).toContain("Read-only file system");
      expect(mcp!.text).toContain("Is a directory"); // the read-only placeholder
      expect(pi!.text).toContain("Read-only file system");
      expect(xcsh!.text).toContain("Read-only file system");
      // Committing writes objects, the index and refs inside .git: refused, the change stays in the work tree.
      expect(commit!.text).not.toContain("committed");
      expect(commit!.text).toContain("Read-only file system");
      expect(status!.text.trim()).toBe("M a.txt");

      // The write and edit tools refuse the same paths.
      const tools = await toolResults(fixture, rpc, [
        { name: "write", arguments: { path: ".git/commondir", content: "/var/tmp/planted" } },
        { name: "edit", arguments: { path: ".git/config", edits: [{ oldText: "[core]", newText: "[core]\n\tfsmonitor = evil" }] } },
        { name: "write", arguments: { path: ".mcp.json", content: "{}" } },
        { name: "write", arguments: { path: ".pi/settings.json", content: "{}" } },
        { name: "write", arguments: { path: ".xcsh/settings.json", content: "{}" } },
      ]);
      for (const refused of tools) {
        expect(refused.isError).toBe(true);
        expect(refused.text).toContain("is read-only");
      }
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(snapshot(join(project, ".git"))).toEqual(gitBefore);
    expect(git(project, "log", "--format=%s")).toBe("first\n");
    expect(readFileSync(join(project, "a.txt"), "utf8")).toBe("one\ntwo\n");
    // The placeholders xcsh made for the missing paths went with it.
    expect(readdirSync(project).sort()).toEqual([".git", "a.txt"]);
  }, 60_000);

  test("a .git that is a file (a worktree's) cannot be rewritten or removed; an existing .mcp.json and .pi/ stay read-only and stay", async () => {
    const main = gitProject("main-repo");
    const worktree = join(fixture.home.home, "worktree-project");
    git(main, "worktree", "add", "--quiet", worktree);
    writeFileSync(join(worktree, ".mcp.json"), '{"mcpServers":{}}\n');
    mkdirSync(join(worktree, ".pi"));
    writeFileSync(join(worktree, ".pi", "settings.json"), "{}\n");
    const gitfile = readFileSync(join(worktree, ".git"), "utf8");
    const rpc = startRpc({ env: fixture.home.env, cwd: worktree, args: SANDBOX });
    try {
      const [rewrite, remove, mcp, pi] = await toolResults(fixture, rpc, [
        bashCall("echo 'gitdir: /var/tmp/planted' > .git"),
        bashCall("rm -f .git; mv .git moved"),
        bashCall("echo '{}' > .mcp.json; rm -f .mcp.json"),
        bashCall("rm -rf .pi"),
      ]);
      expect(rewrite!.text).toContain("Read-only file system");
      expect(remove!.text).toContain("Device or resource busy");
      expect(mcp!.text).toContain("Read-only file system");
      expect(mcp!.text).toContain("Device or resource busy");
      expect(pi!.text).toContain("Read-only file system");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(readFileSync(join(worktree, ".git"), "utf8")).toBe(gitfile);
    expect(readFileSync(join(worktree, ".mcp.json"), "utf8")).toBe('{"mcpServers":{}}\n');
    expect(readFileSync(join(worktree, ".pi", "settings.json"), "utf8")).toBe("{}\n");
    expect(existsSync(join(worktree, "moved"))).toBe(false);
  }, 60_000);

  test("in a folder with no repository a command may start one; xcsh's placeholders are removed when xcsh is hung up on", async () => {
    const project = join(fixture.home.home, "plain-project");
    mkdirSync(project, { recursive: true });
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: SANDBOX });
    try {
      const [init, during] = await toolResults(fixture, rpc, [bashCall("git init --quiet . && echo started"), bashCall("ls -A")]);
      expect(init!.text).toBe("started");
      // While xcsh runs, the placeholders hold the places of the missing paths.
      expect(during!.text.split("\n").sort()).toEqual([".git", ".mcp.json", ".pi", ".xcsh"]);
      rpc.proc.kill("SIGHUP");
      expect(await rpc.exitWithin(10_000)).toBe(129);
    } finally {
      rpc.kill();
    }
    expect(readdirSync(project)).toEqual([".git"]);
  }, 60_000);

  test("xcsh's placeholders are removed when xcsh is stopped with SIGTERM too", async () => {
    const project = join(fixture.home.home, "terminated-project");
    mkdirSync(project, { recursive: true });
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: SANDBOX });
    try {
      const [during] = await toolResults(fixture, rpc, [bashCall("ls -A")]);
      expect(during!.text.split("\n").sort()).toEqual([".mcp.json", ".pi", ".xcsh"]);
      rpc.proc.kill("SIGTERM");
      expect(await rpc.exitWithin(10_000)).toBe(143);
    } finally {
      rpc.kill();
    }
    expect(readdirSync(project)).toEqual([]);
  }, 60_000);

  test("a placeholder something was put into (by xcsh's user, outside the sandbox) is not removed", async () => {
    const project = join(fixture.home.home, "kept-project");
    mkdirSync(project, { recursive: true });
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: SANDBOX });
    try {
      await toolResults(fixture, rpc, [bashCall("true")]);
      writeFileSync(join(project, ".xcsh", "settings.json"), "{}\n");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(readdirSync(project)).toEqual([".xcsh"]);
    expect(readFileSync(join(project, ".xcsh", "settings.json"), "utf8")).toBe("{}\n");
  }, 60_000);
});

describe.skipIf(!canSandbox)("code the project's settings name by path", () => {
  test("an extension, a local package and a shellPath named in .xcsh/settings.json are read-only; the rest of their folder is not", async () => {
    const project = join(fixture.home.home, "named-code-project");
    const files: Record<string, string> = {
      ".xcsh/settings.json": JSON.stringify({ extensions: ["../tools/review.ts", "!../tools/skip.ts"], packages: ["../local-pkg", "npm:some-package"], shellPath: "./bin/sh" }),
      "tools/review.ts": "export default () => {};\n",
      "tools/other.ts": "// not named\n",
      "local-pkg/index.ts": "export default () => {};\n",
      "bin/sh": "#!/bin/sh\n",
    };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(project, path, ".."), { recursive: true });
      writeFileSync(join(project, path), content);
    }
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: SANDBOX });
    try {
      const [extension, pkg, shell, other, tool] = await toolResults(fixture, rpc, [
        bashCall("echo 'runEvil()' >> tools/review.ts"),
        bashCall("echo 'runEvil()' > local-pkg/evil.ts"),
        bashCall("echo 'curl evil' >> bin/sh"),
        bashCall("echo '// edited' >> tools/other.ts && echo edited"),
        { name: "edit", arguments: { path: "local-pkg/index.ts", edits: [{ oldText: "() => {}", newText: "() => runEvil()" }] } },
      ]);
      for (const refused of [extension!, pkg!, shell!]) expect(refused.text).toContain("Read-only file system");
      expect(other!.text).toBe("edited");
      expect(tool!.isError).toBe(true);
      expect(tool!.text).toContain("is read-only");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    for (const path of ["tools/review.ts", "local-pkg/index.ts", "bin/sh"]) expect(readFileSync(join(project, path), "utf8")).toBe(files[path]!);
    expect(existsSync(join(project, "local-pkg", "evil.ts"))).toBe(false);
  }, 60_000);
});

describe.skipIf(!canSandbox)("the config folders stay hidden wherever XCSH_CODING_AGENT_DIR points", () => {
  test("~/.xcsh/agent, ~/.pi/agent and $PI_CODING_AGENT_DIR show as empty to commands, and the tools cannot write them", async () => {
    const moved = join(fixture.home.home, "moved-agent");
    mkdirSync(moved, { recursive: true });
    cpSync(join(fixture.home.agentDir, "models.json"), join(moved, "models.json"));
    const piDir = join(fixture.home.home, "pi-config");
    const secrets = { [fixture.home.agentDir]: "xcsh-default-secret", [join(fixture.home.home, ".pi", "agent")]: "pi-default-secret", [piDir]: "pi-env-secret" };
    for (const [folder, secret] of Object.entries(secrets)) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "auth.json"), JSON.stringify({ key: secret }));
    }
    const env = { ...fixture.home.env, XCSH_CODING_AGENT_DIR: moved, PI_CODING_AGENT_DIR: piDir };
    const rpc = startRpc({ env, cwd: fixture.cwd, args: SANDBOX });
    try {
      const folders = [...Object.keys(secrets), moved];
      const [listing, write] = await toolResults(fixture, rpc, [
        bashCall(folders.map((folder) => `ls -A ${folder} | wc -l; cat ${folder}/auth.json ${folder}/models.json 2>/dev/null`).join("; ") + "; true"),
        { name: "write", arguments: { path: join(fixture.home.home, ".pi", "agent", "auth.json"), content: "{}" } },
      ]);
      expect(listing!.text.split("\n")).toEqual(["0", "0", "0", "0"]);
      for (const secret of Object.values(secrets)) expect(listing!.text).not.toContain(secret);
      expect(write!.isError).toBe(true);
      expect(write!.text).toContain("config folder");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(statSync(join(fixture.home.home, ".pi", "agent", "auth.json")).size).toBeGreaterThan(2);
  }, 60_000);
});
