/**
 * Extension tests as a user meets them: extension files written in pi's style
 * to a folder with no node_modules (the temp home), loaded by the built binary
 * through `-e` or the auto-discovered folders, with the fake LLM server as the
 * model. Each helper returns what the test needs to look at.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRpcFixture, type RpcFixture } from "./rpc-harness.ts";

export interface ExtensionFixture extends RpcFixture {
  /** Writes an extension file under `<home>/ext/` and returns its absolute path. */
  writeExtension(relativePath: string, source: string): string;
  /** Writes under the config root's auto-discovered `extensions/` folder. */
  writeUserExtension(relativePath: string, source: string): string;
  /** Writes under the project's `.xcsh/extensions/` folder. */
  writeProjectExtension(relativePath: string, source: string): string;
}

function writeFile(path: string, source: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, source);
  return path;
}

export function createExtensionFixture(options: Parameters<typeof createRpcFixture>[0] = {}): ExtensionFixture {
  const fixture = createRpcFixture(options);
  return {
    ...fixture,
    writeExtension: (relativePath, source) => writeFile(join(fixture.home.home, "ext", relativePath), source),
    writeUserExtension: (relativePath, source) => writeFile(join(fixture.home.agentDir, "extensions", relativePath), source),
    writeProjectExtension: (relativePath, source) => writeFile(join(fixture.cwd, ".xcsh", "extensions", relativePath), source),
  };
}

/** `-e a -e b …` plus the fake model. */
export function withExtensions(...paths: string[]): string[] {
  return [...paths.flatMap((path) => ["-e", path]), "--model", "fake/fake-model"];
}

/** The messages of every `notify` extension UI request so far, in order: how tests read what extensions saw. */
export function notices(rpc: { ofType(type: string): any[] }): string[] {
  return rpc.ofType("extension_ui_request").filter((frame) => frame.method === "notify").map((frame) => frame.message as string);
}
