import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createFindTool, type FindToolInput } from "../../src/tools/find.ts";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "xcsh-find-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeTree(paths: string[]): Promise<void> {
  for (const path of paths) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), "");
  }
}

async function find(params: FindToolInput, signal?: AbortSignal) {
  const result = await createFindTool(root).execute("call-1", params, signal);
  const first = result.content[0];
  return { text: first.type === "text" ? first.text : "", details: result.details };
}

describe("find", () => {
  test("a pattern without a slash matches names at any depth, sorted", async () => {
    await writeTree(["z.ts", "src/b.ts", "src/a.js", "src/lib/deep/c.ts", "A.ts"]);
    const { text, details } = await find({ pattern: "*.ts" });
    expect(text).toBe("A.ts\nsrc/b.ts\nsrc/lib/deep/c.ts\nz.ts");
    expect(details).toBeUndefined();
  });

  test("a pattern with a slash matches paths from the search directory", async () => {
    await writeTree(["src/a.test.ts", "src/x/y/b.test.ts", "src/c.ts", "test/d.test.ts"]);
    expect((await find({ pattern: "src/**/*.test.ts" })).text).toBe("src/a.test.ts\nsrc/x/y/b.test.ts");
    expect((await find({ pattern: "src/*.ts" })).text).toBe("src/a.test.ts\nsrc/c.ts");
    expect((await find({ pattern: "*.{ts,js}", path: "test" })).text).toBe("d.test.ts");
  });

  test("directories match too and end with a slash", async () => {
    await writeTree(["fixtures/a.json", "src/fixtures/b.json"]);
    expect((await find({ pattern: "fixtures" })).text).toBe("fixtures/\nsrc/fixtures/");
  });

  test("leaves out gitignored paths, .git and node_modules, but includes dotfiles", async () => {
    await writeFile(join(root, ".gitignore"), "coverage/\n*.log\n!keep.log\n");
    await writeTree([
      "coverage/index.html",
      "debug.log",
      "keep.log",
      "node_modules/x/package.json",
      ".git/config",
      ".github/workflows/ci.yml",
      "src/index.html",
    ]);
    expect((await find({ pattern: "*" })).text).toBe(
      [".github/", ".github/workflows/", ".github/workflows/ci.yml", ".gitignore", "keep.log", "src/", "src/index.html"].join("\n"),
    );
  });

  test("stops at limit, keeping the first paths in order, and says how to see more", async () => {
    await writeTree(Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, "0")}.txt`));
    const { text, details } = await find({ pattern: "*.txt", limit: 10 });
    const lines = text.split("\n");
    expect(lines.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `f0${i}.txt`));
    expect(text).toContain("[Showing the first 10 results; there are more.");
    expect(text).toContain("limit=20");
    expect(details?.resultLimitReached).toBe(10);
  });

  test("exactly limit results is not reported as more", async () => {
    await writeTree(["a.txt", "b.txt"]);
    const { text, details } = await find({ pattern: "*.txt", limit: 2 });
    expect(text).toBe("a.txt\nb.txt");
    expect(details).toBeUndefined();
  });

  test("says so when nothing matches", async () => {
    await writeTree(["a.txt"]);
    expect((await find({ pattern: "*.rs" })).text).toBe("No files found matching pattern");
  });

  test("a missing path or a file instead of a directory is an error", async () => {
    await writeTree(["a.txt"]);
    await expect(find({ pattern: "*", path: "missing" })).rejects.toThrow(`Path not found: ${join(root, "missing")}`);
    await expect(find({ pattern: "*", path: "a.txt" })).rejects.toThrow("is not a directory");
  });

  test("an aborted signal stops the search", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(find({ pattern: "*" }, controller.signal)).rejects.toThrow("Operation aborted");
  });

  test("custom operations: absolute paths come back relative and sorted, and the limit is passed on", async () => {
    let received: { pattern: string; cwd: string; limit: number; ignore: string[] } | undefined;
    const tool = createFindTool("/remote/project", {
      operations: {
        exists: () => true,
        glob: (pattern, cwd, options) => {
          received = { pattern, cwd, ...options };
          return ["/remote/project/src/b.ts", "a.ts"];
        },
      },
    });
    const result = await tool.execute("call-1", { pattern: "*.ts", limit: 5 });
    expect(result.content).toEqual([{ type: "text", text: "a.ts\nsrc/b.ts" }]);
    expect(received?.cwd).toBe("/remote/project");
    expect(received?.ignore).toContain("**/node_modules/**");
    expect(received?.limit).toBeGreaterThanOrEqual(5);
  });
});
