/**
 * Whether an image can go to a model as it is. Providers reject oversized
 * images by failing the whole request (and every later one, while the image
 * stays in the context), so `read` checks first and refuses with what to do.
 * The limits are the strictest common ones (Anthropic's): 3.75 MB of image
 * data (5 MB once base64-encoded) and 8000 px on a side.
 */

export const MAX_IMAGE_BYTES = 3_750_000;
export const MAX_IMAGE_SIDE = 8000;

export interface ImageSize {
  width: number;
  height: number;
}

const u16be = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u16le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u24le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;

/** Width and height from the image's header; undefined when the header cannot be read. */
export function imageSize(bytes: Uint8Array, mimeType: string): ImageSize | undefined {
  switch (mimeType) {
    case "image/png":
      // IHDR is the first chunk: width and height right after its type.
      return bytes.length >= 24 ? { width: u32be(bytes, 16), height: u32be(bytes, 20) } : undefined;
    case "image/gif":
      return bytes.length >= 10 ? { width: u16le(bytes, 6), height: u16le(bytes, 8) } : undefined;
    case "image/jpeg":
      return jpegSize(bytes);
    case "image/webp":
      return webpSize(bytes);
    default:
      return undefined;
  }
}

/** The frame header (SOFn) holds the size; segments before it are skipped by their lengths. */
function jpegSize(bytes: Uint8Array): ImageSize | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7) };
    at += 2 + u16be(bytes, at + 2);
  }
  return undefined;
}

function webpSize(bytes: Uint8Array): ImageSize | undefined {
  if (bytes.length < 30) return undefined;
  const chunk = String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]);
  if (chunk === "VP8X") return { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  if (chunk === "VP8L") {
    const bits = (bytes[21] | (bytes[22] << 8) | (bytes[23] << 16) | (bytes[24] << 24)) >>> 0;
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 ") return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  return undefined;
}

/** Why the image cannot be sent as it is, with how to make it fit; undefined when it fits. */
export function imageProblem(bytes: Uint8Array, mimeType: string, path: string): string | undefined {
  const size = imageSize(bytes, mimeType);
  const tooWide = size !== undefined && (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE);
  const tooBig = bytes.length > MAX_IMAGE_BYTES;
  if (!tooWide && !tooBig) return undefined;
  const what = [
    size ? `${size.width}×${size.height} px` : undefined,
    `${(bytes.length / 1_000_000).toFixed(1)} MB`,
  ].filter(Boolean).join(", ");
  const limit = `${path} is too large to show to the model (${what}; the limit is ${MAX_IMAGE_SIDE} px on a side and ${MAX_IMAGE_BYTES / 1_000_000} MB).`;
  // Only a file has a copy to make; an attached or tool-made image is named by what it is.
  if (!path.startsWith("/")) return `${limit} Turn on images.autoResize in settings.json to have it scaled down.`;
  return (
    `${limit} ` +
    `Make a smaller copy and read that instead, e.g. with ImageMagick: convert '${path}' -resize '2000x2000>' /tmp/smaller.png ` +
    `(macOS: sips -Z 2000 '${path}' --out /tmp/smaller.png), or turn on images.autoResize in settings.json.`
  );
}
