/**
 * Every name pi 1.6.0's public modules export is there for an extension running
 * in the built binary, under the same specifier. The reference is the packages
 * themselves (devDependency `pi-coding-agent-160`, an alias of
 * @earendil-works/pi-coding-agent@1.6.0, with its pi-ai, pi-tui and
 * pi-agent-core): their `exports` maps name the modules, `Object.keys` of each
 * names the exports — so a new pi version is one alias bump away, with no list
 * to regenerate. A name xcsh serves only as a "not supported" stand-in must be
 * one unsupported-names.ts lists (and docs/extensions.md explains).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AGENT_CORE_UNSUPPORTED, CODING_AGENT_UNSUPPORTED, PI_AI_UNSUPPORTED, unsupportedNames } from "../../src/extensions/unsupported-names.ts";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

const REFERENCE_ROOT = dirname(Bun.resolveSync("pi-coding-agent-160/package.json", import.meta.dir));

/** A package of the reference, as pi-coding-agent 1.6.0 itself resolves it. */
function referencePackage(name: string): { dir: string; exports: Record<string, unknown> | undefined } {
  const manifest = name === "@earendil-works/pi-coding-agent" ? join(REFERENCE_ROOT, "package.json") : Bun.resolveSync(`${name}/package.json`, REFERENCE_ROOT);
  return { dir: dirname(manifest), exports: JSON.parse(readFileSync(manifest, "utf8")).exports };
}

/**
 * The module specifiers of a package's `exports` map. Left out: patterns (`./providers/*`:
 * one module per provider file, not a fixed list), `./package.json`, and pi-coding-agent's
 * `./rpc-entry`, a program that starts pi's RPC mode when imported, not a module of names.
 */
function publicModules(name: string): { specifier: string; file: string }[] {
  const { dir, exports } = referencePackage(name);
  if (!exports) return [{ specifier: name, file: Bun.resolveSync(name, REFERENCE_ROOT) }];
  return Object.entries(exports)
    .filter(([subpath]) => !subpath.includes("*") && subpath !== "./package.json" && subpath !== "./rpc-entry")
    .map(([subpath, target]) => ({
      specifier: subpath === "." ? name : `${name}/${subpath.slice(2)}`,
      file: join(dir, typeof target === "string" ? target : (target as { import: string }).import),
    }));
}

const MODULES = ["@earendil-works/pi-coding-agent", "@earendil-works/pi-ai", "@earendil-works/pi-tui", "@earendil-works/pi-agent-core"].flatMap(publicModules);

const DOCUMENTED_STANDINS = new Set([
  ...unsupportedNames(CODING_AGENT_UNSUPPORTED),
  ...unsupportedNames(PI_AI_UNSUPPORTED),
  ...unsupportedNames(AGENT_CORE_UNSUPPORTED),
]);

/** An extension that imports every module statically and reports, per module, its names and which are stand-ins. */
function reporterExtension(): string {
  const imports = MODULES.map((module, index) => `import * as m${index} from ${JSON.stringify(module.specifier)};`).join("\n");
  const table = MODULES.map((module, index) => `[${JSON.stringify(module.specifier)}, m${index}]`).join(", ");
  return `${imports}
const STANDIN = Symbol.for("xcsh.notSupported");
export default function (pi) {
  const report = {};
  for (const [specifier, namespace] of [${table}]) {
    const names = Object.keys(namespace);
    report[specifier] = { names, standins: names.filter((name) => typeof namespace[name] === "function" && namespace[name][STANDIN] === true) };
  }
  pi.on("session_start", (_event, ctx) => ctx.ui.notify(JSON.stringify(report)));
}`;
}

let fixture: ExtensionFixture;
let served: Record<string, { names: string[]; standins: string[] }>;

beforeAll(async () => {
  fixture = createExtensionFixture();
  const rpc = fixture.start(withExtensions(fixture.writeExtension("exports.ts", reporterExtension())));
  await rpc.waitFor((frame) => frame.method === "notify", 30_000);
  served = JSON.parse(notices(rpc)[0]!);
  await rpc.close();
});
afterAll(() => fixture.cleanup());

describe("pi 1.6.0's public modules, as an extension in the binary sees them", () => {
  test("the reference lists the modules the brief names", () => {
    expect(MODULES.map((module) => module.specifier)).toEqual(
      expect.arrayContaining(["@earendil-works/pi-coding-agent", "@earendil-works/pi-ai", "@earendil-works/pi-ai/models", "@earendil-works/pi-tui", "@earendil-works/pi-agent-core"]),
    );
  });

  for (const module of MODULES) {
    test(`${module.specifier}: every exported name is there`, async () => {
      const reference = Object.keys(await import(module.file));
      // The roots export dozens of names: an empty list would mean the reference did not load.
      if (module.specifier === "@earendil-works/pi-coding-agent") expect(reference.length).toBeGreaterThan(100);
      const names = new Set(served[module.specifier]?.names ?? []);
      expect(reference.filter((name) => !names.has(name))).toEqual([]);
    });

    test(`${module.specifier}: a name served as a stand-in is a documented one`, () => {
      expect((served[module.specifier]?.standins ?? []).filter((name) => !DOCUMENTED_STANDINS.has(name))).toEqual([]);
    });
  }
});
