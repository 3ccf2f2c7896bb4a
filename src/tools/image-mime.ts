/**
 * Recognising image files by their first bytes. Models name files freely and
 * extensions lie (a `.png` that is really a JPEG, a screenshot with no
 * extension), so the content decides whether `read` returns an image.
 */
import { fsPromises } from "./fs-promises.ts";

export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Enough leading bytes to tell every supported format apart (WebP needs 12). */
export const IMAGE_SNIFF_BYTES = 12;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  return signature.every((byte, i) => bytes[at + i] === byte);
}

function asciiAt(bytes: Uint8Array, at: number, text: string): boolean {
  return startsWith(
    bytes,
    [...text].map((ch) => ch.charCodeAt(0)),
    at,
  );
}

/** The image type the bytes start with, or null when they are not a supported image. */
export function detectImageMimeTypeFromBytes(bytes: Uint8Array): ImageMimeType | null {
  if (startsWith(bytes, PNG_SIGNATURE)) return "image/png";
  if (startsWith(bytes, JPEG_SIGNATURE)) return "image/jpeg";
  if (asciiAt(bytes, 0, "GIF87a") || asciiAt(bytes, 0, "GIF89a")) return "image/gif";
  // A WebP file is a RIFF container whose form type is "WEBP".
  if (asciiAt(bytes, 0, "RIFF") && asciiAt(bytes, 8, "WEBP")) return "image/webp";
  return null;
}

/** Reads only the head of the file, so checking a large file stays cheap. */
export async function detectImageMimeTypeFromFile(absolutePath: string): Promise<ImageMimeType | null> {
  const handle = await (await fsPromises()).open(absolutePath, "r");
  try {
    const head = new Uint8Array(IMAGE_SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, IMAGE_SNIFF_BYTES, 0);
    return detectImageMimeTypeFromBytes(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
