/**
 * Extensions with npm dependencies, laid out on disk the way npm and bun
 * install them: a project whose node_modules holds the hoisted packages, an
 * extension folder below it with node_modules of its own, packages nested under
 * the package that needs a different version. Every package's code says which
 * of its files ran, so a test sees which file resolution picked.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

type Files = Record<string, string | object>;

function writeTree(root: string, files: Files): void {
  for (const [relativePath, content] of Object.entries(files)) {
    const path = join(root, relativePath);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
}

/** A package folder: its package.json (name and version added) and its files. */
function pkg(name: string, manifest: object, files: Files): Files {
  const tree: Files = { "package.json": { name, version: "1.0.0", ...manifest } };
  for (const [path, content] of Object.entries(files)) tree[path] = content;
  return tree;
}

function under(prefix: string, files: Files): Files {
  return Object.fromEntries(Object.entries(files).map(([path, content]) => [`${prefix}/${path}`, content]));
}

/** The packages hoisted to the project's node_modules (an ancestor of the extension). */
const HOISTED: Record<string, Files> = {
  // ES module, `main` is not index.js
  "esm-main": pkg("esm-main", { type: "module", main: "dist/main.js" }, { "dist/main.js": `export const where = "esm-main/dist/main.js";` }),
  // CommonJS, `main` is not index.js, with a named export
  "cjs-main": pkg("cjs-main", { main: "lib/entry.js" }, { "lib/entry.js": `exports.where = "cjs-main/lib/entry.js";\nexports.named = 42;` }),
  // conditional exports, subpaths and a pattern
  cond: pkg(
    "cond",
    {
      exports: {
        ".": { import: "./import.mjs", require: "./require.cjs", default: "./default.js" },
        "./sub": { node: "./sub-node.mjs", default: "./sub-default.mjs" },
        "./bun-first": { bun: "./bun.mjs", node: "./node.mjs", default: "./default.mjs" },
        "./features/*": "./features/*.js",
        "./package.json": "./package.json",
      },
    },
    {
      "import.mjs": `export const where = "cond/import.mjs";`,
      "require.cjs": `exports.where = "cond/require.cjs";`,
      "default.js": `exports.where = "cond/default.js";`,
      "sub-node.mjs": `export const where = "cond/sub-node.mjs";`,
      "sub-default.mjs": `export const where = "cond/sub-default.mjs";`,
      "bun.mjs": `export const where = "cond/bun.mjs";`,
      "node.mjs": `export const where = "cond/node.mjs";`,
      "default.mjs": `export const where = "cond/default.mjs";`,
      "features/alpha.js": `module.exports = { where: "cond/features/alpha.js" };`,
    },
  ),
  // `main` wins over `module` (as Bun and Node have it); `module` serves a package without `main`
  "module-field": pkg(
    "module-field",
    { main: "cjs.js", module: "esm.mjs" },
    { "cjs.js": `exports.where = "module-field/cjs.js";`, "esm.mjs": `export const where = "module-field/esm.mjs";` },
  ),
  "module-only": pkg("module-only", { module: "dist/esm.mjs" }, { "dist/esm.mjs": `export const where = "module-only/dist/esm.mjs";` }),
  // `main` names a folder with an index
  "dir-main": pkg("dir-main", { main: "lib" }, { "lib/index.js": `module.exports = { where: "dir-main/lib/index.js" };` }),
  // a→b: `a` gets its own nested b@2, everyone else the hoisted b@1
  a: {
    ...pkg("a", { type: "module", main: "a.js", dependencies: { b: "2" } }, { "a.js": `import { version } from "b";\nexport const where = "a/a.js with b@" + version;` }),
    ...under("node_modules/b", pkg("b", { version: "2.0.0", type: "module", exports: "./b2.js" }, { "b2.js": `export const version = "2";` })),
  },
  b: pkg("b", { type: "module", exports: { ".": "./b1.js" } }, { "b1.js": `export const version = "1";` }),
  // c→b without nesting: gets the hoisted b@1
  c: pkg("c", { main: "c.js" }, { "c.js": `const { version } = require("b");\nmodule.exports = { where: "c/c.js with b@" + version };` }),
  // JSON data, imported by a subpath
  "json-data": pkg("json-data", {}, { "data.json": { where: "json-data/data.json", list: [1, 2, 3] } }),
  // imports itself by name
  "self-ref": pkg(
    "self-ref",
    { type: "module", exports: { ".": "./index.js", "./helper": "./helper.js" } },
    { "index.js": `import { help } from "self-ref/helper";\nexport const where = "self-ref/index.js with " + help;`, "helper.js": `export const help = "self-ref/helper.js";` },
  ),
  // `imports` map: a file of its own and another package
  internal: pkg(
    "internal",
    { type: "module", main: "main.js", imports: { "#internal": "./src/internal.js", "#dep": "esm-main" } },
    {
      "main.js": `import { secret } from "#internal";\nimport { where as dep } from "#dep";\nexport const where = "internal/main.js with " + secret + " and " + dep;`,
      "src/internal.js": `export const secret = "internal/src/internal.js";`,
    },
  ),
  // ships TypeScript; its relative import names the .js its build would have
  "ts-dep": pkg(
    "ts-dep",
    { main: "src/index.ts" },
    {
      "src/index.ts": `import { twice } from "./util.js";\nexport const where: string = "ts-dep/src/index.ts, " + twice(21);`,
      "src/util.ts": `export function twice(value: number): number { return value * 2; }`,
    },
  ),
  // depends on the host's pi-tui, from ES and from CommonJS code
  "tui-user": pkg(
    "tui-user",
    { type: "module", main: "index.js", dependencies: { "@earendil-works/pi-tui": "*" } },
    {
      "index.js": `import { Text } from "@earendil-works/pi-tui";\nimport { createRequire } from "node:module";\nexport const esmText = Text;\nexport const cjsText = createRequire(import.meta.url)("./cjs.cjs").Text;`,
      "cjs.cjs": `module.exports = { Text: require("@mariozechner/pi-tui").Text };`,
    },
  ),
  // a second pi-tui on disk, as a dependency's own install would leave: must never be used
  "@earendil-works/pi-tui": pkg("@earendil-works/pi-tui", { main: "index.js" }, { "index.js": `exports.Text = "the copy on disk";` }),
  "@mariozechner/pi-tui": pkg("@mariozechner/pi-tui", { main: "index.js" }, { "index.js": `exports.Text = "the copy on disk";` }),
  // CommonJS requiring CommonJS whose main is not index.js, and JSON
  "cjs-chain": pkg("cjs-chain", { main: "chain.js" }, { "chain.js": `const leaf = require("cjs-leaf");\nconst data = require("json-data/data.json");\nmodule.exports = "cjs-chain/chain.js with " + leaf.where + " and " + data.list.length;` }),
  "cjs-leaf": pkg("cjs-leaf", { main: "./leaf.js" }, { "leaf.js": `exports.where = "cjs-leaf/leaf.js";` }),
  // CommonJS requiring a package through its `require` condition
  "cjs-cond-user": pkg("cjs-cond-user", { main: "use.js" }, { "use.js": `module.exports = "cjs-cond-user/use.js with " + require("cond").where + " and " + require("cond/features/alpha").where;` }),
  // imported only by a literal dynamic import()
  "lazy-dep": pkg("lazy-dep", { exports: { import: "./lazy.mjs" } }, { "lazy.mjs": `export const where = "lazy-dep/lazy.mjs";` }),
};

