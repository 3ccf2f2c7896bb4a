import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { discoverExtensions, hasProjectExtensions, type DiscoveryOptions } from "../../src/extensions/discovery.ts";

let root: string;
let agentDir: string;
let cwd: string;

beforeEach(() => {
  // realpath: on macOS tmpdir is a symlink, and sources keep the paths as found.
  root = realpathSync(mkdtempSync(join(tmpdir(), "xcsh-discovery-")));
  agentDir = join(root, "agent");
  cwd = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, content: string | object = "export default function () {}\n"): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

function discover(overrides: Partial<DiscoveryOptions> = {}) {
  return discoverExtensions({
    cwd,
    agentDir,
    cliPaths: [],
    userSettingsPaths: [],
    projectSettingsPaths: [],
    includeProject: true,
    noExtensions: false,
    ...overrides,
  });
}

const paths = (result: ReturnType<typeof discover>) => result.sources.map((source) => source.path);
const userExt = (name: string) => join(agentDir, "extensions", name);
const projectExt = (name: string) => join(cwd, ".xcsh", "extensions", name);

describe("auto-discovered folders", () => {
  test("nothing configured and no folders: no extensions and no errors", () => {
    expect(discover()).toEqual({ sources: [], errors: [] });
  });

  test("user folder: top-level .ts/.js files and subfolders with index.ts or index.js, in name order", () => {
    write(userExt("zeta.ts"));
    write(userExt("alpha.js"));
    write(userExt("mid/index.ts"));
    write(userExt("js-only/index.js"));
    const result = discover();
    expect(paths(result)).toEqual([userExt("alpha.js"), userExt("js-only/index.js"), userExt("mid/index.ts"), userExt("zeta.ts")]);
    expect(result.sources[0]).toEqual({ path: userExt("alpha.js"), source: "auto", scope: "user", origin: "top-level", baseDir: join(agentDir, "extensions") });
    expect(result.sources[2]).toMatchObject({ scope: "user", origin: "top-level", baseDir: userExt("mid") });
    expect(result.errors).toEqual([]);
  });

  test("index.ts wins over index.js in the same folder", () => {
    write(userExt("both/index.ts"));
    write(userExt("both/index.js"));
    expect(paths(discover())).toEqual([userExt("both/index.ts")]);
  });

  test("project folder is scoped project and comes before the user folder", () => {
    write(userExt("u.ts"));
    write(projectExt("p.ts"));
    write(projectExt("pdir/index.ts"));
    const result = discover();
    expect(result.sources.map((source) => [source.path, source.scope, source.source])).toEqual([
      [projectExt("p.ts"), "project", "auto"],
      [projectExt("pdir/index.ts"), "project", "auto"],
      [userExt("u.ts"), "user", "auto"],
    ]);
  });

  test("dotfiles, node_modules, declarations, non-code files and helper folders are ignored", () => {
    write(userExt(".hidden.ts"));
    write(userExt(".secret/index.ts"));
    write(userExt("node_modules/dep/index.ts"));
    write(userExt("types.d.ts"));
    write(userExt("README.md"), "# notes");
    write(userExt("data.json"), {});
    write(userExt("helpers/util.ts")); // no index, no manifest: a helper folder
    write(userExt("real.ts"));
    const result = discover();
    expect(paths(result)).toEqual([userExt("real.ts")]);
    expect(result.errors).toEqual([]);
  });

  test("an extensions folder with its own index.ts is one extension", () => {
    write(userExt("index.ts"));
    write(userExt("helper.ts"));
    expect(paths(discover())).toEqual([userExt("index.ts")]);
  });

  test("a package.json next to top-level files (dependencies only) does not hide them", () => {
    write(userExt("package.json"), { name: "my-exts", dependencies: { zod: "^3" } });
    write(userExt("a.ts"));
    expect(paths(discover())).toEqual([userExt("a.ts")]);
  });

  test("hasProjectExtensions says whether .xcsh/extensions holds anything loadable", () => {
    expect(hasProjectExtensions(cwd)).toBe(false);
    write(projectExt("README.md"), "nothing to run");
    write(projectExt("lib/util.ts"));
    expect(hasProjectExtensions(cwd)).toBe(false);
    write(projectExt("tool/index.ts"));
    expect(hasProjectExtensions(cwd)).toBe(true);
  });
});

describe("package.json manifests", () => {
  test('"xcsh.extensions" lists the entries, relative to the package root', () => {
    write(userExt("pkg/package.json"), { name: "pkg", xcsh: { extensions: ["./src/main.ts", "./src/other.ts"] } });
    write(userExt("pkg/src/main.ts"));
    write(userExt("pkg/src/other.ts"));
    write(userExt("pkg/index.ts")); // the manifest wins over the index
    const result = discover();
    expect(result.sources).toEqual([
      { path: userExt("pkg/src/main.ts"), source: "auto", scope: "user", origin: "package", baseDir: userExt("pkg") },
      { path: userExt("pkg/src/other.ts"), source: "auto", scope: "user", origin: "package", baseDir: userExt("pkg") },
    ]);
  });

  test('pi\'s "pi.extensions" works unchanged; "xcsh" wins when both are present', () => {
    write(userExt("pi-pkg/package.json"), { pi: { extensions: ["./src/index.ts"] } });
    write(userExt("pi-pkg/src/index.ts"));
    write(userExt("both/package.json"), { xcsh: { extensions: ["./ours.ts"] }, pi: { extensions: ["./theirs.ts"] } });
    write(userExt("both/ours.ts"));
    write(userExt("both/theirs.ts"));
    expect(paths(discover())).toEqual([userExt("both/ours.ts"), userExt("pi-pkg/src/index.ts")]);
  });

  test("manifest entries may be folders, globs and !exclusions", () => {
    write(userExt("pkg/package.json"), { pi: { extensions: ["extensions", "more/*.ts", "!legacy.ts"] } });
    write(userExt("pkg/extensions/a.ts"));
    write(userExt("pkg/extensions/legacy.ts"));
    write(userExt("pkg/extensions/sub/index.ts"));
    write(userExt("pkg/more/b.ts"));
    write(userExt("pkg/more/notes.md"), "x");
    expect(paths(discover())).toEqual([userExt("pkg/extensions/a.ts"), userExt("pkg/extensions/sub/index.ts"), userExt("pkg/more/b.ts")]);
  });

  test("a listed entry that does not exist is an error naming the package.json; the others still load", () => {
    write(userExt("pkg/package.json"), { xcsh: { extensions: ["./gone.ts", "./here.ts"] } });
    write(userExt("pkg/here.ts"));
    const result = discover();
    expect(paths(result)).toEqual([userExt("pkg/here.ts")]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].path).toBe(userExt("pkg/gone.ts"));
    expect(result.errors[0].error).toContain(userExt("pkg/package.json"));
    expect(result.errors[0].error).toContain("does not exist");
  });

  test("when nothing listed exists, the index file still loads and the error is reported", () => {
    write(userExt("pkg/package.json"), { pi: { extensions: ["./missing.ts"] } });
    write(userExt("pkg/index.ts"));
    const result = discover();
    expect(paths(result)).toEqual([userExt("pkg/index.ts")]);
    expect(result.errors.map((error) => error.path)).toEqual([userExt("pkg/missing.ts")]);
  });

  test("a broken package.json or a malformed list is an error, never a crash", () => {
    write(userExt("broken/package.json"), "{ not json");
    write(userExt("broken/index.ts"));
    write(userExt("badlist/package.json"), { xcsh: { extensions: "./index.ts" } });
    const result = discover();
    expect(paths(result)).toEqual([userExt("broken/index.ts")]);
    expect(result.errors.map((error) => error.path)).toEqual([userExt("badlist/package.json"), userExt("broken/package.json")]);
    expect(result.errors[0].error).toContain('"xcsh.extensions" must be a list of paths');
    expect(result.errors[1].error).toContain("invalid JSON");
  });

  test("a manifest listing its own folder does not loop", () => {
    write(userExt("self/package.json"), { pi: { extensions: ["."] } });
    write(userExt("self/a.ts"));
    expect(paths(discover())).toEqual([userExt("self/a.ts")]);
  });
});

