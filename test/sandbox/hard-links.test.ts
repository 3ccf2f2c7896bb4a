/**
 * A project whose node_modules bun installed as hard links into its global cache: under
 * workspace-write neither a command nor the edit tool can change the cache through the
 * project (node_modules is kept read-only), and no command can make a new hard link to a
 * file outside the writable folders (EXDEV between mounts). Under --sandbox off the edit
 * tool changes the project's copy and leaves the cache's alone. A node_modules of copies
 * stays writable. Through the built binary; a real `bun install` from a fake registry.
 * Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFixture } from "../support/extensions.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { packTarball, startFakeRegistry, type FakeRegistry } from "../packages/package-fixtures.ts";
import { bashCall, bwrapWorks, createSandboxFixture, toolResults } from "./sandbox-fixture.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/sandbox/hard-links.test.ts: bubblewrap cannot run here (install the bubblewrap package); tests skipped");

const ORIGINAL = "module.exports = 'original';\n";

let fixture: ExtensionFixture;
let base: string;
let registry: FakeRegistry;
let cache: string;

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-hardlink-test-"));
  registry = startFakeRegistry();
  const work = join(fixture.home.home, "packing");
  mkdirSync(work, { recursive: true });
  registry.publish("shared-dep", "1.0.0", packTarball(work, "shared-dep", "1.0.0", { "package.json": JSON.stringify({ name: "shared-dep", version: "1.0.0", main: "index.js" }), "index.js": ORIGINAL }));
  cache = join(fixture.home.home, "bun-cache");
});
afterAll(async () => {
  registry?.stop();
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

/** A project with shared-dep installed by bun (as its user would, outside xcsh), with `backend`. */
async function installedProject(name: string, backend: "hardlink" | "copyfile"): Promise<string> {
  const project = join(fixture.home.home, name);
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name, dependencies: { "shared-dep": "1.0.0" } }));
  // Not spawnSync: the fake registry answers from this process's event loop.
  const proc = Bun.spawn([process.execPath, "install", `--backend=${backend}`, "--no-save"], {
    cwd: project,
    env: { ...fixture.home.env, NPM_CONFIG_REGISTRY: registry.url, BUN_INSTALL_CACHE_DIR: cache },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`bun install failed: ${stderr}`);
  return project;
}

/** The cache's copy of shared-dep's index.js. */
function cachedIndex(): string {
  const folder = readdirSync(cache).find((entry) => entry.startsWith("shared-dep@"));
  if (!folder) throw new Error(`shared-dep is not in bun's cache: ${readdirSync(cache).join(", ")}`);
  return join(cache, folder, "index.js");
}

describe.skipIf(!canSandbox)("node_modules hard-linked to bun's cache", () => {
  test("under workspace-write a command and the edit tool cannot change the cache through the project, nor link to it anew", async () => {
    const project = await installedProject("linked-project", "hardlink");
    const installed = join(project, "node_modules", "shared-dep", "index.js");
    // The premise: bun's install is the cache's file under a second name.
    expect(statSync(installed).ino).toBe(statSync(cachedIndex()).ino);
    expect(statSync(installed).nlink).toBeGreaterThan(1);

    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: ["--model", "fake/fake-model", "--sandbox", "workspace-write"] });
    try {
      const [append, edit, link, elsewhere] = await toolResults(fixture, rpc, [
        bashCall("echo 'poisoned()' >> node_modules/shared-dep/index.js"),
        { name: "edit", arguments: { path: "node_modules/shared-dep/index.js", edits: [{ oldText: "original", newText: "poisoned" }] } },
        bashCall(`ln ${cachedIndex()} linked-again.js`),
        bashCall("echo 'work goes on' > src.js && cat src.js"),
      ]);
      expect(append!.text).toContain("Read-only file system");
      expect(edit!.isError).toBe(true);
      expect(edit!.text).toContain("hard links shared with a package manager's store");
      expect(link!.text).toContain("Invalid cross-device link");
      expect(elsewhere!.text).toBe("work goes on");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(readFileSync(cachedIndex(), "utf8")).toBe(ORIGINAL);
    expect(readFileSync(installed, "utf8")).toBe(ORIGINAL);
    expect(existsSync(join(project, "linked-again.js"))).toBe(false);
  }, 90_000);

  test("with the sandbox off the edit and write tools change the project's copy only, and the cache keeps its content", async () => {
    const project = await installedProject("off-project", "hardlink");
    const installed = join(project, "node_modules", "shared-dep", "index.js");
    const packageJson = join(project, "node_modules", "shared-dep", "package.json");
    const cachedPackageJson = readFileSync(packageJson, "utf8");
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: ["--model", "fake/fake-model", "--sandbox", "off"] });
    try {
      const [edit, write] = await toolResults(fixture, rpc, [
        { name: "edit", arguments: { path: "node_modules/shared-dep/index.js", edits: [{ oldText: "original", newText: "patched" }] } },
        { name: "write", arguments: { path: "node_modules/shared-dep/package.json", content: "{}" } },
      ]);
      expect(edit!.isError).toBe(false);
      expect(write!.isError).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(readFileSync(installed, "utf8")).toBe("module.exports = 'patched';\n");
    expect(statSync(installed).nlink).toBe(1);
    expect(readFileSync(packageJson, "utf8")).toBe("{}");
    expect(readFileSync(cachedIndex(), "utf8")).toBe(ORIGINAL);
    expect(readFileSync(join(cachedIndex(), "..", "package.json"), "utf8")).toBe(cachedPackageJson);
  }, 90_000);

  test("a node_modules of copies stays writable under workspace-write", async () => {
    const project = await installedProject("copied-project", "copyfile");
    expect(statSync(join(project, "node_modules", "shared-dep", "index.js")).nlink).toBe(1);
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: ["--model", "fake/fake-model", "--sandbox", "workspace-write"] });
    try {
      const [append] = await toolResults(fixture, rpc, [bashCall("echo '// local' >> node_modules/shared-dep/index.js && echo appended")]);
      expect(append!.text).toBe("appended");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(readFileSync(join(project, "node_modules", "shared-dep", "index.js"), "utf8")).toBe(`${ORIGINAL}// local\n`);
    expect(readFileSync(cachedIndex(), "utf8")).toBe(ORIGINAL);
  }, 90_000);
});
