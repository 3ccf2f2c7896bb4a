import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLsTool, type LsToolInput } from "../../src/tools/ls.ts";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "xcsh-ls-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function ls(params: LsToolInput = {}, signal?: AbortSignal) {
  const result = await createLsTool(root).execute("call-1", params, signal);
  const first = result.content[0];
  return { text: first.type === "text" ? first.text : "", details: result.details };
}

describe("ls", () => {
  test("lists entries alphabetically regardless of case, directories with a slash, dotfiles included", async () => {
    await mkdir(join(root, "src"));
    await mkdir(join(root, "Docs"));
    await mkdir(join(root, ".github"));
    for (const name of ["b.txt", "A.md", "c.ts", ".env", "README"]) await writeFile(join(root, name), "");
    const { text, details } = await ls();
    expect(text).toBe([".env", ".github/", "A.md", "b.txt", "c.ts", "Docs/", "README", "src/"].join("\n"));
    expect(details).toBeUndefined();
  });

  test("lists one level only, and a relative path resolves against the working directory", async () => {
    await mkdir(join(root, "src", "nested"), { recursive: true });
    await writeFile(join(root, "src", "index.ts"), "");
    await writeFile(join(root, "src", "nested", "deep.ts"), "");
    expect((await ls({ path: "src" })).text).toBe("index.ts\nnested/");
  });

  test("a symlink to a directory is shown as a directory; a broken link by its name", async () => {
    await mkdir(join(root, "real"));
    await symlink(join(root, "real"), join(root, "link"));
    await symlink(join(root, "missing"), join(root, "broken"));
    expect((await ls()).text).toBe("broken\nlink/\nreal/");
  });

  test("stops at limit and says how to see the rest", async () => {
    for (let i = 0; i < 12; i++) await writeFile(join(root, `f${String(i).padStart(2, "0")}`), "");
    const { text, details } = await ls({ limit: 5 });
    expect(text.split("\n").slice(0, 5)).toEqual(["f00", "f01", "f02", "f03", "f04"]);
    expect(text).toContain("[Showing 5 of 12 entries. Use limit=12");
    expect(details?.entryLimitReached).toBe(5);
  });

  test("the default limit is 500 entries", async () => {
    await Promise.all(Array.from({ length: 510 }, (_, i) => writeFile(join(root, `f${String(i).padStart(3, "0")}`), "")));
    const { text, details } = await ls();
    expect(text.split("\n").filter((line) => /^f\d{3}$/.test(line))).toHaveLength(500);
    expect(details?.entryLimitReached).toBe(500);
  });

  test("an empty directory says so", async () => {
    expect((await ls()).text).toBe("(empty directory)");
  });

  test("a missing path or a file is an error", async () => {
    await writeFile(join(root, "file.txt"), "");
    await expect(ls({ path: "missing" })).rejects.toThrow(`Path not found: ${join(root, "missing")}`);
    await expect(ls({ path: "file.txt" })).rejects.toThrow(`Not a directory: ${join(root, "file.txt")}`);
  });

  test("an aborted signal stops it", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(ls({}, controller.signal)).rejects.toThrow("Operation aborted");
  });

  test("custom operations list a directory elsewhere", async () => {
    const directories = new Set(["/remote", "/remote/lib"]);
    const tool = createLsTool("/remote", {
      operations: {
        exists: (path) => path.startsWith("/remote"),
        stat: (path) => ({ isDirectory: () => directories.has(path) }),
        readdir: () => ["main.c", "lib", "Makefile"],
      },
    });
    const result = await tool.execute("call-1", {});
    expect(result.content).toEqual([{ type: "text", text: "lib/\nmain.c\nMakefile" }]);
  });
});
