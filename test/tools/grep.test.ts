import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, readFile, rm, symlink, truncate } from "node:fs/promises";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createGrepTool, type GrepOperations, type GrepToolInput } from "../../src/tools/grep.ts";
import { MAX_SEARCHED_FILE_BYTES } from "../../src/tools/grep-search.ts";
import { GREP_MAX_LINE_LENGTH } from "../../src/tools/truncate.ts";

/** Files enough for grep to start its search workers and still be walking once they are ready. */
const LARGE_TREE_FILES = 6000;

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "xcsh-grep-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Written synchronously, each folder made once: the large trees here hold thousands of files, and a promise per file cost seconds. */
async function writeTree(files: Record<string, string | Buffer>): Promise<void> {
  const made = new Set<string>();
  for (const [path, content] of Object.entries(files)) {
    const folder = dirname(join(root, path));
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    writeFileSync(join(root, path), content);
  }
}

/**
 * A text file one byte over the size grep searches, `text` at its start, then empty lines
 * past the block that tells binary files (a NUL there would make it one), the rest a hole on disk.
 */
async function writeJustTooLarge(path: string, text: string): Promise<void> {
  await writeTree({ [path]: text + "\n".repeat(16 * 1024) });
  await truncate(join(root, path), MAX_SEARCHED_FILE_BYTES + 1);
}

const SKIP_ADVICE = "Search them with rg or grep through bash if they matter.]";

async function grep(params: GrepToolInput, signal?: AbortSignal) {
  const result = await createGrepTool(root).execute("call-1", params, signal);
  const first = result.content[0];
  return { text: first.type === "text" ? first.text : "", details: result.details };
}

