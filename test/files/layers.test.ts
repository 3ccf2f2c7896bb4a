/**
 * The layer rule DESIGN.md states for auth/: config/ asks it for credentials, and auth/
 * never imports config/ (nor anything above it). What both need — where the config root
 * is, private atomic writes, JSON files checked against a schema — lives in files/, below
 * both, and files/ imports neither.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "..", "src");

/** Every folder of src/ that a .ts file in `folder` imports from (static, dynamic and require). */
function importedFolders(folder: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const entry of readdirSync(join(SRC, folder), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from\s+|import\(\s*|require\(\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = relative(SRC, resolve(entry.parentPath, match[1])).split("/")[0];
      found.set(target, [...(found.get(target) ?? []), relative(SRC, file)]);
    }
  }
  return found;
}

describe("layers", () => {
  test("auth/ imports nothing from config/ or the layers above it", () => {
    const imported = importedFolders("auth");
    for (const above of ["config", "core", "modes", "cli", "extensions", "session", "tools", "packages", "mcp", "sandbox"]) {
      expect(imported.get(above) ?? [], `auth/ imports ${above}/`).toEqual([]);
    }
  });

  test("nothing below the modes imports modes/ (the built-in themes headless extensions draw with live in resources/)", () => {
    for (const below of ["core", "codemode", "agent", "session", "tools", "extensions", "resources", "config", "packages", "mcp", "sandbox", "auth", "ai", "files"]) {
      expect(importedFolders(below).get("modes") ?? [], `${below}/ imports modes/`).toEqual([]);
    }
  });

  test("ai/, the bottom layer, imports nothing of xcsh but schema/ (a typed service's error is made one line there without tools/inert-text)", () => {
    expect([...importedFolders("ai").keys()].filter((folder) => folder !== "ai" && folder !== "schema")).toEqual([]);
  });

  test("files/ imports neither auth/ nor config/", () => {
    const imported = importedFolders("files");
    expect(imported.get("auth") ?? []).toEqual([]);
    expect(imported.get("config") ?? []).toEqual([]);
  });
});
