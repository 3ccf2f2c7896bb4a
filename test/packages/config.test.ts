/**
 * `xcsh config` through the built binary: a local package with two extensions (each a
 * command) and a skill, declared in the user's settings beside other keys. Disabling one
 * extension takes its command out of a session and leaves the other; enabling brings it
 * back; `config list` shows each state; a skill goes the same way; a wrong package, kind
 * or resource exits 2 naming what exists and writes nothing; `-l` edits the project's file.
 * A bare `xcsh config` in a terminal (tmux) is a list toggled with Space, Tab for the scope.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createRpcFixture, FAKE_MODEL, type RpcFixture } from "../support/rpc-harness.ts";
import { XcshPane } from "../modes/interactive/tmux.ts";
import { writeFiles } from "./package-fixtures.ts";

let fixture: RpcFixture;
let env: Record<string, string>;
let settingsFile: string;
let pkg: string;

beforeAll(() => {
  fixture = createRpcFixture();
  env = fixture.home.env;
  settingsFile = join(fixture.home.agentDir, "settings.json");
  pkg = writeFiles(join(fixture.home.home, "toggle-pkg"), {
    "package.json": JSON.stringify({ name: "toggle-pkg", version: "0.1.0", pi: { extensions: ["./ext/alpha.ts", "./ext/beta.ts"], skills: ["./skills"] } }),
    "ext/alpha.ts": `export default function (pi) { pi.registerCommand("alpha-cmd", { description: "Alpha", handler: async () => {} }); }\n`,
    "ext/beta.ts": `export default function (pi) { pi.registerCommand("beta-cmd", { description: "Beta", handler: async () => {} }); }\n`,
    "skills/toggle-skill/SKILL.md": "---\nname: toggle-skill\ndescription: A skill to toggle\n---\nBody.\n",
  });
  writeFileSync(settingsFile, JSON.stringify({ quietStartup: true, theme: "dark", packages: [pkg] }, null, 2));
});
afterAll(() => fixture.cleanup());

const xcsh = (args: string[]) => runXcsh(args, { env, cwd: fixture.cwd, timeoutMs: 60_000 });
const readSettings = () => JSON.parse(readFileSync(settingsFile, "utf8"));
const commandNames = async (): Promise<string[]> => {
  const rpc = fixture.start(["--model", FAKE_MODEL]);
  const names = (await rpc.request({ type: "get_commands" }, 30_000)).data.commands.map((command: any) => command.name);
  expect(await rpc.close()).toBe(0);
  return names;
};

describe("xcsh config", () => {
  test("config list shows every resource of the package, all enabled when the declaration has no filter", async () => {
    const result = await xcsh(["config", "list"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(pkg);
    expect(result.stdout).toContain("[x] ext/alpha.ts");
    expect(result.stdout).toContain("[x] ext/beta.ts");
    expect(result.stdout).toContain("[x] skills");
    // Not a prompt: nothing reached the model.
    expect(fixture.server.requests.length).toBe(0);
  }, 60_000);

  test("disabling one extension removes its command from a session and keeps the other; enable brings it back", async () => {
    const disabled = await xcsh(["config", "disable", pkg, "extensions", "ext/alpha.ts"]);
    expect(disabled.exitCode).toBe(0);
    expect(disabled.stdout).toContain("Disabled extensions ext/alpha.ts");
    const settings = readSettings();
    expect(settings.quietStartup).toBe(true);
    expect(settings.theme).toBe("dark");
    expect(settings.packages).toEqual([{ source: pkg, extensions: ["-ext/alpha.ts"] }]);

    const without = await commandNames();
    expect(without).not.toContain("alpha-cmd");
    expect(without).toContain("beta-cmd");
    const listed = await xcsh(["config", "list"]);
    expect(listed.stdout).toContain("[ ] ext/alpha.ts");
    expect(listed.stdout).toContain("[x] ext/beta.ts");

    // Disabling twice changes nothing.
    expect((await xcsh(["config", "disable", pkg, "extensions", "alpha.ts"])).stdout).toContain("already disabled");

    const enabled = await xcsh(["config", "enable", pkg, "extensions", "ext/alpha.ts"]);
    expect(enabled.exitCode).toBe(0);
    expect(readSettings().packages).toEqual([{ source: pkg }]);
    expect(readSettings().theme).toBe("dark");
    const withBoth = await commandNames();
    expect(withBoth).toEqual(expect.arrayContaining(["alpha-cmd", "beta-cmd"]));
    expect((await xcsh(["config", "list"])).stdout).toContain("[x] ext/alpha.ts");
  }, 120_000);

  test("a skill is disabled and enabled the same way", async () => {
    expect((await xcsh(["config", "disable", pkg, "skills", "skills"])).exitCode).toBe(0);
    expect(await commandNames()).not.toContain("skill:toggle-skill");
    expect((await xcsh(["config", "list"])).stdout).toContain("[ ] skills");
    expect((await xcsh(["config", "enable", pkg, "skills", "skills"])).exitCode).toBe(0);
    expect(await commandNames()).toContain("skill:toggle-skill");
  }, 120_000);

  test("an extension an include list left out is enabled by naming it", async () => {
    writeFileSync(settingsFile, JSON.stringify({ theme: "dark", packages: [{ source: pkg, extensions: [], skills: [] }] }, null, 2));
    expect((await xcsh(["config", "list"])).stdout).toContain("[ ] ext/beta.ts");
    expect((await xcsh(["config", "enable", pkg, "extensions", "ext/beta.ts"])).exitCode).toBe(0);
    expect(readSettings().packages).toEqual([{ source: pkg, extensions: ["ext/beta.ts"], skills: [] }]);
    const names = await commandNames();
    expect(names).toContain("beta-cmd");
    expect(names).not.toContain("alpha-cmd");
    writeFileSync(settingsFile, JSON.stringify({ quietStartup: true, theme: "dark", packages: [pkg] }, null, 2));
  }, 120_000);

  test("an unknown resource, kind or package exits 2 naming what exists, and writes nothing", async () => {
    const before = readFileSync(settingsFile, "utf8");
    const resource = await xcsh(["config", "disable", pkg, "extensions", "ext/gamma.ts"]);
    expect(resource.exitCode).toBe(2);
    expect(resource.stderr).toContain('no extensions resource "ext/gamma.ts"');
    expect(resource.stderr).toContain("ext/alpha.ts, ext/beta.ts");
    const kind = await xcsh(["config", "disable", pkg, "widgets", "ext/alpha.ts"]);
    expect(kind.exitCode).toBe(2);
    expect(kind.stderr).toContain("extensions, skills, prompts, themes");
    const source = await xcsh(["config", "disable", "npm:not-declared", "extensions", "ext/alpha.ts"]);
    expect(source.exitCode).toBe(2);
    expect(source.stderr).toContain("npm:not-declared is not declared");
    expect(source.stderr).toContain(`Declared: ${pkg}`);
    const arity = await xcsh(["config", "disable", pkg]);
    expect(arity.exitCode).toBe(2);
    expect(arity.stderr).toContain("takes <source> <kind> <resource>");
    expect(readFileSync(settingsFile, "utf8")).toBe(before);
  }, 60_000);

  test("-l edits the project's settings and leaves the user's alone", async () => {
    const projectSettings = join(fixture.cwd, ".xcsh", "settings.json");
    mkdirSync(join(fixture.cwd, ".xcsh"), { recursive: true });
    writeFileSync(projectSettings, JSON.stringify({ packages: [{ source: pkg, prompts: [] }] }, null, 2));
    const userBefore = readFileSync(settingsFile, "utf8");
    expect((await xcsh(["config", "disable", pkg, "extensions", "ext/beta.ts", "-l"])).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(projectSettings, "utf8")).packages).toEqual([{ source: pkg, prompts: [], extensions: ["-ext/beta.ts"] }]);
    expect(readFileSync(settingsFile, "utf8")).toBe(userBefore);
  }, 60_000);

  test("on a terminal, a bare xcsh config is a list: Space switches a resource, Tab the scope, q leaves the terminal as it was", async () => {
    writeFileSync(settingsFile, JSON.stringify({ quietStartup: true, theme: "dark", packages: [pkg] }, null, 2));
    const pane = XcshPane.start({ args: ["config"], env, cwd: fixture.cwd });
    try {
      await pane.waitFor("[x] extensions ext/beta.ts");
      pane.keys("Down", "Space");
      await pane.waitFor("[ ] extensions ext/beta.ts");
      expect(readSettings().packages).toEqual([{ source: pkg, extensions: ["-ext/beta.ts"] }]);
      expect(readSettings().theme).toBe("dark");
      pane.keys("Tab");
      await pane.waitFor("Package resources: Project");
      pane.keys("Tab");
      await pane.waitFor("Package resources: User");
      pane.keys("Enter");
      await pane.waitFor("[ ] extensions ext/alpha.ts");
      pane.keys("q");
      expect(await pane.waitForExit()).toBe(0);
      expect(pane.sttyAfter()).toBe(pane.sttyBefore());
      expect(readSettings().packages).toEqual([{ source: pkg, extensions: ["-ext/beta.ts", "-ext/alpha.ts"] }]);
      const names = await commandNames();
      expect(names).not.toContain("alpha-cmd");
      expect(names).not.toContain("beta-cmd");
    } finally {
      pane.kill();
    }
  }, 60_000);
});
