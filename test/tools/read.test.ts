/** The read tool on a real temp directory: line ranges, truncation notices, images, errors. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReadTool, type ReadOperations } from "../../src/tools/read.ts";
import type { AgentToolResult } from "../../src/agent/types.ts";

// A valid 1x1 PNG.
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "xcsh-read-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function textOf(result: AgentToolResult<unknown>): string {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("expected text content");
  return first.text;
}

function numberedLines(count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) => `line ${from + i}`);
}

async function fileWith(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe("text files", () => {
  test("a small file comes back whole, without notices", async () => {
    const path = await fileWith("small.txt", "alpha\nbeta\ngamma\n");
    const result = await createReadTool(dir).execute("t", { path });
    expect(textOf(result)).toBe("alpha\nbeta\ngamma");
    expect(result.details).toBeUndefined();
  });

  test("offset and limit select lines and say where the rest starts", async () => {
    const path = await fileWith("ten.txt", `${numberedLines(10).join("\n")}\n`);
    const result = await createReadTool(dir).execute("t", { path, offset: 3, limit: 2 });
    expect(textOf(result)).toBe("line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]");

    const tail = await createReadTool(dir).execute("t", { path, offset: 9 });
    expect(textOf(tail)).toBe("line 9\nline 10");
  });

  test("a 5000-line file is cut at 2000 lines with the offset to continue", async () => {
    const path = await fileWith("long.txt", `${numberedLines(5000).join("\n")}\n`);
    const tool = createReadTool(dir);

    const first = await tool.execute("t", { path });
    const text = textOf(first);
    expect(text.startsWith("line 1\nline 2\n")).toBe(true);
    expect(text).toContain("\nline 2000\n");
    expect(text).not.toContain("line 2001");
    expect(text).toEndWith("[Showing lines 1-2000 of 5000. Use offset=2001 to continue.]");
    expect(first.details?.truncation?.truncatedBy).toBe("lines");

    const second = textOf(await tool.execute("t", { path, offset: 2001 }));
    expect(second.startsWith("line 2001\n")).toBe(true);
    expect(second).toEndWith("[Showing lines 2001-4000 of 5000. Use offset=4001 to continue.]");

    const last = textOf(await tool.execute("t", { path, offset: 4001 }));
    expect(last.startsWith("line 4001\n")).toBe(true);
    expect(last).toEndWith("line 5000");
  });

  test("output is also cut at 50KB, naming the byte limit", async () => {
    // 1000 lines of 100 bytes: under the line limit, twice the byte limit.
    const lines = Array.from({ length: 1000 }, (_, i) => `${String(i + 1).padStart(4, "0")}${"x".repeat(95)}`);
    const path = await fileWith("wide.txt", `${lines.join("\n")}\n`);
    const result = await createReadTool(dir).execute("t", { path });
    const text = textOf(result);
    expect(text).toMatch(/\[Showing lines 1-(\d+) of 1000 \(50\.0KB limit\)\. Use offset=(\d+) to continue\.\]$/);
    const [, lastShown, next] = text.match(/lines 1-(\d+) of .* offset=(\d+)/) ?? [];
    expect(Number(next)).toBe(Number(lastShown) + 1);
    expect(text).toContain(lines[Number(lastShown) - 1]);
    expect(text).not.toContain(lines[Number(lastShown)]);
    expect(Buffer.byteLength(text)).toBeLessThan(52 * 1024);
    expect(result.details?.truncation?.truncatedBy).toBe("bytes");
  });

  test("a single line over the byte limit is not shown; bash is suggested instead", async () => {
    const path = await fileWith("one-long-line.txt", `${"y".repeat(100 * 1024)}\nshort\n`);
    const text = textOf(await createReadTool(dir).execute("t", { path }));
    expect(text).not.toContain("yyyy");
    expect(text).toContain("Line 1 is 100.0KB");
    expect(text).toContain(`sed -n '1p' '${path}' | head -c 51200`);
    expect(text).toContain("offset=2");
  });

  test("an offset past the end is an error naming the line count", async () => {
    const path = await fileWith("three.txt", "a\nb\nc\n");
    await expect(createReadTool(dir).execute("t", { path, offset: 10 })).rejects.toThrow(
      /Offset 10 is beyond the end of .*three\.txt, which has 3 lines/,
    );
  });

  test("CRLF line endings and a BOM are not shown to the model", async () => {
    const path = await fileWith("crlf.txt", "\uFEFFone\r\ntwo\r\n");
    expect(textOf(await createReadTool(dir).execute("t", { path }))).toBe("one\ntwo");
  });

  test("relative and @-prefixed paths resolve against the tool's cwd", async () => {
    await mkdir(join(dir, "sub"), { recursive: true });
    await writeFile(join(dir, "sub", "rel.txt"), "relative content\n");
    const tool = createReadTool(dir);
    expect(textOf(await tool.execute("t", { path: "sub/rel.txt" }))).toBe("relative content");
    expect(textOf(await tool.execute("t", { path: "@sub/rel.txt" }))).toBe("relative content");
  });
});

describe("images and other files", () => {
  test("a PNG is returned as image content, detected by content not name", async () => {
    const bytes = Buffer.from(PNG_BASE64, "base64");
    const path = await fileWith("picture.dat", bytes);
    const result = await createReadTool(dir).execute("t", { path });
    expect(result.content).toEqual([
      { type: "text", text: "Read image file [image/png]" },
      { type: "image", data: PNG_BASE64, mimeType: "image/png" },
    ]);
  });

  test("JPEG, GIF and WebP headers are recognised even behind a .txt name", async () => {
    const tool = createReadTool(dir);
    // Real (tiny) images: an image that cannot be decoded is refused (read-image-resize.test.ts).
    const onePixel = new Bun.Image(Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64"));
    const cases: [string, Uint8Array, string][] = [
      ["jpeg.txt", await onePixel.jpeg().bytes(), "image/jpeg"],
      ["gif.txt", Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"), "image/gif"],
      ["webp.txt", await onePixel.webp().bytes(), "image/webp"],
    ];
    for (const [name, bytes, mimeType] of cases) {
      const result = await tool.execute("t", { path: await fileWith(name, bytes) });
      expect(textOf(result)).toBe(`Read image file [${mimeType}]`);
      expect(result.content[1]).toEqual({ type: "image", data: Buffer.from(bytes).toString("base64"), mimeType });
    }
  });

  test("a .png file that holds text is read as text", async () => {
    const path = await fileWith("fake.png", "not really an image\n");
    expect(textOf(await createReadTool(dir).execute("t", { path }))).toBe("not really an image");
  });

  test("a binary file that is not an image is described, not dumped", async () => {
    const path = await fileWith("blob.bin", Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]));
    const result = await createReadTool(dir).execute("t", { path });
    expect(result.content).toHaveLength(1);
    const text = textOf(result);
    expect(text).toContain("binary file");
    expect(text).not.toContain("\0");
  });
});

describe("errors", () => {
  test("a missing file names the resolved path", async () => {
    await expect(createReadTool(dir).execute("t", { path: "nope/missing.txt" })).rejects.toThrow(
      `File not found: ${join(dir, "nope", "missing.txt")}`,
    );
  });

  test("a directory suggests ls", async () => {
    await mkdir(join(dir, "folder"), { recursive: true });
    await expect(createReadTool(dir).execute("t", { path: "folder" })).rejects.toThrow(/is a directory.*ls/);
  });

  test("an aborted call does not read", async () => {
    const path = await fileWith("abort.txt", "content\n");
    const controller = new AbortController();
    controller.abort();
    await expect(createReadTool(dir).execute("t", { path }, controller.signal)).rejects.toThrow(/aborted/);
  });
});

test("operations can be replaced, e.g. to read from elsewhere", async () => {
  const files = new Map([["/remote/notes.md", Buffer.from("from the remote side\n")]]);
  const operations: ReadOperations = {
    readFile: async (p) => files.get(p) ?? Buffer.alloc(0),
    access: async (p) => {
      if (!files.has(p)) throw Object.assign(new Error("missing"), { code: "ENOENT" });
    },
  };
  const tool = createReadTool("/remote", { operations });
  expect(textOf(await tool.execute("t", { path: "notes.md" }))).toBe("from the remote side");
  await expect(tool.execute("t", { path: "other.md" })).rejects.toThrow("File not found: /remote/other.md");
});
