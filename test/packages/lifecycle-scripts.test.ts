/**
 * One rule for package lifecycle scripts, through the built binary, offline: `xcsh install`
 * and `update` run no `preinstall` / `install` / `postinstall` / `prepare` script — not a
 * git package's own (its package.json is the project the package manager installs in the
 * clone), not an npm package's, not a dependency's, even one the package lists in its
 * `trustedDependencies`. The same when settings' `npmCommand` names npm, which would run
 * them all. Every script here would leave a marker file; none may.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { makeGitRepository, packTarball, startFakeRegistry, writeGitConfig, type FakeRegistry } from "./package-fixtures.ts";

let home: ReturnType<typeof makeTestHome>;
let registry: FakeRegistry;
let env: Record<string, string>;
let markers: string;

/** Scripts for every install-time hook, each leaving `<markers>/<who>-<hook>`. */
function scripts(who: string): Record<string, string> {
  return Object.fromEntries(["preinstall", "install", "postinstall", "prepare"].map((hook) => [hook, `touch ${join(markers, `${who}-${hook}`)}`]));
}

beforeAll(() => {
  home = makeTestHome();
  registry = startFakeRegistry();
  markers = join(home.home, "markers");
  mkdirSync(markers, { recursive: true });
  const work = join(home.home, "work");
  mkdirSync(work, { recursive: true });
  const dependency = { name: "scripted-dep", version: "1.0.0", scripts: scripts("dependency"), main: "index.js" };
  // The registry says so too, as npm's does: npm reads it there to decide whether to run them.
  const hasScripts = (manifest: { scripts: Record<string, string> }) => ({ scripts: manifest.scripts, hasInstallScript: true });
  registry.publish("scripted-dep", "1.0.0", packTarball(work, "scripted-dep", "1.0.0", { "package.json": JSON.stringify(dependency), "index.js": "module.exports = 42;\n" }), undefined, hasScripts(dependency));
  const npmPackage = { name: "scripted-npm", version: "1.0.0", scripts: scripts("npm-package"), dependencies: { "scripted-dep": "1.0.0" } };
  registry.publish("scripted-npm", "1.0.0", packTarball(work, "scripted-npm", "1.0.0", { "package.json": JSON.stringify(npmPackage) }), npmPackage.dependencies, hasScripts(npmPackage));

  const reposDir = join(home.home, "repos");
  makeGitRepository(
    reposDir,
    "acme/scripted",
    {
      "package.json": JSON.stringify({
        name: "scripted-git",
        version: "1.0.0",
        scripts: scripts("git-package"),
        dependencies: { "scripted-dep": "1.0.0" },
        // A package may trust its dependencies' scripts for itself; xcsh's rule does not bend to it.
        trustedDependencies: ["scripted-dep"],
      }),
      "extensions/scripted.ts": `export default function (pi) { pi.registerCommand("scripted", { handler: async () => {} }); }\n`,
    },
    "v1",
  );
  const gitConfig = join(home.home, "gitconfig");
  writeGitConfig(gitConfig, "git.example.com", reposDir);
  env = Object.assign(home.env, {
    NPM_CONFIG_REGISTRY: registry.url,
    BUN_INSTALL_CACHE_DIR: join(home.home, "bun-cache"),
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: "1",
  });
});
beforeEach(() => {
  rmSync(markers, { recursive: true, force: true });
  mkdirSync(markers, { recursive: true });
});
afterAll(() => {
  registry.stop();
  home.cleanup();
});

const xcsh = (args: string[]) => runXcsh(args, { env, cwd: home.home, timeoutMs: 120_000 });

test("a git package's own scripts and its dependencies' do not run on install or update; its dependencies are installed", async () => {
  const installed = await xcsh(["install", "git:git.example.com/acme/scripted"]);
  expect(installed.stderr).toContain("Installing the dependencies of git:git.example.com/acme/scripted");
  expect(installed.exitCode).toBe(0);
  const clone = join(home.agentDir, "git", "git.example.com", "acme", "scripted");
  expect(existsSync(join(clone, "node_modules", "scripted-dep", "index.js"))).toBe(true);
  expect(readdirSync(markers)).toEqual([]);

  const updated = await xcsh(["update"]);
  expect(updated.exitCode).toBe(0);
  expect(readdirSync(markers)).toEqual([]);
}, 150_000);

test("an npm package's own scripts and its dependencies' do not run either", async () => {
  const installed = await xcsh(["install", "npm:scripted-npm"]);
  expect(installed.exitCode).toBe(0);
  expect(existsSync(join(home.agentDir, "npm", "node_modules", "scripted-dep", "index.js"))).toBe(true);
  expect(readdirSync(markers)).toEqual([]);
}, 150_000);

test.skipIf(!Bun.which("npm"))("with npmCommand [\"npm\"], which runs every script it is not told to skip, none runs either", async () => {
  // A config root of its own: npm's project files beside Bun's would be another test.
  const agentDir = join(home.home, "npm-agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ npmCommand: ["npm", "--no-audit", "--no-fund"] }));
  const installed = await runXcsh(["install", "npm:scripted-npm"], {
    env: { ...env, XCSH_CODING_AGENT_DIR: agentDir, npm_config_cache: join(home.home, "npm-cache") },
    cwd: home.home,
    timeoutMs: 120_000,
  });
  expect(installed.exitCode).toBe(0);
  expect(existsSync(join(agentDir, "npm", "node_modules", "scripted-dep", "index.js"))).toBe(true);
  expect(readdirSync(markers)).toEqual([]);
}, 150_000);
