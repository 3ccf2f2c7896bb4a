/**
 * With images.autoResize off, images too large for a provider are refused by
 * `read` with a message saying how to make them fit, instead of being sent to
 * fail the whole request — checked on the headers of every supported format and
 * through the binary. (With it on they are scaled: read-image-resize.test.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { imageProblem, imageSize, MAX_IMAGE_BYTES } from "../../src/tools/image-limits.ts";
import { makeFakeModelHome, runXcsh } from "../support/cli.ts";

function png(width: number, height: number, padTo = 64): Uint8Array {
  const bytes = new Uint8Array(Math.max(padTo, 33));
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  return bytes;
}

function gif(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(16);
  bytes.set([..."GIF89a"].map((c) => c.charCodeAt(0)));
  new DataView(bytes.buffer).setUint16(6, width, true);
  new DataView(bytes.buffer).setUint16(8, height, true);
  return bytes;
}

function jpeg(width: number, height: number): Uint8Array {
  // SOI, an APP0 segment of 16 bytes, then SOF0 with the size.
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...new Array(14).fill(0)];
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, ...new Array(9).fill(0)];
  return new Uint8Array([0xff, 0xd8, ...app0, ...sof]);
}

function webpVp8x(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(40);
  bytes.set([..."RIFF"].map((c) => c.charCodeAt(0)), 0);
  bytes.set([..."WEBPVP8X"].map((c) => c.charCodeAt(0)), 8);
  const w = width - 1;
  const h = height - 1;
  bytes.set([w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff, h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff], 24);
  return bytes;
}

describe("image sizes from headers", () => {
  test("png, gif, jpeg and webp", () => {
    expect(imageSize(png(1200, 800), "image/png")).toEqual({ width: 1200, height: 800 });
    expect(imageSize(gif(300, 200), "image/gif")).toEqual({ width: 300, height: 200 });
    expect(imageSize(jpeg(4032, 3024), "image/jpeg")).toEqual({ width: 4032, height: 3024 });
    expect(imageSize(webpVp8x(9000, 10), "image/webp")).toEqual({ width: 9000, height: 10 });
    expect(imageSize(new Uint8Array(3), "image/jpeg")).toBeUndefined();
  });

  test("a problem only past the limits, naming the size and how to shrink it", () => {
    expect(imageProblem(png(8000, 8000), "image/png", "/x/a.png")).toBeUndefined();
    expect(imageProblem(png(8001, 100), "image/png", "/x/a.png")).toContain("8001×100 px");
    const heavy = png(100, 100, MAX_IMAGE_BYTES + 1);
    const problem = imageProblem(heavy, "image/png", "/x/big.png")!;
    expect(problem).toContain("3.8 MB");
    expect(problem).toContain("convert '/x/big.png' -resize '2000x2000>'");
  });
});

const fixture = await makeFakeModelHome([{ id: "m", input: ["text", "image"] }]);

describe("read through the binary", () => {
  const { home, server } = fixture;
  afterAll(() => fixture.cleanup());

  test("an oversized image is refused with what to do, the run goes on, and a normal one is shown", async () => {
    home.writeSettings({ images: { autoResize: false } });
    const dir = join(home.home, "images");
    mkdirSync(dir);
    writeFileSync(join(dir, "huge.png"), png(12000, 9000));
    writeFileSync(join(dir, "small.png"), png(64, 64));
    server.enqueue(
      {
        content: [
          { type: "toolCall", id: "r1", name: "read", arguments: { path: join(dir, "huge.png") } },
          { type: "toolCall", id: "r2", name: "read", arguments: { path: join(dir, "small.png") } },
        ],
      },
      { content: [{ type: "text", text: "seen" }] },
    );
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "look"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("seen\n");
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(sent).toContain("is too large to show to the model (12000×9000 px");
    expect(sent.match(/"type":"image_url"/g)?.length ?? 0).toBe(1);
  });
});
