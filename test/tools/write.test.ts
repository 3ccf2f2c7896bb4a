/** The write tool on a real temp directory. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withFileMutationQueue } from "../../src/tools/file-mutation-queue.ts";
import { createWriteTool, type WriteOperations } from "../../src/tools/write.ts";
import type { AgentToolResult } from "../../src/agent/types.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "xcsh-write-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function textOf(result: AgentToolResult<unknown>): string {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("expected text content");
  return first.text;
}

test("creates missing parent folders and reports the bytes written", async () => {
  const result = await createWriteTool(dir).execute("t", { path: "a/b/c/new.txt", content: "hello" });
  expect(await readFile(join(dir, "a/b/c/new.txt"), "utf8")).toBe("hello");
  expect(textOf(result)).toBe("Successfully wrote 5 bytes to a/b/c/new.txt");
});

test("overwrites an existing file and counts bytes, not characters", async () => {
  const path = join(dir, "existing.txt");
  await writeFile(path, "old content that is longer");
  const result = await createWriteTool(dir).execute("t", { path, content: "héllo" });
  expect(await readFile(path, "utf8")).toBe("héllo");
  expect(textOf(result)).toBe(`Successfully wrote 6 bytes to ${path}`);
});

test("an @-prefixed relative path resolves against the tool's cwd, not the process's", async () => {
  const cwd = join(dir, "project");
  await mkdir(cwd, { recursive: true });
  await createWriteTool(cwd).execute("t", { path: "@src/main.ts", content: "export {};\n" });
  expect(await readFile(join(cwd, "src", "main.ts"), "utf8")).toBe("export {};\n");
});

test("waits for earlier mutations of the same file in the queue", async () => {
  const path = join(dir, "queued.txt");
  const log: string[] = [];
  const operations: WriteOperations = {
    mkdir: async () => {
      log.push("write tool: mkdir");
    },
    writeFile: async () => {
      log.push("write tool: writeFile");
    },
  };
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const earlier = withFileMutationQueue(path, async () => {
    log.push("earlier: start");
    await gate;
    log.push("earlier: end");
  });
  const write = createWriteTool(dir, { operations }).execute("t", { path, content: "x" });
  // Give an unqueued write every chance to run before the earlier mutation ends.
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await Promise.all([earlier, write]);
  expect(log).toEqual(["earlier: start", "earlier: end", "write tool: mkdir", "write tool: writeFile"]);
});

test("writing over a directory is an error that says so", async () => {
  await mkdir(join(dir, "a-folder"), { recursive: true });
  await expect(createWriteTool(dir).execute("t", { path: "a-folder", content: "x" })).rejects.toThrow(/directory/);
});

test("an aborted call writes nothing", async () => {
  const controller = new AbortController();
  controller.abort();
  await expect(
    createWriteTool(dir).execute("t", { path: "aborted.txt", content: "x" }, controller.signal),
  ).rejects.toThrow(/aborted/);
  expect(await Bun.file(join(dir, "aborted.txt")).exists()).toBe(false);
});

test("operations can be replaced, e.g. to write elsewhere", async () => {
  const written = new Map<string, string>();
  const made: string[] = [];
  const operations: WriteOperations = {
    writeFile: async (p, content) => {
      written.set(p, content);
    },
    mkdir: async (d) => {
      made.push(d);
    },
  };
  await createWriteTool("/remote", { operations }).execute("t", { path: "deep/file.txt", content: "remote" });
  expect(made).toEqual(["/remote/deep"]);
  expect(written.get("/remote/deep/file.txt")).toBe("remote");
});