describe("settings paths", () => {
  test("user settings paths resolve from the agent dir, project ones from <cwd>/.xcsh, ~ from home", () => {
    write(join(agentDir, "mine/u.ts"));
    write(join(cwd, ".xcsh/local/p.ts"));
    const home = join(root, "home");
    write(join(home, "h.ts"));
    const savedHome = process.env.HOME;
    process.env.HOME = home;
    try {
      const result = discover({ userSettingsPaths: ["mine/u.ts", "~/h.ts"], projectSettingsPaths: ["local/p.ts"] });
      expect(result.errors).toEqual([]);
      expect(result.sources.map((source) => [source.path, source.scope, source.source])).toEqual([
        [join(cwd, ".xcsh/local/p.ts"), "project", "local"],
        [join(agentDir, "mine/u.ts"), "user", "local"],
        [join(home, "h.ts"), "user", "local"],
      ]);
    } finally {
      if (savedHome === undefined) delete process.env.HOME;
      else process.env.HOME = savedHome;
    }
  });

  test("a settings folder resolves through its manifest, its index, or else its contents", () => {
    write(join(root, "pkg/package.json"), { pi: { extensions: ["./src/x.ts"] } });
    write(join(root, "pkg/src/x.ts"));
    write(join(root, "withindex/index.ts"));
    write(join(root, "bag/one.ts"));
    write(join(root, "bag/two/index.ts"));
    const result = discover({ userSettingsPaths: [join(root, "pkg"), join(root, "withindex"), join(root, "bag")] });
    expect(result.sources.map((source) => [source.path, source.origin])).toEqual([
      [join(root, "pkg/src/x.ts"), "package"],
      [join(root, "withindex/index.ts"), "top-level"],
      [join(root, "bag/one.ts"), "top-level"],
      [join(root, "bag/two/index.ts"), "top-level"],
    ]);
  });

  test("a settings folder is never taken as a package (pi 1.6.0): an index.ts beside prompts/ loads, extensions/ is not looked into", () => {
    write(join(root, "withprompts/index.ts"));
    write(join(root, "withprompts/prompts/p.md"), "hi");
    write(join(root, "layout/extensions/a.ts"));
    write(join(root, "layout/skills/s/SKILL.md"), "---\nname: s\ndescription: d\n---\n");
    const result = discover({ userSettingsPaths: [join(root, "withprompts"), join(root, "layout")] });
    expect(paths(result)).toEqual([join(root, "withprompts/index.ts")]);
    expect(result.errors.map((error) => error.path)).toEqual([join(root, "layout")]);
    expect(result.errors[0].error).toContain('laid out as a package: list it under "packages" instead');
    // The same folders given with -e are packages.
    expect(paths(discover({ cliPaths: [join(root, "withprompts"), join(root, "layout")] }))).toEqual([join(root, "layout/extensions/a.ts")]);
  });

  test("settings come before the auto-discovered folder of the same scope", () => {
    write(userExt("auto.ts"));
    write(join(root, "listed.ts"));
    expect(paths(discover({ userSettingsPaths: [join(root, "listed.ts")] }))).toEqual([join(root, "listed.ts"), userExt("auto.ts")]);
  });

  test("patterns: globs narrow the listed paths, ! excludes (also auto-discovered files), + and - are exact", () => {
    write(join(agentDir, "lib/a.ts"));
    write(join(agentDir, "lib/b.ts"));
    write(join(agentDir, "lib/c.js"));
    write(userExt("auto-keep.ts"));
    write(userExt("auto-off.ts"));
    const result = discover({ userSettingsPaths: ["lib", "*.ts", "!b.ts", "!auto-off.ts", "+lib/b.ts", "-lib/a.ts"] });
    expect(paths(result)).toEqual([join(agentDir, "lib/b.ts"), userExt("auto-keep.ts")]);
    expect(result.errors).toEqual([]);
  });

  test("a missing settings path is an error saying it does not exist", () => {
    const result = discover({ userSettingsPaths: ["nope.ts"] });
    expect(result.sources).toEqual([]);
    expect(result.errors).toEqual([{ path: join(agentDir, "nope.ts"), error: `No extension found at ${join(agentDir, "nope.ts")}: the path does not exist` }]);
  });

  test("a folder with nothing to load is an error saying what was expected", () => {
    write(join(root, "empty/README.md"), "nothing");
    const result = discover({ userSettingsPaths: [join(root, "empty")] });
    expect(result.errors).toEqual([
      {
        path: join(root, "empty"),
        error: `No extension found at ${join(root, "empty")}: expected a .ts/.js file, a folder with index.ts, or a package.json with "xcsh.extensions"`,
      },
    ]);
  });

  test("a file that is not code is an error", () => {
    write(join(root, "notes.md"), "x");
    const result = discover({ userSettingsPaths: [join(root, "notes.md")] });
    expect(result.sources).toEqual([]);
    expect(result.errors[0].error).toStartWith(`Not an extension: ${join(root, "notes.md")}: expected a file ending in .ts, .js`);
  });
});