/**
 * pnpm's layout: each package's real folder under node_modules/.pnpm, its
 * dependencies linked beside it there, and a link to it at the top.
 */
function writeLinkedPackages(nodeModules: string): void {
  const store = join(nodeModules, ".pnpm");
  writeTree(join(store, "linked@1.0.0/node_modules/linked"), pkg("linked", { main: "lib.js", type: "module" }, { "lib.js": `import { where as dep } from "linked-dep";\nexport const where = "linked/lib.js with " + dep;` }));
  writeTree(join(store, "linked-dep@1.0.0/node_modules/linked-dep"), pkg("linked-dep", { main: "dep.js" }, { "dep.js": `exports.where = "linked-dep/dep.js";` }));
  symlinkSync("../../linked-dep@1.0.0/node_modules/linked-dep", join(store, "linked@1.0.0/node_modules/linked-dep"), "dir");
  symlinkSync(".pnpm/linked@1.0.0/node_modules/linked", join(nodeModules, "linked"), "dir");
}

/** Packages in the extension's own node_modules. */
const OWN: Record<string, Files> = {
  "own-dep": pkg("own-dep", { main: "main.js" }, { "main.js": `module.exports = { where: "own-dep/main.js" };` }),
  // shadows the hoisted b@1 for the extension's own imports (not for the hoisted packages')
  b: pkg("b", { version: "3.0.0", type: "module", main: "b3.js" }, { "b3.js": `export const version = "3";` }),
  "@scope/own-scoped": pkg("@scope/own-scoped", { type: "module", exports: { ".": { default: "./scoped.js" } } }, { "scoped.js": `export const where = "@scope/own-scoped/scoped.js";` }),
};

