import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { walkDirectory, type WalkEntry } from "../../src/tools/file-walker.ts";
import { GitignoreChain, GitignoreRules, patternMatchers } from "../../src/tools/gitignore.ts";

/** Whether `path` is ignored by a single .gitignore with `content` at the root. */
function ignoredBy(content: string, path: string, isDirectory = false): boolean {
  return GitignoreChain.empty.with(GitignoreRules.parse(content), "").isIgnored(path, isDirectory);
}

describe("gitignore patterns", () => {
  test("skips blank lines and comments; a plain name matches at any depth", () => {
    const rules = "# build output\n\n   \ndist\n";
    expect(ignoredBy(rules, "dist")).toBe(true);
    expect(ignoredBy(rules, "a/b/dist", true)).toBe(true);
    expect(ignoredBy(rules, "distribution")).toBe(false);
    expect(ignoredBy(rules, "# build output")).toBe(false);
  });

  test("a trailing slash matches directories only", () => {
    expect(ignoredBy("logs/", "logs", true)).toBe(true);
    expect(ignoredBy("logs/", "src/logs", true)).toBe(true);
    expect(ignoredBy("logs/", "logs", false)).toBe(false);
  });

  test("a slash at the start or in the middle anchors the pattern to the .gitignore's directory", () => {
    expect(ignoredBy("/todo.txt", "todo.txt")).toBe(true);
    expect(ignoredBy("/todo.txt", "docs/todo.txt")).toBe(false);
    expect(ignoredBy("doc/frotz", "doc/frotz")).toBe(true);
    expect(ignoredBy("doc/frotz", "a/doc/frotz")).toBe(false);
  });

  test("* and ? do not cross directories; ** does", () => {
    expect(ignoredBy("*.log", "deep/dir/app.log")).toBe(true);
    expect(ignoredBy("src/*.js", "src/a.js")).toBe(true);
    expect(ignoredBy("src/*.js", "src/lib/a.js")).toBe(false);
    expect(ignoredBy("file?.txt", "file1.txt")).toBe(true);
    expect(ignoredBy("file?.txt", "file12.txt")).toBe(false);
    expect(ignoredBy("**/cache", "cache", true)).toBe(true);
    expect(ignoredBy("**/cache", "x/y/cache", true)).toBe(true);
    expect(ignoredBy("a/**/b", "a/b")).toBe(true);
    expect(ignoredBy("a/**/b", "a/x/y/b")).toBe(true);
    expect(ignoredBy("a/**/b", "c/a/x/b")).toBe(false);
    expect(ignoredBy("out/**", "out/x/y.js")).toBe(true);
    expect(ignoredBy("out/**", "out", true)).toBe(false);
  });

  test("the last matching line wins, so ! re-includes what an earlier line ignored", () => {
    const rules = "*.log\n!keep.log\n";
    expect(ignoredBy(rules, "app.log")).toBe(true);
    expect(ignoredBy(rules, "keep.log")).toBe(false);
    expect(ignoredBy("!keep.log\n*.log\n", "keep.log")).toBe(true);
  });

  test("character classes, ranges, negated classes and POSIX classes", () => {
    expect(ignoredBy("*.[oa]", "lib.o")).toBe(true);
    expect(ignoredBy("*.[oa]", "lib.c")).toBe(false);
    expect(ignoredBy("v[0-9].txt", "v7.txt")).toBe(true);
    expect(ignoredBy("v[!0-9].txt", "v7.txt")).toBe(false);
    expect(ignoredBy("v[!0-9].txt", "vx.txt")).toBe(true);
    expect(ignoredBy("v[[:digit:]]x", "v3x")).toBe(true);
    expect(ignoredBy("v[[:digit:]]x", "vax")).toBe(false);
    expect(ignoredBy("a[]]b", "a]b")).toBe(true);
    // An unterminated bracket is a literal `[`.
    expect(ignoredBy("a[b", "a[b")).toBe(true);
  });

  test("backslash escapes special characters, and trailing spaces are trimmed unless escaped", () => {
    expect(ignoredBy("\\#notes", "#notes")).toBe(true);
    expect(ignoredBy("\\!important", "!important")).toBe(true);
    expect(ignoredBy("star\\*", "star*")).toBe(true);
    expect(ignoredBy("star\\*", "starry")).toBe(false);
    expect(ignoredBy("trailing   ", "trailing")).toBe(true);
    expect(ignoredBy("space\\ ", "space ")).toBe(true);
    expect(ignoredBy("space\\ ", "space")).toBe(false);
  });

  test("a deeper file overrides the files above it, for paths in its subtree only", () => {
    const chain = GitignoreChain.empty
      .with(GitignoreRules.parse("*.gen.ts\n"), "")
      .with(GitignoreRules.parse("!*.gen.ts\n/local.txt\n"), "pkg");
    expect(chain.isIgnored("a.gen.ts", false)).toBe(true);
    expect(chain.isIgnored("pkg/a.gen.ts", false)).toBe(false);
    expect(chain.isIgnored("pkg/local.txt", false)).toBe(true);
    // Anchored to pkg/, so neither the root's nor a deeper local.txt.
    expect(chain.isIgnored("local.txt", false)).toBe(false);
    expect(chain.isIgnored("pkg/sub/local.txt", false)).toBe(false);
  });
});

