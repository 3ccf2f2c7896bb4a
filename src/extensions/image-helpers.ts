/**
 * pi's image helpers for extensions (`resizeImage`, `formatDimensionNote`,
 * `convertToPng`, `detectSupportedImageMimeTypeFromFile`), on Bun's built-in image
 * pipeline (`Bun.Image`). `resizeImage` is the resizer xcsh itself uses for every
 * image it sends (tools/image-resize.ts), so an extension gets the same result.
 */
import { detectImageMimeTypeFromFile } from "../tools/image-mime.ts";

export { formatDimensionNote, resizeImage, type ImageResizeOptions, type ResizedImage } from "../tools/image-resize.ts";

/** The image as PNG (base64 in, base64 out); a PNG comes back as it is, an unreadable image as null. */
export async function convertToPng(base64Data: string, mimeType: string): Promise<{ data: string; mimeType: string } | null> {
  if (typeof base64Data !== "string") throw new TypeError("convertToPng: base64Data must be a string");
  if (mimeType === "image/png") return { data: base64Data, mimeType };
  try {
    const png = await new Bun.Image(Buffer.from(base64Data, "base64")).png().bytes();
    return { data: Buffer.from(png).toString("base64"), mimeType: "image/png" };
  } catch {
    return null;
  }
}

/** "image/png", "image/jpeg", "image/gif" or "image/webp" by the file's first bytes; null otherwise (or when unreadable). */
export async function detectSupportedImageMimeTypeFromFile(filePath: string): Promise<string | null> {
  if (typeof filePath !== "string") throw new TypeError("detectSupportedImageMimeTypeFromFile: filePath must be a string");
  try {
    return await detectImageMimeTypeFromFile(filePath);
  } catch {
    return null;
  }
}
