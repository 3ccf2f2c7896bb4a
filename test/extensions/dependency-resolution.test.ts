/**
 * Extensions with npm dependencies, loaded by the compiled binary, whose own
 * resolver finds a package only by its index.js (issue #21). Each extension
 * reports what its dependencies' code said, so the tests see which file of each
 * package ran — the same files plain `bun` picks (dependency-corpus.ts says
 * which) — and that a dependency importing pi-tui gets xcsh's own instance.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";
import { EXPECTED_REPORT, writeDependencyCorpus } from "./dependency-corpus.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterAll(() => fixture.cleanup());

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [relativePath, content] of Object.entries(files)) {
    const path = join(root, relativePath);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }
}

async function runCommand(rpc: ReturnType<ExtensionFixture["start"]>, command: string): Promise<string> {
  const before = notices(rpc).length;
  expect(await rpc.request({ type: "prompt", message: `/${command}` })).toMatchObject({ success: true });
  await rpc.waitFor(() => notices(rpc).length > before);
  return notices(rpc)[before]!;
}

describe("dependencies laid out by npm", () => {
  test("every kind of package loads, each picking the file Node and Bun pick, and pi-tui is xcsh's own from any dependency", async () => {
    const entry = writeDependencyCorpus(join(fixture.home.home, "project"));
    const rpc = fixture.start(withExtensions(entry));
    expect((await rpc.request({ type: "get_commands" })).data.commands.map((command: any) => command.name)).toEqual(["deps"]);
    expect(rpc.ofType("extension_error")).toEqual([]);
    expect(JSON.parse(await runCommand(rpc, "deps"))).toEqual(EXPECTED_REPORT);
    expect(await rpc.close()).toBe(0);
  });

  test("the issue's case: a package whose main is lib.js, imported by an extension in its own folder", async () => {
    const root = join(fixture.home.home, "issue-case");
    writeFiles(root, {
      "node_modules/p/package.json": JSON.stringify({ name: "p", version: "1.0.0", main: "lib.js" }),
      "node_modules/p/lib.js": `export const greeting = "hello from p/lib.js";`,
      "index.ts": `import { greeting } from "p";\nexport default function (pi) { pi.registerCommand("greet", { handler: async (_a, ctx) => ctx.ui.notify(greeting) }); }`,
    });
    const rpc = fixture.start(withExtensions(join(root, "index.ts")));
    expect(await runCommand(rpc, "greet")).toBe("hello from p/lib.js");
    expect(rpc.ofType("extension_error")).toEqual([]);
    expect(await rpc.close()).toBe(0);
  });

  test("a CommonJS extension requires its dependencies, one of them an ES module in TypeScript behind an exports map", async () => {
    const root = join(fixture.home.home, "cjs-extension");
    writeFiles(root, {
      "node_modules/yaml-ish/package.json": JSON.stringify({ name: "yaml-ish", version: "2.0.0", main: "./dist/index.js" }),
      "node_modules/yaml-ish/dist/index.js": `exports.parse = (text) => Object.fromEntries(text.split("\\n").map((line) => line.split(": ")));`,
      "node_modules/ts-exports/package.json": JSON.stringify({ name: "ts-exports", version: "1.0.0", type: "module", exports: { ".": "./src/index.ts" } }),
      "node_modules/ts-exports/src/index.ts": `import type { Nothing } from "./types.ts";\nexport const shout = (text: string): string => text.toUpperCase() + "!";`,
      "node_modules/ts-exports/src/types.ts": `export type Nothing = never;`,
      "extension.cjs": `const { parse } = require("yaml-ish");
const { shout } = require("ts-exports");
module.exports = function (pi) {
  pi.registerCommand("parse", { handler: async (_a, ctx) => ctx.ui.notify(shout(parse("name: xcsh").name)) });
};`,
    });
    const rpc = fixture.start(withExtensions(join(root, "extension.cjs")));
    expect(await runCommand(rpc, "parse")).toBe("XCSH!");
    expect(rpc.ofType("extension_error")).toEqual([]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("xcsh's own packages", () => {
  test("a module of a host package that xcsh does not serve is refused by name, never loaded from the copy on disk", async () => {
    const root = join(fixture.home.home, "unserved");
    const UNSERVED = "@earendil-works/pi-coding-agent/dist/theme.js";
    writeFiles(root, {
      // npm installs pi as a peer dependency: its files are on disk
      "node_modules/@earendil-works/pi-coding-agent/package.json": JSON.stringify({ name: "@earendil-works/pi-coding-agent", version: "0.87.1", type: "module", main: "dist/index.js" }),
      "node_modules/@earendil-works/pi-coding-agent/dist/theme.js": `export const internal = "the copy on disk";`,
      "node_modules/cjs-dep/package.json": JSON.stringify({ name: "cjs-dep", main: "dep.js" }),
      "node_modules/cjs-dep/dep.js": `module.exports = () => require("${UNSERVED}").internal;`,
      "static.ts": `import { internal } from "${UNSERVED}";\nexport default function (pi) { pi.registerCommand("never", { handler: async () => internal }); }`,
      "guarded.ts": `import viaRequire from "cjs-dep";
export default function (pi) { pi.registerCommand("guarded", { handler: async (_a, ctx) => {
  const outcomes = [];
  try { outcomes.push((await import("${UNSERVED}")).internal); } catch (error) { outcomes.push(error.message); }
  try { outcomes.push(viaRequire()); } catch (error) { outcomes.push(error.message); }
  ctx.ui.notify(JSON.stringify(outcomes));
} }); }`,
    });
    const rpc = fixture.start(withExtensions(join(root, "static.ts"), join(root, "guarded.ts")));
    const outcomes: string[] = JSON.parse(await runCommand(rpc, "guarded"));
    const [loadError] = rpc.ofType("extension_error");
    for (const message of [loadError.error, ...outcomes]) {
      expect(message).toContain(`Cannot load '${UNSERVED}': xcsh serves @earendil-works/pi-coding-agent from inside itself`);
      expect(message).not.toContain("the copy on disk");
    }
    expect(loadError.extensionPath).toBe(join(root, "static.ts"));
    expect(await rpc.close()).toBe(0);
  });
});

describe("when a dependency is missing or broken", () => {
  test("a missing package is a load error naming it and saying to install the dependencies; the other extension loads", async () => {
    const root = join(fixture.home.home, "missing");
    writeFiles(root, {
      "broken.ts": `import { thing } from "not-installed-pkg";\nexport default function (pi) { pi.registerCommand("never", { handler: async () => thing }); }`,
      "node_modules/present/package.json": JSON.stringify({ name: "present", main: "present.js", dependencies: { "absent-transitive": "1" } }),
      "node_modules/present/present.js": `module.exports = require("absent-transitive");`,
      "transitive.ts": `import present from "present";\nexport default function (pi) { pi.registerCommand("never2", { handler: async () => present }); }`,
      "good.ts": `export default function (pi) { pi.registerCommand("fine", { handler: async (_a, ctx) => ctx.ui.notify("fine") }); }`,
    });
    const paths = ["broken.ts", "transitive.ts", "good.ts"].map((name) => join(root, name));
    const rpc = fixture.start(withExtensions(...paths));
    expect((await rpc.request({ type: "get_commands" })).data.commands.map((command: any) => command.name)).toEqual(["fine"]);
    const errors = rpc.ofType("extension_error");
    expect(errors.map((frame) => frame.extensionPath)).toEqual(paths.slice(0, 2));
    expect(errors[0].error).toContain("Cannot find package 'not-installed-pkg'");
    expect(errors[0].error).toContain("install the extension's dependencies");
    expect(errors[0].error).toContain(paths[0]);
    expect(errors[0].error).not.toContain("?"); // the importer is named as the user wrote it
    expect(errors[1].error).toContain("absent-transitive");
    expect(errors[1].error).toContain("install the extension's dependencies");
    expect(await rpc.close()).toBe(0);
  });

  test("a dependency's unreadable package.json is named in the load error", async () => {
    const root = join(fixture.home.home, "bad-manifest");
    writeFiles(root, {
      "node_modules/bad/package.json": `{ "name": "bad", "main": `,
      "index.ts": `import bad from "bad";\nexport default function (pi) {}`,
    });
    const rpc = fixture.start(withExtensions(join(root, "index.ts")));
    await rpc.request({ type: "get_state" });
    const [error] = rpc.ofType("extension_error");
    expect(error.error).toContain(`Invalid package.json at ${join(root, "node_modules", "bad", "package.json")}`);
    expect(await rpc.close()).toBe(0);
  });

  test("a dependency installed after start is found when the extensions reload", async () => {
    const root = join(fixture.home.home, "late-install");
    writeFiles(root, {
      "reloader.ts": `export default function (pi) { pi.registerCommand("reload-runtime", { handler: async (_a, ctx) => { await ctx.reload(); } }); }`,
      "late.ts": `import { late } from "late-dep";\nexport default function (pi) { pi.on("session_start", (_e, ctx) => ctx.ui.notify(late)); }`,
    });
    const rpc = fixture.start(withExtensions(join(root, "reloader.ts"), join(root, "late.ts")));
    await rpc.request({ type: "get_state" });
    expect(rpc.ofType("extension_error")[0].error).toContain("late-dep");
    writeFiles(root, {
      "node_modules/late-dep/package.json": JSON.stringify({ name: "late-dep", exports: { import: "./late.mjs" } }),
      "node_modules/late-dep/late.mjs": `export const late = "late-dep loaded";`,
    });
    await rpc.request({ type: "prompt", message: "/reload-runtime" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message === "late-dep loaded");
    expect(await rpc.close()).toBe(0);
  });
});

describe("start-up cost", () => {
  const RESOLUTION = "xcsh: loaded extensions/resolve";
  const LEXER = "xcsh: loaded es-module-lexer";
  const run = (args: string[]) => {
    fixture.server.enqueue({ content: [{ type: "text", text: "ok" }] });
    return runXcsh(["-p", "hi", "--model", "fake/fake-model", ...args], { env: { ...fixture.home.env, XCSH_TRACE_LOAD: "1" }, cwd: fixture.cwd });
  };

  test("resolution loads only with an extension, and the lexer only for one that imports files or packages", async () => {
    const hostOnly = fixture.writeExtension(
      "host-only.ts",
      `import { Type } from "typebox";\nimport { keyHint } from "@mariozechner/pi-coding-agent";\nexport default function (pi) { pi.on("session_start", () => [Type, keyHint]); }`,
    );
    const withDependency = fixture.writeExtension("with-dep/index.ts", `import { value } from "./value.ts";\nexport default function (pi) { pi.on("session_start", () => value); }`);
    fixture.writeExtension("with-dep/value.ts", `export const value = 1;`);

    const none = await run([]);
    const small = await run(["-e", hostOnly]);
    const larger = await run(["-e", withDependency]);

    expect([none, small, larger].map((result) => [result.exitCode, result.stdout.trim()])).toEqual([
      [0, "ok"],
      [0, "ok"],
      [0, "ok"],
    ]);
    expect(none.stderr).not.toContain(RESOLUTION);
    expect(small.stderr).toContain(RESOLUTION);
    expect(small.stderr).not.toContain(LEXER);
    expect(larger.stderr).toContain(LEXER);
  });
});
