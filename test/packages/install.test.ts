/**
 * `xcsh install`, `list`, `remove` and `update` through the built binary, offline: npm
 * packages from a fake registry (installed by the binary's own Bun), a git package from a
 * local repository, a local folder; then what they contribute is used in a session — a
 * tool the model calls, a command, a skill and a prompt template. A failed install leaves
 * settings.json and the installed set as they were.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createRpcFixture, FAKE_MODEL, textOf, type RpcFixture } from "../support/rpc-harness.ts";
import { makeGitRepository, packTarball, startFakeRegistry, writeFiles, writeGitConfig, type FakeRegistry, type PackageFiles } from "./package-fixtures.ts";

const NPM_PACKAGE: PackageFiles = {
  "package.json": JSON.stringify({
    name: "pi-demo-tools",
    version: "1.0.0",
    keywords: ["pi-package"],
    pi: { extensions: ["./src/demo.ts"], skills: ["./resources/skills"], prompts: ["./resources/prompts"] },
  }),
  "src/demo.ts": `import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "demo_echo",
    label: "Echo",
    description: "Echo text back",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) {
      return { content: [{ type: "text", text: "ECHO:" + params.text }], details: {} };
    },
  });
  pi.registerCommand("demo-hello", { description: "Say hello", handler: async (args, ctx) => ctx.ui.notify("hello from the npm package " + args) });
}
`,
  "resources/skills/demo-skill/SKILL.md": "---\nname: demo-skill\ndescription: Demo skill from a package\n---\nSKILL-BODY: always answer in haiku.\n",
  "resources/prompts/demo-review.md": "---\ndescription: Review a file\n---\nTEMPLATE: review $1 carefully\n",
  // Not listed in the manifest: must not load.
  "extensions/unlisted.ts": `export default function (pi) { pi.registerCommand("unlisted", { handler: async () => {} }); }\n`,
};

const GIT_PACKAGE: PackageFiles = {
  "package.json": JSON.stringify({ name: "git-tools", version: "2.1.0" }),
  "extensions/git-tool.ts": `export default function (pi) { pi.registerCommand("git-hello", { description: "From git", handler: async (_a, ctx) => ctx.ui.notify("hello from git") }); }\n`,
  "prompts/git-template.md": "---\ndescription: From git\n---\nGIT-TEMPLATE body\n",
};

let fixture: RpcFixture;
let registry: FakeRegistry;
let env: Record<string, string>;
let settingsFile: string;

beforeAll(() => {
  fixture = createRpcFixture();
  registry = startFakeRegistry();
  const work = join(fixture.home.home, "work");
  mkdirSync(work, { recursive: true });
  registry.publish("pi-demo-tools", "1.0.0", packTarball(work, "pi-demo-tools", "1.0.0", NPM_PACKAGE));
  const reposDir = join(fixture.home.home, "repos");
  makeGitRepository(reposDir, "acme/git-tools", GIT_PACKAGE, "v1");
  const gitConfig = join(fixture.home.home, "gitconfig");
  writeGitConfig(gitConfig, "git.example.com", reposDir);
  // Into the fixture's own env, so RPC sessions (fixture.start) see the fake registry too.
  env = Object.assign(fixture.home.env, {
    NPM_CONFIG_REGISTRY: registry.url,
    BUN_INSTALL_CACHE_DIR: join(fixture.home.home, "bun-cache"),
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: "1",
  });
  settingsFile = join(fixture.home.agentDir, "settings.json");
});
afterAll(async () => {
  registry.stop();
  await fixture.cleanup();
});

const xcsh = (args: string[]) => runXcsh(args, { env, cwd: fixture.cwd, timeoutMs: 120_000 });
const readSettings = () => JSON.parse(readFileSync(settingsFile, "utf8"));
const startSession = () => {
  const rpc = fixture.start(["--model", FAKE_MODEL]);
  return rpc;
};

describe("npm packages", () => {
  test("a 404 from the registry fails the install, naming the package, and changes nothing", async () => {
    writeFileSync(settingsFile, JSON.stringify({ quietStartup: true }, null, 2));
    const before = readFileSync(settingsFile, "utf8");
    const result = await xcsh(["install", "npm:no-such-package"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Cannot install npm:no-such-package: the registry has no package named "no-such-package"');
    expect(readFileSync(settingsFile, "utf8")).toBe(before);
    expect(existsSync(join(fixture.home.agentDir, "npm", "node_modules", "no-such-package"))).toBe(false);
    expect(registry.requests).toContain("/no-such-package");
  }, 150_000);

  test("a dependency the registry does not have is named as the dependency, not as the package asked for", async () => {
    const work = join(fixture.home.home, "work");
    const manifest = { name: "pi-needs-gone", version: "1.0.0", dependencies: { "gone-dependency": "^1.0.0" } };
    registry.publish("pi-needs-gone", "1.0.0", packTarball(work, "pi-needs-gone", "1.0.0", { "package.json": JSON.stringify(manifest) }), manifest.dependencies);
    const before = readFileSync(settingsFile, "utf8");
    const result = await xcsh(["install", "npm:pi-needs-gone"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Cannot install npm:pi-needs-gone: it depends on "gone-dependency", which the registry does not have');
    expect(result.stderr).not.toContain('no package named "pi-needs-gone"');
    expect(readFileSync(settingsFile, "utf8")).toBe(before);
  }, 150_000);

  test("the package manager xcsh runs (npmCommand) gets no provider key from xcsh's environment", async () => {
    const work = join(fixture.home.home, "work");
    const envFile = join(work, "npm-env.txt");
    const standIn = join(work, "fake-npm.sh");
    writeFileSync(standIn, `#!/bin/sh\nenv > ${envFile}\nexit 1\n`, { mode: 0o755 });
    const before = existsSync(settingsFile) ? readFileSync(settingsFile, "utf8") : "{}";
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(before), npmCommand: [standIn] }, null, 2));
    try {
      const result = await runXcsh(["install", "npm:pi-demo-tools"], {
        env: { ...env, ANTHROPIC_API_KEY: "sk-ant-must-not-leak", GROQ_API_KEY: "gsk-must-not-leak" },
        cwd: fixture.cwd,
        timeoutMs: 120_000,
      });
      expect(result.exitCode).toBe(1);
      const seen = readFileSync(envFile, "utf8");
      expect(seen).toContain("NPM_CONFIG_REGISTRY="); // the registry setting still reaches it
      expect(seen).not.toContain("must-not-leak");
    } finally {
      writeFileSync(settingsFile, before);
    }
  }, 150_000);

  test("a version the registry does not have is named as such; settings unchanged", async () => {
    const before = readFileSync(settingsFile, "utf8");
    const result = await xcsh(["install", "npm:pi-demo-tools@9.9.9"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('"pi-demo-tools" has no version matching "9.9.9"');
    expect(readFileSync(settingsFile, "utf8")).toBe(before);
    expect(existsSync(join(fixture.home.agentDir, "npm", "node_modules", "pi-demo-tools"))).toBe(false);
  }, 150_000);

  test("install declares the package in settings.json, keeps the other keys, and list shows its version", async () => {
    const result = await xcsh(["install", "npm:pi-demo-tools"]);
    expect(result.stderr).toContain("Installing npm:pi-demo-tools");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Installed npm:pi-demo-tools (1.0.0) for the user");
    expect(readSettings()).toEqual({ quietStartup: true, packages: ["npm:pi-demo-tools"] });
    expect(existsSync(join(fixture.home.agentDir, "npm", "node_modules", "pi-demo-tools", "src", "demo.ts"))).toBe(true);
    const list = await xcsh(["list"]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain("npm:pi-demo-tools  installed 1.0.0");
  }, 150_000);

  test("the package's tool, command, skill and prompt template work in a session", async () => {
    const rpc = startSession();
    const commands = (await rpc.request({ type: "get_commands" }, 20_000)).data.commands;
    const names = commands.map((command: any) => command.name);
    expect(names).toEqual(expect.arrayContaining(["demo-hello", "demo-review", "skill:demo-skill"]));
    expect(names).not.toContain("unlisted");

    await rpc.request({ type: "prompt", message: "/demo-hello Ada" });
    expect((await rpc.waitFor((frame) => frame.method === "notify")).message).toBe("hello from the npm package Ada");

    const before = fixture.server.requests.length;
    fixture.server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "demo_echo", arguments: { text: "ping" } }] }, { content: [{ type: "text", text: "done" }] });
    await rpc.request({ type: "prompt", message: "echo ping" });
    const end = await rpc.waitForEvent("tool_execution_end", () => true, 20_000);
    expect(end).toMatchObject({ toolName: "demo_echo", isError: false });
    await rpc.waitForEvent("agent_end", () => true, 20_000);
    expect(fixture.server.requests[before]!.body.tools.map((tool: any) => tool.function.name)).toContain("demo_echo");
    expect(JSON.stringify(fixture.server.requests[before + 1]!.body.messages)).toContain("ECHO:ping");
    expect(fixture.server.requests[before]!.body.messages[0].content).toContain("demo-skill");

    const agentEnds = rpc.ofType("agent_end").length;
    fixture.server.enqueue({ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] });
    await rpc.request({ type: "prompt", message: "/demo-review src/a.ts" });
    await rpc.waitFor(() => rpc.ofType("agent_end").length > agentEnds, 20_000);
    await rpc.request({ type: "prompt", message: "/skill:demo-skill" });
    await rpc.waitFor(() => rpc.ofType("agent_end").length > agentEnds + 1, 20_000);
    const sent = fixture.server.requests.slice(-2).map((request) => JSON.stringify(request.body.messages.at(-1)));
    expect(sent[0]).toContain("TEMPLATE: review src/a.ts carefully");
    expect(sent[1]).toContain("SKILL-BODY: always answer in haiku.");
    expect(rpc.ofType("extension_error")).toEqual([]);
    expect(await rpc.close()).toBe(0);
  }, 150_000);

  test("the object form of a declaration narrows what loads: [] loads none of a kind", async () => {
    const before = readFileSync(settingsFile, "utf8");
    writeFileSync(settingsFile, JSON.stringify({ quietStartup: true, packages: [{ source: "npm:pi-demo-tools", skills: [], extensions: ["!src/demo.ts"] }] }));
    try {
      const rpc = startSession();
      const names = (await rpc.request({ type: "get_commands" }, 30_000)).data.commands.map((command: any) => command.name);
      expect(names).toContain("demo-review");
      expect(names).not.toContain("skill:demo-skill");
      expect(names).not.toContain("demo-hello");
      expect(await rpc.close()).toBe(0);
    } finally {
      writeFileSync(settingsFile, before);
    }
  }, 150_000);

  test("remove drops the declaration and the installed copy", async () => {
    const result = await xcsh(["remove", "npm:pi-demo-tools"]);
    expect(result.exitCode).toBe(0);
    expect(readSettings()).toEqual({ quietStartup: true, packages: [] });
    expect(existsSync(join(fixture.home.agentDir, "npm", "node_modules", "pi-demo-tools"))).toBe(false);
    expect(readFileSync(join(fixture.home.agentDir, "npm", "package.json"), "utf8")).not.toContain("pi-demo-tools");
    const again = await xcsh(["uninstall", "npm:pi-demo-tools"]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("npm:pi-demo-tools is not declared in");
  }, 150_000);
});

describe("-e with a package source", () => {
  test("-e npm:<name> loads the package for one run without declaring it", async () => {
    const before = readFileSync(settingsFile, "utf8");
    const rpc = fixture.start(["-e", "npm:pi-demo-tools", "--model", FAKE_MODEL]);
    const names = (await rpc.request({ type: "get_commands" }, 30_000)).data.commands.map((command: any) => command.name);
    expect(names).toEqual(expect.arrayContaining(["demo-hello", "demo-review", "skill:demo-skill"]));
    expect(await rpc.close()).toBe(0);
    expect(readFileSync(settingsFile, "utf8")).toBe(before);
    expect(existsSync(join(fixture.home.agentDir, "tmp", "packages", "npm", "node_modules", "pi-demo-tools"))).toBe(true);
  }, 150_000);

  test("-e npm:<missing> fails before the session starts, naming the package", async () => {
    const result = await xcsh(["-e", "npm:no-such-package", "-p", "hi", "--model", FAKE_MODEL]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Cannot install npm:no-such-package: the registry has no package named "no-such-package"');
  }, 150_000);
});

describe("git and local packages", () => {
  test("git:<host>/<owner>/<repo>@<tag> clones into the config root and its conventional folders load", async () => {
    const result = await xcsh(["install", "git:git.example.com/acme/git-tools@v1"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("Cloning https://git.example.com/acme/git-tools at v1");
    const clone = join(fixture.home.agentDir, "git", "git.example.com", "acme", "git-tools");
    expect(existsSync(join(clone, "extensions", "git-tool.ts"))).toBe(true);
    expect(readSettings().packages).toEqual(["git:git.example.com/acme/git-tools@v1"]);
    expect((await xcsh(["list"])).stdout).toContain("git:git.example.com/acme/git-tools@v1  installed 2.1.0 at v1");

    const rpc = startSession();
    const names = (await rpc.request({ type: "get_commands" }, 20_000)).data.commands.map((command: any) => command.name);
    expect(names).toEqual(expect.arrayContaining(["git-hello", "git-template"]));
    await rpc.request({ type: "prompt", message: "/git-hello" });
    expect((await rpc.waitFor((frame) => frame.method === "notify")).message).toBe("hello from git");
    expect(await rpc.close()).toBe(0);

    const update = await xcsh(["update"]);
    expect(update.exitCode).toBe(0);
    expect(update.stdout).toContain("Updated 1 of 1 package");
  }, 150_000);

  test("a git repository that does not exist fails with the source named; nothing is left behind", async () => {
    const before = readFileSync(settingsFile, "utf8");
    const result = await xcsh(["install", "git:git.example.com/acme/nothing-here"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Cannot install git:git.example.com/acme/nothing-here");
    expect(readFileSync(settingsFile, "utf8")).toBe(before);
    expect(existsSync(join(fixture.home.agentDir, "git", "git.example.com", "acme", "nothing-here"))).toBe(false);
  }, 150_000);

  test("-l in an untrusted project is refused; with --trust-project it goes to .xcsh/settings.json", async () => {
    const local = writeFiles(join(fixture.home.home, "local-pkg"), {
      "package.json": JSON.stringify({ name: "local-pkg", version: "0.1.0" }),
      "prompts/local-tpl.md": "LOCAL body\n",
      "extensions/local.ts": `export default function (pi) { pi.registerCommand("local-cmd", { handler: async () => {} }); }\n`,
    });
    const projectSettings = join(fixture.cwd, ".xcsh", "settings.json");
    const refused = await xcsh(["install", "-l", local]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("is not trusted");
    expect(existsSync(projectSettings)).toBe(false);

    const accepted = await xcsh(["install", "-l", local, "--trust-project"]);
    expect(accepted.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(projectSettings, "utf8")).packages).toEqual([local]);
    const list = await xcsh(["list"]);
    expect(list.stdout).toContain("not loaded: the project is not trusted");

    // Declared, but nothing of it loads until the project is trusted.
    const untrusted = fixture.start(["--model", FAKE_MODEL]);
    const hidden = (await untrusted.request({ type: "get_commands" }, 30_000)).data.commands.map((command: any) => command.name);
    expect(hidden).not.toContain("local-cmd");
    expect(hidden).not.toContain("local-tpl");
    expect(await untrusted.close()).toBe(0);
    const trusted = fixture.start(["--trust-project", "--model", FAKE_MODEL]);
    const shown = (await trusted.request({ type: "get_commands" }, 30_000)).data.commands.map((command: any) => command.name);
    expect(shown).toEqual(expect.arrayContaining(["local-cmd", "local-tpl"]));
    expect(await trusted.close()).toBe(0);
  }, 150_000);

  test("a declared package that is not installed is reported with the command that installs it", async () => {
    const before = readFileSync(settingsFile, "utf8");
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(before), packages: [...JSON.parse(before).packages, "npm:never-installed"] }));
    try {
      const rpc = fixture.start(["--model", FAKE_MODEL]);
      const errors = await rpc.waitForEvent("extension_error", () => true, 30_000).then(() => rpc.ofType("extension_error"));
      expect(JSON.stringify(errors)).toContain("Package npm:never-installed (user settings) is not installed: run xcsh install npm:never-installed");
      await rpc.close();
    } finally {
      writeFileSync(settingsFile, before);
    }
  }, 150_000);

  test("without git on PATH, or without a reachable registry, the message says so", async () => {
    const before = readFileSync(settingsFile, "utf8");
    const noGit = await runXcsh(["install", "git:git.example.com/acme/git-tools"], { env: { ...env, PATH: "/nonexistent" }, cwd: fixture.cwd, timeoutMs: 60_000 });
    expect(noGit.exitCode).toBe(1);
    expect(noGit.stderr).toContain("Cannot install git:git.example.com/acme/git-tools: git is not installed");
    const offline = await runXcsh(["install", "npm:pi-demo-tools"], { env: { ...env, NPM_CONFIG_REGISTRY: "http://127.0.0.1:1/" }, cwd: fixture.cwd, timeoutMs: 60_000 });
    expect(offline.exitCode).toBe(1);
    expect(offline.stderr).toContain("Cannot install npm:pi-demo-tools: the registry could not be reached");
    expect(readFileSync(settingsFile, "utf8")).toBe(before);
  }, 150_000);

  test("malformed sources and options are usage errors", async () => {
    const bad = await xcsh(["install", "npm:"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("is not an npm package name");
    const none = await xcsh(["install"]);
    expect(none.exitCode).toBe(2);
    const option = await xcsh(["list", "--bogus"]);
    expect(option.exitCode).toBe(2);
    expect(option.stderr).toContain("unknown option --bogus");
  }, 150_000);
});
