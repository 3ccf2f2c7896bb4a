/**
 * Which encoding a scaled image goes out in: the smaller of a PNG and a JPEG at the asked
 * quality (80 unless a model's profile says otherwise), and a lower JPEG quality only when
 * neither fits the byte limit. Text in a screenshot must stay readable for the model; a
 * lower quality saves no image tokens (they are counted by pixels), only bytes.
 */
import { describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { resizeImage } from "../../src/tools/image-resize.ts";

/** A PNG of fine detail (a deterministic pattern, like small text), built by hand. */
function detailedPng(width: number, height: number): Uint8Array {
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < width * 3; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      raw[y * row + 1 + x] = (seed >> 16) & 0xff;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(Bun.hash.crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return new Uint8Array(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]));
}

const jpegBytes = async (source: Uint8Array, width: number, height: number, quality: number) =>
  (await new Bun.Image(source).resize(width, height, { fit: "fill" }).jpeg({ quality }).bytes()).length;

describe("a scaled image's encoding", () => {
  const source = detailedPng(1200, 900);

  test("is the JPEG at the asked quality when it fits, not a lower one", async () => {
    const resized = await resizeImage(source, "image/png", { maxWidth: 600, maxHeight: 600 });
    expect(resized).not.toBeNull();
    expect(resized!).toMatchObject({ width: 600, height: 450, mimeType: "image/jpeg", wasResized: true });
    const sent = Buffer.from(resized!.data, "base64").length;
    expect(sent).toBe(await jpegBytes(source, 600, 450, 80));
    expect(sent).toBeGreaterThan(await jpegBytes(source, 600, 450, 25));
  });

  test("goes down in quality only when the asked one does not fit the byte limit", async () => {
    const atEighty = await jpegBytes(source, 600, 450, 80);
    const atSeventy = await jpegBytes(source, 600, 450, 70);
    // A limit (of base64 bytes) between the two: 80 does not fit, 70 does.
    const limit = Math.ceil(((atSeventy + atEighty) / 2) * (4 / 3));
    const resized = await resizeImage(source, "image/png", { maxWidth: 600, maxHeight: 600, maxBytes: limit });
    expect(resized!).toMatchObject({ width: 600, height: 450, mimeType: "image/jpeg" });
    expect(Buffer.from(resized!.data, "base64").length).toBe(atSeventy);
  });
});