describe("grep", () => {
  test("prints path:LINE: text for each match, in path order", async () => {
    await writeTree({
      "src/b.ts": "const beta = 1;\nexport function beta2() {}\n",
      "src/a.ts": "// nothing\nconst alpha = beta;\n",
      "README.md": "no code here\n",
    });
    const { text, details } = await grep({ pattern: "beta\\w*" });
    expect(text).toBe("src/a.ts:2: const alpha = beta;\nsrc/b.ts:1: const beta = 1;\nsrc/b.ts:2: export function beta2() {}");
    expect(details).toBeUndefined();
  });

  test("says so when nothing matches", async () => {
    await writeTree({ "a.txt": "hello\n" });
    expect((await grep({ pattern: "absent" })).text).toBe("No matches found");
  });

  test("context lines are marked with dashes, and separate groups with --", async () => {
    const lines = Array.from({ length: 12 }, (_, i) => (i === 2 || i === 9 ? `match ${i + 1}` : `line ${i + 1}`));
    await writeTree({ "f.txt": `${lines.join("\n")}\n`, "g.txt": "match in g\n" });
    const { text } = await grep({ pattern: "match", context: 1 });
    expect(text).toBe(
      [
        "f.txt-2- line 2",
        "f.txt:3: match 3",
        "f.txt-4- line 4",
        "--",
        "f.txt-9- line 9",
        "f.txt:10: match 10",
        "f.txt-11- line 11",
        "--",
        "g.txt:1: match in g",
      ].join("\n"),
    );
  });

  test("overlapping context merges into one group", async () => {
    await writeTree({ "f.txt": "a\nhit\nb\nhit\nc\n" });
    const { text } = await grep({ pattern: "hit", context: 1 });
    expect(text).toBe("f.txt-1- a\nf.txt:2: hit\nf.txt-3- b\nf.txt:4: hit\nf.txt-5- c");
  });

  test("ignoreCase matches regardless of case", async () => {
    await writeTree({ "f.txt": "Hello\nHELLO\nhello\nhelo\n" });
    expect((await grep({ pattern: "hello" })).text).toBe("f.txt:3: hello");
    expect((await grep({ pattern: "hello", ignoreCase: true })).text).toBe("f.txt:1: Hello\nf.txt:2: HELLO\nf.txt:3: hello");
  });

  test("literal searches for the text as written, regex characters included", async () => {
    await writeTree({ "f.ts": "call(a.b)\ncallXaYb)\n" });
    expect((await grep({ pattern: "call(a.b)", literal: true })).text).toBe("f.ts:1: call(a.b)");
    expect((await grep({ pattern: "CALL(A.B)", literal: true, ignoreCase: true })).text).toBe("f.ts:1: call(a.b)");
  });

  test("an invalid regex is an error that suggests literal", async () => {
    await writeTree({ "f.ts": "x\n" });
    await expect(grep({ pattern: "call(" })).rejects.toThrow(/Invalid regular expression.*literal: true/);
  });

  test("glob without a slash filters names at any depth; with a slash it matches the path", async () => {
    await writeTree({
      "a.ts": "needle\n",
      "a.js": "needle\n",
      "src/deep/b.spec.ts": "needle\n",
      "src/c.ts": "needle\n",
      "test/d.spec.ts": "needle\n",
    });
    expect((await grep({ pattern: "needle", glob: "*.ts" })).text).toBe(
      "a.ts:1: needle\nsrc/c.ts:1: needle\nsrc/deep/b.spec.ts:1: needle\ntest/d.spec.ts:1: needle",
    );
    expect((await grep({ pattern: "needle", glob: "src/**/*.spec.ts" })).text).toBe("src/deep/b.spec.ts:1: needle");
    expect((await grep({ pattern: "needle", glob: "**/*.spec.ts" })).text).toBe("src/deep/b.spec.ts:1: needle\ntest/d.spec.ts:1: needle");
  });

  test("path narrows the search; paths are shown relative to it, and a single file by its name", async () => {
    await writeTree({ "src/lib/x.ts": "token\n", "other.ts": "token\n" });
    expect((await grep({ pattern: "token", path: "src" })).text).toBe("lib/x.ts:1: token");
    expect((await grep({ pattern: "token", path: "src/lib/x.ts" })).text).toBe("x.ts:1: token");
    expect((await grep({ pattern: "token", path: join(root, "other.ts") })).text).toBe("other.ts:1: token");
  });

  test("stops at limit and says how to see more", async () => {
    const body = Array.from({ length: 30 }, (_, i) => `hit ${i + 1}`).join("\n");
    await writeTree({ "a.txt": body, "b.txt": body });
    const { text, details } = await grep({ pattern: "hit", limit: 40 });
    const matchLines = text.split("\n").filter((line) => /^[ab]\.txt:\d+:/.test(line));
    expect(matchLines).toHaveLength(40);
    expect(matchLines.at(-1)).toBe("b.txt:10: hit 10");
    expect(text).toContain("[Showing the first 40 matches; there are more.");
    expect(text).toContain("limit=80");
    expect(details?.matchLimitReached).toBe(40);
  });

  test("the default limit is 100 matches", async () => {
    await writeTree({ "a.txt": Array.from({ length: 150 }, () => "x").join("\n") });
    const { text, details } = await grep({ pattern: "x" });
    expect(text.split("\n").filter((line) => line.startsWith("a.txt:"))).toHaveLength(100);
    expect(details?.matchLimitReached).toBe(100);
  });

  test("exactly limit matches is not reported as more", async () => {
    await writeTree({ "a.txt": "hit\nhit\n", "b.txt": "hit\n" });
    const { text, details } = await grep({ pattern: "hit", limit: 3 });
    expect(text).toBe("a.txt:1: hit\na.txt:2: hit\nb.txt:1: hit");
    expect(details).toBeUndefined();
  });

  test("skips gitignored files, node_modules, .git and binary files", async () => {
    await writeTree({
      ".gitignore": "dist/\n*.gen.ts\n",
      "dist/out.js": "needle\n",
      "types.gen.ts": "needle\n",
      "node_modules/pkg/index.js": "needle\n",
      ".git/HEAD": "needle\n",
      "image.bin": Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2, 3])]),
      "src/keep.ts": "needle\n",
      ".hidden/config": "needle\n",
    });
    expect((await grep({ pattern: "needle" })).text).toBe(".hidden/config:1: needle\nsrc/keep.ts:1: needle");
  });

  test("cuts long lines and says so", async () => {
    const long = `start ${"x".repeat(GREP_MAX_LINE_LENGTH * 2)} end`;
    await writeTree({ "min.js": `${long}\n` });
    const { text, details } = await grep({ pattern: "start" });
    expect(text).toContain("min.js:1: start xxx");
    expect(text).not.toContain(" end");
    expect(text).toContain(`longer than ${GREP_MAX_LINE_LENGTH} characters`);
    expect(details?.linesTruncated).toBe(true);
  });

  test("head-truncates output past 50KB with a notice", async () => {
    const line = `hit ${"y".repeat(400)}`;
    await writeTree({ "big.txt": Array.from({ length: 300 }, () => line).join("\n") });
    const { text, details } = await grep({ pattern: "hit", limit: 1000 });
    expect(details?.truncation?.truncated).toBe(true);
    expect(text).toContain("big.txt:1: hit");
    expect(text).not.toContain("big.txt:300:");
    expect(text).toMatch(/\[Output truncated to \d+ lines .*Narrow the search/);
    expect(Buffer.byteLength(text)).toBeLessThan(52 * 1024);
  });

  test("once the output outgrows 50KB the search stops reading files, and says there are more matches", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`f${String(i).padStart(3, "0")}.txt`] = `hit ${"z".repeat(800)}\n`;
    await writeTree(files);
    let reads = 0;
    const tool = createGrepTool(root, {
      operations: {
        isDirectory: (path) => path === root,
        readFile: (path) => {
          reads++;
          return readFile(path, "utf8");
        },
      },
    });
    const result = await tool.execute("call-1", { pattern: "hit", limit: 1000 });
    const text = result.content[0].type === "text" ? result.content[0].text : "";
    expect(text).toStartWith("f000.txt:1: hit");
    expect(text).toMatch(/\[Output truncated to \d+ lines \(50\.0KB \/ 2000 line limit\) and the search stopped there; there are more matches\./);
    expect(result.details?.matchLimitReached).toBeUndefined();
    // About 100 lines of 500 characters fill 50KB; the reads ahead of the walk add at most a few dozen.
    expect(reads).toBeLessThan(200);
  });

  test("CRLF files show lines without the carriage return and $ still anchors", async () => {
    await writeTree({ "win.txt": "first end\r\nsecond\r\n" });
    expect((await grep({ pattern: "end$" })).text).toBe("win.txt:1: first end");
  });

  test("a missing path is an error naming it", async () => {
    await expect(grep({ pattern: "x", path: "nope" })).rejects.toThrow(`Path not found: ${join(root, "nope")}`);
  });

  test("an aborted signal stops the search", async () => {
    await writeTree({ "a.txt": "x\n" });
    const controller = new AbortController();
    controller.abort();
    await expect(grep({ pattern: "x" }, controller.signal)).rejects.toThrow("Operation aborted");
  });

  test("an abort during the search stops reading files", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = "content\n";
    await writeTree(files);
    const controller = new AbortController();
    let reads = 0;
    const tool = createGrepTool(root, {
      operations: {
        isDirectory: () => true,
        readFile: async (path) => {
          reads++;
          if (reads === 5) controller.abort();
          return readFile(path, "utf8");
        },
      },
    });
    await expect(tool.execute("call-1", { pattern: "absent" }, controller.signal)).rejects.toThrow("Operation aborted");
    expect(reads).toBeLessThan(100);
  });

  test("custom operations supply the file text", async () => {
    await writeTree({ "a.txt": "on disk\n" });
    const tool = createGrepTool(root, {
      operations: { isDirectory: () => false, readFile: () => "remote line\nanother remote line\n" },
    });
    const result = await tool.execute("call-1", { pattern: "another", path: "a.txt" });
    expect(result.content).toEqual([{ type: "text", text: "a.txt:2: another remote line" }]);
  });

  test("custom operations with readdir serve the whole tree: no local directory is read", async () => {
    const tree: Record<string, string | Record<string, string>> = {
      "/remote/project": { src: "dir", ".gitignore": "file", "notes.md": "file" },
      "/remote/project/src": { "a.ts": "file", "gen.ts": "file" },
    };
    const texts: Record<string, string> = {
      "/remote/project/.gitignore": "gen.ts\n",
      "/remote/project/notes.md": "remote needle in notes\n",
      "/remote/project/src/a.ts": "const needle = 1;\n",
      "/remote/project/src/gen.ts": "needle, but ignored\n",
    };
    const listed: string[] = [];
    const operations: GrepOperations = {
      isDirectory: (path) => {
        if (path in tree) return true;
        if (path in texts) return false;
        throw new Error(`ENOENT: ${path}`);
      },
      readFile: (path) => {
        if (!(path in texts)) throw new Error(`ENOENT: ${path}`);
        return texts[path];
      },
      readdir: (path) => {
        listed.push(path);
        const entries = tree[path];
        if (!entries || typeof entries === "string") throw new Error(`ENOENT: ${path}`);
        // Both shapes: a bare name (asked about with isDirectory) and a typed entry.
        return Object.entries(entries).map(([name, kind]) => (name === "notes.md" ? name : { name, isDirectory: kind === "dir" }));
      },
    };
    // The working directory does not exist on this machine: a local walk would fail.
    const tool = createGrepTool("/remote/project", { operations });
    const result = await tool.execute("call-1", { pattern: "needle" });
    expect(result.content).toEqual([{ type: "text", text: "notes.md:1: remote needle in notes\nsrc/a.ts:1: const needle = 1;" }]);
    expect(listed).toContain("/remote/project/src");
  });

  test("a tree large enough to be shared out to search threads gives the same sorted results and limit", async () => {
    const files: Record<string, string> = {};
    const total = LARGE_TREE_FILES;
    for (let i = 0; i < total; i++) files[`d${String(i % 40).padStart(2, "0")}/f${String(i).padStart(5, "0")}.txt`] = i % 97 === 0 ? `x\nneedle ${i}\n` : "nothing\n";
    await writeTree(files);
    const expected = Object.entries(files)
      .filter(([, text]) => text.includes("needle"))
      .map(([path, text]) => `${path}:2: ${text.split("\n")[1]}`)
      .sort();
    expect((await grep({ pattern: "needle", limit: 1000 })).text).toBe(expected.join("\n"));
    // The same through the regex path, and a limit that stops in the middle.
    expect((await grep({ pattern: "need(le)", limit: 1000 })).text).toBe(expected.join("\n"));
    const limited = await grep({ pattern: "needle", limit: 30 });
    expect(limited.text.split("\n").slice(0, 30)).toEqual(expected.slice(0, 30));
    expect(limited.details?.matchLimitReached).toBe(30);
  });

  test("a tree that ends while its search worker is still starting is searched in full, in order", async () => {
    // Past the point where workers are started, but done long before one could take a batch.
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`d${i % 7}/f${String(i).padStart(3, "0")}.txt`] = i % 13 === 0 ? `needle ${i}\n` : "nothing\n";
    await writeTree(files);
    const expected = Object.entries(files)
      .filter(([, text]) => text.startsWith("needle"))
      .map(([path, text]) => `${path}:1: ${text.trimEnd()}`)
      .sort();
    expect((await grep({ pattern: "needle \\d+" })).text).toBe(expected.join("\n"));
    const limited = await grep({ pattern: "needle", literal: true, limit: 5 });
    expect(limited.text.split("\n").slice(0, 5)).toEqual(expected.slice(0, 5));
    expect(limited.details?.matchLimitReached).toBe(5);
  });

  test("an abort in the middle of a large search rejects, and the next search still works", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < LARGE_TREE_FILES; i++) files[`d${i % 30}/f${i}.txt`] = "content\n";
    await writeTree(files);
    const controller = new AbortController();
    const search = grep({ pattern: "absent" }, controller.signal);
    setTimeout(() => controller.abort(), 5);
    await expect(search).rejects.toThrow("Operation aborted");
    expect((await grep({ pattern: "content", limit: 1 })).details?.matchLimitReached).toBe(1);
  });

  test("a 50 MB single-line file is skipped in a tree and named, and refused by name alone; the rest is searched", async () => {
    await writeTree({ "huge.txt": Buffer.alloc(50 * 1024 * 1024, "a"), "small.txt": "aaa\n" });
    expect((await grep({ pattern: "aaa" })).text).toBe(`small.txt:1: aaa\n\n[Skipped 1 file over 10.0MB without searching: huge.txt. ${SKIP_ADVICE}`);
    await expect(grep({ pattern: "aaa", path: "huge.txt" })).rejects.toThrow(/huge\.txt is too large \(over 10\.0MB\), so it was not searched/);
  });

  test("a file just over the size limit holding the needle is named, not passed off as \"No matches found\"", async () => {
    await writeJustTooLarge("logs/big.log", "the needle is here\n");
    await writeTree({ "a.txt": "nothing\n" });
    const { text, details } = await grep({ pattern: "needle" });
    expect(text).toBe(`No matches found\n\n[Skipped 1 file over 10.0MB without searching: logs/big.log. ${SKIP_ADVICE}`);
    expect(details).toEqual({ largeFilesSkipped: { count: 1, paths: ["logs/big.log"] } });
    // One byte less is searched.
    await truncate(join(root, "logs/big.log"), MAX_SEARCHED_FILE_BYTES);
    expect((await grep({ pattern: "needle" })).text).toBe("logs/big.log:1: the needle is here");
  });

  test("skipped files are named after the matches; past five, the rest are counted; large binaries are not named", async () => {
    for (const name of ["a", "b", "c", "d", "e", "f", "g"]) await writeJustTooLarge(`${name}.log`, "log line\n");
    await writeTree({ "bin.dat": Buffer.concat([Buffer.from([0, 1, 2]), Buffer.alloc(MAX_SEARCHED_FILE_BYTES, "x")]), "src/hit.ts": "const needle = 1;\n" });
    const { text, details } = await grep({ pattern: "needle" });
    expect(text).toBe(`src/hit.ts:1: const needle = 1;\n\n[Skipped 7 files over 10.0MB without searching: a.log, b.log, c.log, d.log, e.log and 2 more. ${SKIP_ADVICE}`);
    expect(details?.largeFilesSkipped).toEqual({ count: 7, paths: ["a.log", "b.log", "c.log", "d.log", "e.log"] });
  });

  test("a large file in a tree shared out to search threads is named too", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < LARGE_TREE_FILES; i++) files[`d${String(i % 40).padStart(2, "0")}/f${String(i).padStart(5, "0")}.txt`] = "nothing\n";
    await writeTree(files);
    // One at the end of each folder: nearly every batch holds one, and most batches go to a worker thread.
    for (let folder = 0; folder < 40; folder++) await writeJustTooLarge(`d${String(folder).padStart(2, "0")}/zz-dump.sql`, "INSERT needle\n");
    const { text, details } = await grep({ pattern: "needle" });
    expect(text).toBe(`No matches found\n\n[Skipped 40 files over 10.0MB without searching: d00/zz-dump.sql, d01/zz-dump.sql, d02/zz-dump.sql, d03/zz-dump.sql, d04/zz-dump.sql and 35 more. ${SKIP_ADVICE}`);
    expect(details?.largeFilesSkipped?.count).toBe(40);
  });

  test("custom operations name a file whose text is over the size limit", async () => {
    const tool = createGrepTool("/remote", {
      operations: {
        isDirectory: (path) => path === "/remote",
        readdir: () => ["big.txt", "small.txt"],
        readFile: (path) => (path.endsWith("big.txt") ? "needle ".repeat(MAX_SEARCHED_FILE_BYTES / 7 + 1) : "no\n"),
      },
    });
    const result = await tool.execute("call-1", { pattern: "needle" });
    expect(result.content).toEqual([{ type: "text", text: `No matches found\n\n[Skipped 1 file over 10.0MB without searching: big.txt. ${SKIP_ADVICE}` }]);
  });

  test("symlink loops, broken links and unreadable directories are passed over", async () => {
    await writeTree({ "a/b/hit.txt": "needle\n", "locked/secret.txt": "needle\n" });
    await symlink(join(root, "a"), join(root, "a/b/loop"));
    await symlink(join(root, "gone.txt"), join(root, "broken.txt"));
    await chmod(join(root, "locked"), 0o000);
    try {
      const { text } = await grep({ pattern: "needle" });
      // Root can read anything, so the locked directory is only absent for other users.
      expect(text.startsWith("a/b/hit.txt:1: needle")).toBe(true);
      expect(text).not.toContain("loop");
    } finally {
      await chmod(join(root, "locked"), 0o755);
    }
  });

  test("a literal with regex characters, with ignoreCase, and text after invalid UTF-8 are all found", async () => {
    await writeTree({
      "a.txt": "price is $5.00 (net)\nPRICE IS $5.00 (NET)\n",
      "b.bin.txt": Buffer.concat([Buffer.from([0xff, 0xfe, 0x41, 0x0a]), Buffer.from("tail price is $5.00 (net)\n")]),
    });
    expect((await grep({ pattern: "$5.00 (net)", literal: true })).text).toBe("a.txt:1: price is $5.00 (net)\nb.bin.txt:2: tail price is $5.00 (net)");
    expect((await grep({ pattern: "$5.00 (net)", literal: true, ignoreCase: true })).text).toBe(
      "a.txt:1: price is $5.00 (net)\na.txt:2: PRICE IS $5.00 (NET)\nb.bin.txt:2: tail price is $5.00 (net)",
    );
    expect((await grep({ pattern: "\uFFFDA", literal: true })).text).toBe("b.bin.txt:1: \uFFFD\uFFFDA");
  });
});