describe("command-line paths (-e)", () => {
  test("resolve from cwd, scope temporary, and come first", () => {
    write(userExt("u.ts"));
    write(projectExt("p.ts"));
    write(join(cwd, "dev/try.ts"));
    const result = discover({ cliPaths: ["./dev/try.ts"] });
    expect(result.sources.map((source) => [source.path, source.scope])).toEqual([
      [join(cwd, "dev/try.ts"), "temporary"],
      [projectExt("p.ts"), "project"],
      [userExt("u.ts"), "user"],
    ]);
    expect(result.sources[0]).toEqual({ path: join(cwd, "dev/try.ts"), source: "cli", scope: "temporary", origin: "top-level", baseDir: join(cwd, "dev") });
  });

  test("a folder given with -e: manifest, index, or a package's extensions/ folder", () => {
    write(join(cwd, "withindex/index.ts"));
    write(join(cwd, "conventional/package.json"), { name: "conv" });
    write(join(cwd, "conventional/extensions/a.ts"));
    const result = discover({ cliPaths: ["withindex", "conventional"] });
    expect(result.sources.map((source) => [source.path, source.origin, source.baseDir])).toEqual([
      [join(cwd, "withindex/index.ts"), "top-level", join(cwd, "withindex")],
      [join(cwd, "conventional/extensions/a.ts"), "package", join(cwd, "conventional")],
    ]);
  });

  test("a missing -e path is an error, and the rest still load", () => {
    write(userExt("u.ts"));
    const result = discover({ cliPaths: ["./missing.ts"] });
    expect(paths(result)).toEqual([userExt("u.ts")]);
    expect(result.errors).toEqual([{ path: join(cwd, "missing.ts"), error: `No extension found at ${join(cwd, "missing.ts")}: the path does not exist` }]);
  });

  test("npm: and git: sources that reach discovery uninstalled are reported with the install command, not treated as paths", () => {
    const result = discover({ cliPaths: ["npm:@foo/bar", "git:github.com/u/r"] });
    expect(result.sources).toEqual([]);
    expect(result.errors.map((error) => error.path)).toEqual(["npm:@foo/bar", "git:github.com/u/r"]);
    expect(result.errors[0].error).toContain("install it with xcsh install npm:@foo/bar");
  });
});