/** The extension: imports every kind, and reports what each dependency said as JSON through a command. */
const EXTENSION = `
import { Text } from "@earendil-works/pi-tui";
import { where as esmMain } from "esm-main";
import cjsDefault, { named as cjsNamed } from "cjs-main";
import { where as condImport } from "cond";
import { where as condSub } from "cond/sub";
import { where as condBun } from "cond/bun-first";
import alpha from "cond/features/alpha";
import condManifest from "cond/package.json";
import { where as moduleField } from "module-field";
import { where as moduleOnly } from "module-only";
import dirMain from "dir-main";
import { where as aWithB } from "a";
import { version as bVersion } from "b";
import cWithB from "c";
import data from "json-data/data.json" with { type: "json" };
import { where as selfRef } from "self-ref";
import { where as internal } from "internal";
import { where as tsDep } from "ts-dep";
import { esmText, cjsText } from "tui-user";
import ownDep from "own-dep";
import { where as ownScoped } from "@scope/own-scoped";
import { where as linked } from "linked";
import { local } from "./lib/local.js";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export default function (pi) {
  pi.registerCommand("deps", {
    description: "what every dependency said",
    handler: async (_args, ctx) => {
      const lazy = await import("lazy-dep");
      const computedPackage = await import(["lazy", "dep"].join("-"));
      const localFile = "./lib/computed.ts";
      const computedFile = await import(localFile);
      ctx.ui.notify(JSON.stringify({
        esmMain, cjsMain: cjsDefault.where, cjsNamed,
        condImport, condRequire: require("cond").where, condSub, condBun, alpha: alpha.where, condName: condManifest.name,
        moduleFieldImport: moduleField, moduleFieldRequire: require("module-field").where, moduleOnly,
        dirMain: dirMain.where, aWithB, bVersion, cWithB: cWithB.where, json: data.where,
        selfRef, internal, tsDep,
        tuiFromEsmDependency: esmText === Text, tuiFromCjsDependency: cjsText === Text,
        ownDep: ownDep.where, ownScoped, local, linked,
        cjsChain: require("cjs-chain"), cjsCondUser: require("cjs-cond-user"),
        lazy: lazy.where, computedPackage: computedPackage.where, computedFile: computedFile.where,
        requireResolve: require.resolve("esm-main").split("node_modules/")[1],
        metaResolve: import.meta.resolve("esm-main").split("node_modules/")[1],
      }));
    },
  });
}
`;

export const EXPECTED_REPORT = {
  esmMain: "esm-main/dist/main.js",
  cjsMain: "cjs-main/lib/entry.js",
  cjsNamed: 42,
  condImport: "cond/import.mjs",
  condRequire: "cond/require.cjs",
  condSub: "cond/sub-node.mjs",
  condBun: "cond/bun.mjs",
  alpha: "cond/features/alpha.js",
  condName: "cond",
  moduleFieldImport: "module-field/cjs.js",
  moduleFieldRequire: "module-field/cjs.js",
  moduleOnly: "module-only/dist/esm.mjs",
  dirMain: "dir-main/lib/index.js",
  aWithB: "a/a.js with b@2",
  bVersion: "3",
  cWithB: "c/c.js with b@1",
  json: "json-data/data.json",
  selfRef: "self-ref/index.js with self-ref/helper.js",
  internal: "internal/main.js with internal/src/internal.js and esm-main/dist/main.js",
  tsDep: "ts-dep/src/index.ts, 42",
  tuiFromEsmDependency: true,
  tuiFromCjsDependency: true,
  ownDep: "own-dep/main.js",
  ownScoped: "@scope/own-scoped/scoped.js",
  local: "lib/local.ts with own-dep/main.js",
  linked: "linked/lib.js with linked-dep/dep.js",
  cjsChain: "cjs-chain/chain.js with cjs-leaf/leaf.js and 3",
  cjsCondUser: "cjs-cond-user/use.js with cond/require.cjs and cond/features/alpha.js",
  lazy: "lazy-dep/lazy.mjs",
  computedPackage: "lazy-dep/lazy.mjs",
  computedFile: "lib/computed.ts with own-dep/main.js",
  requireResolve: "esm-main/dist/main.js",
  metaResolve: "esm-main/dist/main.js",
};

/**
 * Writes the project under `root` and returns the extension's entry file:
 * `root/node_modules/…` (hoisted) and `root/extensions/deps/` (the extension, its own node_modules).
 */
export function writeDependencyCorpus(root: string): string {
  for (const [name, files] of Object.entries(HOISTED)) writeTree(join(root, "node_modules", name), files);
  writeLinkedPackages(join(root, "node_modules"));
  const extension = join(root, "extensions", "deps");
  for (const [name, files] of Object.entries(OWN)) writeTree(join(extension, "node_modules", name), files);
  writeTree(extension, {
    "package.json": { name: "deps-extension", version: "1.0.0", type: "module", dependencies: { "own-dep": "1" } },
    "index.ts": EXTENSION,
    "lib/local.ts": `import ownDep from "own-dep";\nexport const local = "lib/local.ts with " + ownDep.where;`,
    "lib/computed.ts": `import ownDep from "own-dep";\nexport const where = "lib/computed.ts with " + ownDep.where;`,
  });
  return join(extension, "index.ts");
}