describe("patterns with many wildcards", () => {
  test("a planted line whose wildcards would make a backtracking matcher run for hours is decided at once", () => {
    // As a RegExp this takes about 60^10 steps on a 60-character name that does not match.
    const hostile = "*a*a*a*a*a*a*a*a*a*a*b\n";
    expect(ignoredBy(hostile, "a".repeat(60))).toBe(false);
    expect(ignoredBy(hostile, `${"a".repeat(60)}b`)).toBe(true);
    expect(ignoredBy("**/**/**/**/**/**/x/**/y\n", `${"d/".repeat(40)}z`)).toBe(false);
  });

  test("the linear-time matcher agrees with the RegExp form on every pattern shape", () => {
    const patterns = ["*", "*.js", "a*b*c", "*a*?*", "src/*/x*", "**/b", "a/**/b", "a/**", "**/a*/**/b*c", "[a-c]*[!x]?", "x\\*y*", "*/*/*", "a[]]*b", "**"];
    const texts = ["", "a", "abc", "a.js", "aXbYc", "src/q/xyz", "src/q/r/x", "b", "x/b", "a/b", "a/x/y/b", "a/", "q/ab/r/bzc", "ab/b1c", "bq", "cxz", "x*y", "x*yz", "a/b/c", "a]zb", "é*/b"];
    for (const pattern of patterns) {
      const { regex, wildcard } = patternMatchers(pattern);
      for (const text of texts) expect([pattern, text, wildcard.test(text)]).toEqual([pattern, text, regex.test(text)]);
    }
  });
});

describe("walkDirectory", () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "xcsh-walk-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function writeTree(files: Record<string, string>): Promise<void> {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), content);
    }
  }

  async function walkedPaths(from = root): Promise<string[]> {
    const paths: string[] = [];
    await walkDirectory(from, (entry: WalkEntry) => {
      paths.push(entry.isDirectory ? `${entry.path}/` : entry.path);
    });
    return paths;
  }

  test("honours nested .gitignore files, negation, directory-only and anchored patterns", async () => {
    await writeTree({
      ".gitignore": "*.log\nbuild/\n/root-only.txt\n",
      "root-only.txt": "",
      "app.log": "",
      "main.ts": "",
      "build/out.js": "",
      "pkg/.gitignore": "!important.log\ngenerated\n",
      "pkg/important.log": "",
      "pkg/debug.log": "",
      "pkg/root-only.txt": "",
      "pkg/generated/x.ts": "",
      "pkg/src/generated": "a file named like the ignored directory",
      "other/generated/y.ts": "",
      "other/build": "a file, so build/ does not match it",
    });
    expect(await walkedPaths()).toEqual([
      ".gitignore",
      "main.ts",
      "other/",
      "other/build",
      "other/generated/",
      "other/generated/y.ts",
      "pkg/",
      "pkg/.gitignore",
      "pkg/important.log",
      "pkg/root-only.txt",
      "pkg/src/",
    ]);
  });

  test("skips .git and node_modules, and lists dotfiles", async () => {
    await writeTree({
      ".git/config": "",
      ".github/workflows/ci.yml": "",
      ".env": "",
      "node_modules/lib/index.js": "",
      "src/node_modules/x.js": "",
      "src/a.ts": "",
    });
    expect(await walkedPaths()).toEqual([".env", ".github/", ".github/workflows/", ".github/workflows/ci.yml", "src/", "src/a.ts"]);
  });

  test("paths come in sorted order even where a name sorts between a directory and its contents", async () => {
    await writeTree({ "a/b.txt": "", "a-c.txt": "", "a.txt": "", "ab/x": "", "B.txt": "" });
    const paths = (await walkedPaths()).filter((path) => !path.endsWith("/"));
    expect(paths).toEqual(["B.txt", "a-c.txt", "a.txt", "a/b.txt", "ab/x"]);
    expect(paths).toEqual([...paths].sort());
  });

  test("inside a git repository, .gitignore files above the walk root and .git/info/exclude apply", async () => {
    await writeTree({
      ".git/info/exclude": "*.secret\n",
      ".gitignore": "*.tmp\n",
      "sub/.gitignore": "local/\n",
      "sub/deeper/a.ts": "",
      "sub/deeper/b.tmp": "",
      "sub/deeper/c.secret": "",
      "sub/deeper/local/x.ts": "",
    });
    expect(await walkedPaths(join(root, "sub", "deeper"))).toEqual(["a.ts"]);
  });

  test("does not follow symlinked directories but lists symlinked files", async () => {
    await writeTree({ "real/file.ts": "", "target.ts": "" });
    await symlink(join(root, "real"), join(root, "linked-dir"));
    await symlink(join(root, "target.ts"), join(root, "linked.ts"));
    await symlink(join(root, "missing"), join(root, "broken"));
    expect(await walkedPaths()).toEqual(["linked.ts", "real/", "real/file.ts", "target.ts"]);
  });

  test("an abort stops a long walk partway", async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 20; d++) for (let f = 0; f < 50; f++) files[`d${d}/f${f}.txt`] = "";
    await writeTree(files);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    let visited = 0;
    const walk = walkDirectory(
      root,
      () => {
        visited++;
        // Slow visitor: the whole walk would take about a second.
        const until = performance.now() + 1;
        while (performance.now() < until) {}
      },
      { signal: controller.signal },
    );
    await expect(walk).rejects.toThrow("Operation aborted");
    expect(visited).toBeGreaterThan(0);
    expect(visited).toBeLessThan(500);
  });
});