describe("--no-extensions and untrusted projects", () => {
  test("--no-extensions keeps only the -e paths", () => {
    write(userExt("u.ts"));
    write(projectExt("p.ts"));
    write(join(root, "listed.ts"));
    write(join(cwd, "cli.ts"));
    const result = discover({ noExtensions: true, cliPaths: ["cli.ts"], userSettingsPaths: [join(root, "listed.ts")], projectSettingsPaths: ["nope.ts"] });
    expect(paths(result)).toEqual([join(cwd, "cli.ts")]);
    expect(result.errors).toEqual([]); // settings paths are not even looked at
  });

  test("includeProject false skips the project folder and project settings paths, not user or -e ones", () => {
    write(userExt("u.ts"));
    write(projectExt("p.ts"));
    write(join(cwd, ".xcsh/listed.ts"));
    write(join(cwd, "cli.ts"));
    const result = discover({ includeProject: false, cliPaths: ["cli.ts"], projectSettingsPaths: ["listed.ts", "missing.ts"] });
    expect(paths(result)).toEqual([join(cwd, "cli.ts"), userExt("u.ts")]);
    expect(result.errors).toEqual([]);
  });
});

describe("each extension loads once", () => {
  test("the same file named twice loads once, from the first place that names it", () => {
    write(userExt("shared.ts"));
    const result = discover({ cliPaths: [userExt("shared.ts")], userSettingsPaths: [userExt("shared.ts")] });
    expect(result.sources).toHaveLength(1);
    expect(result.sources[0]).toMatchObject({ path: userExt("shared.ts"), scope: "temporary", source: "cli" });
  });

  test("a symlink to a file found elsewhere counts as the same extension", () => {
    const real = write(join(root, "real/ext.ts"));
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    symlinkSync(real, userExt("linked.ts"));
    write(projectExt("direct.ts"));
    const result = discover({ projectSettingsPaths: [real] });
    expect(paths(result)).toEqual([real, projectExt("direct.ts")]);
  });

  test("a symlinked folder in an extensions folder is followed", () => {
    write(join(root, "shared/tool/index.ts"));
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    symlinkSync(join(root, "shared/tool"), userExt("tool"));
    symlinkSync(join(root, "nowhere"), userExt("dangling.ts"));
    const result = discover();
    expect(paths(result)).toEqual([userExt("tool/index.ts")]);
    expect(result.errors).toEqual([]);
  });
});

describe("never throws", () => {
  // Root reads a folder whatever its mode, so this can only be shown as another user.
  test.skipIf(process.getuid?.() === 0)("an unreadable extensions folder is reported, not thrown", () => {
    write(userExt("u.ts"));
    chmodSync(join(agentDir, "extensions"), 0o000);
    try {
      const result = discover();
      expect(result.sources).toEqual([]);
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0].error).toContain("Cannot read extensions folder");
    } finally {
      chmodSync(join(agentDir, "extensions"), 0o755);
    }
  });

  test("an extensions path that is a file, not a folder, yields nothing", () => {
    write(join(agentDir, "extensions"), "not a folder");
    expect(discover()).toEqual({ sources: [], errors: [] });
  });
});
